import { describe, expect, it } from 'vitest';
import { SpeakerMixer } from '../../../main/core/audio/speaker-mixer.ts';

const frame = (value: number) => new Int16Array(960).fill(value);

describe('SpeakerMixer.readyToMix / reset', () => {
  it('is ready only when every active speaker has a frame queued', () => {
    const mixer = new SpeakerMixer();
    expect(mixer.readyToMix()).toBe(false);
    mixer.push('a', frame(100));
    expect(mixer.readyToMix()).toBe(true);
    expect(mixer.mixNext()![0]).toBe(100);
    mixer.push('b', frame(50));
    // 'a' is still active but has nothing queued: mixing now would drop a's next packet into a later tick.
    expect(mixer.readyToMix()).toBe(false);
    mixer.push('a', frame(100));
    expect(mixer.readyToMix()).toBe(true);
    expect(mixer.mixNext()![0]).toBe(150);
  });

  it('reset forgets queued audio and speakers', () => {
    const mixer = new SpeakerMixer();
    mixer.push('a', frame(7));
    mixer.reset();
    expect(mixer.readyToMix()).toBe(false);
    expect(mixer.mixNext()).toBeNull();
    expect(mixer.speakerIds()).toEqual([]);
  });
});
