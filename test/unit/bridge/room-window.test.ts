// Which audio a transcription fragment covers: what reached the model since the previous fragment,
// up to the latest chunk of input audio sent, wherever the chunks fall (100 ms chunks by default),
// not a fixed delay before the fragment's arrival.
import { describe, expect, it } from 'vitest';
import { SpeakerActivity } from '../../../main/core/bridge/room.ts';

function room() {
  let t = 0;
  const activity = new SpeakerActivity({ ownerId: 'a' }, () => t);
  return { activity, at: (ms: number) => void (t = ms) };
}

describe('a fragment covers the audio sent to the model since the previous one', () => {
  it("names a joiner whose first words went out in the fragment's last chunk", () => {
    const { activity, at } = room();
    at(0);
    activity.start('a');
    for (let sent = 100; sent <= 1100; sent += 100) {
      at(sent);
      activity.audioSent();
    }
    at(1130); // the service's fragment for the audio up to 1100, 30 ms after it went out
    expect(activity.speakersOfFragment()).toEqual(['a']);
    at(1320);
    activity.start('b'); // b joins; a goes on
    for (const sent of [1200, 1300, 1400]) {
      at(sent);
      activity.audioSent();
    }
    at(1430); // covers 1100-1400: b's first 80 ms are in it (27 % of the span)
    expect(activity.speakersOfFragment()).toEqual(['a', 'b']);
  });

  it('a second fragment before any new chunk went out holds the same audio: the same voices', () => {
    const { activity, at } = room();
    at(0);
    activity.start('a');
    at(500);
    activity.audioSent();
    at(520);
    expect(activity.speakersOfFragment()).toEqual(['a']);
    activity.start('b'); // b starts talking; none of it has reached the model yet
    at(560);
    expect(activity.speakersOfFragment()).toEqual(['a']);
  });
});
