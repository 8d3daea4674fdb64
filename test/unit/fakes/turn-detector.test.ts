// The one end-of-turn detector of the model fakes (main/fakes/shared/turn-detector.ts): counted in
// received samples, a commit bar for the start, a lower bar to keep speech going, and the shorter
// window after a final cue.
import { describe, expect, it } from 'vitest';
import { tone } from '../../../main/fakes/shared/pcm.ts';
import { TurnDetector } from '../../../main/fakes/shared/turn-detector.ts';

const loud = tone(10, { rate: 16_000, amplitude: 8000 });
const murmur = tone(10, { rate: 16_000, amplitude: 400 });
const quiet = new Int16Array(160);

function feed(detector: TurnDetector, chunk: Int16Array, times: number): (string | null)[] {
  return Array.from({ length: times }, () => detector.feed(chunk));
}

describe('TurnDetector', () => {
  it('starts on the first loud chunk, ends after the window of quiet, and knows where speech stopped', () => {
    const d = new TurnDetector({ startRms: 1000, silenceSamples: 800 });
    expect(feed(d, quiet, 3)).toEqual([null, null, null]);
    expect(d.feed(loud)).toBe('started');
    expect(d.startedAt).toBe(480);
    feed(d, loud, 9);
    expect(feed(d, quiet, 5)).toEqual([null, null, null, null, 'ended']);
    expect(d.endedAt).toBe(480 + 1600);
    expect(d.spokenSamples).toBe(1600);
  });

  it('commits a start only after commitSamples of loud audio in a row', () => {
    const d = new TurnDetector({ startRms: 1000, commitSamples: 480, silenceSamples: 800 });
    expect(feed(d, loud, 2)).toEqual([null, null]);
    d.feed(quiet);
    expect(feed(d, loud, 3)).toEqual([null, null, 'started']);
  });

  it('keeps speech open on sound above continueRms, and ends sooner after a final cue', () => {
    const d = new TurnDetector({ startRms: 1000, continueRms: 200, silenceSamples: 1600, finalSilenceSamples: 480 });
    d.feed(loud);
    expect(feed(d, murmur, 20)).not.toContain('ended');
    d.finalCue = true;
    expect(feed(d, quiet, 3)).toEqual([null, null, 'ended']);
  });

  it('with frameSamples, judges frames on the audio clock: the quiet in a chunk after a word counts from where it stopped', () => {
    // 100 ms chunks: 20 ms of a word's end, then 80 ms of quiet (loud as a whole: RMS over the bar).
    const tail = new Int16Array(1600);
    tail.set(tone(20, { rate: 16_000, amplitude: 8000 }));
    const silence = new Int16Array(1600);
    const framed = new TurnDetector({ startRms: 1000, silenceSamples: 3200, frameSamples: 320 });
    const whole = new TurnDetector({ startRms: 1000, silenceSamples: 3200 });
    for (const d of [framed, whole]) {
      feed(d, tone(100, { rate: 16_000, amplitude: 8000 }), 4);
      d.feed(tail);
    }
    expect(framed.feed(silence)).toBeNull();
    expect(framed.feed(new Int16Array(960))).toBe('ended');
    // 80 + 100 + 60 ms: the window filled inside the chunk; the quiet counted is the window, not the chunk's rest.
    expect(framed.endQuietSamples).toBe(3200);
    expect(framed.endedAt).toBe(4 * 1600 + 320);
    expect([whole.feed(silence), whole.feed(new Int16Array(960))]).toEqual([null, null]);
  });

  it('end() closes an open turn only', () => {
    const d = new TurnDetector({ startRms: 1000, silenceSamples: 800 });
    expect(d.end()).toBe(false);
    d.feed(loud);
    expect(d.end()).toBe(true);
    expect(d.speaking).toBe(false);
  });
});
