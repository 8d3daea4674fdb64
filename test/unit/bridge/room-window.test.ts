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

describe('a held pause (issue #52) moves no fragment window', () => {
  it('a late fragment of an utterance whose pause goes out as paced silence still names its speaker', async () => {
    const { ModelInput } = await import('../../../main/core/bridge/call-stages.ts');
    const { activity, at } = room();
    const sent: number[] = [];
    const link = { sendAudio: (c: Int16Array) => void sent.push(c.length), endAudioInput: () => undefined };
    const inFlight = { inputOpened: () => undefined, inputEnded: () => undefined };
    const input = new ModelInput(link as never, inFlight as never, activity, { bytesToModel: 0 } as never);
    const speech = new Int16Array(1600).fill(3000);
    const silence = new Int16Array(320);
    at(0);
    activity.start('a');
    for (let t = 100; t <= 1000; t += 100) {
      at(t);
      input.stage.input.push(speech);
    }
    at(1010);
    activity.end('a');
    at(1030);
    expect(activity.speakersOfFragment()).toEqual(['a']);
    // The service keeps the turn open: the bridge sends the pause as digital silence every 20 ms.
    for (let t = 1040; t <= 4000; t += 20) {
      at(t);
      input.stage.input.push(silence);
    }
    // The transcription's last words of the utterance arrive during the pause: still a's.
    at(4010);
    expect(activity.speakersOfFragment()).toEqual(['a']);
    expect(sent.length).toBe(10 + 149);
  });
});
