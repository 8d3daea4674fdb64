// Noise does not cut a reply (issue #52 item 5; barge-in.ts "Noise"; docs/audio.md "Phantom turns"):
// a headset user's key clicks and coughs, as their 20 ms frames while the bot talks, hold the reply at
// most; a word still stops it on the same frame as before and cuts it once confirmed. A click's hold,
// released, marks no echo path: the next word is judged as if the click had not been. Counted in
// corpus frames (bench/lib/noise-phantoms.ts runs the call's detector and hold), never wall clock.
import { describe, expect, it } from 'vitest';
import { BargeInDetector } from '../../../main/core/bridge/barge-in.ts';
import { HOLD_FRAMES } from '../../../main/core/bridge/barge-in-hold.ts';
import { speechLikeSignal } from '../../../main/demo/fake-services.ts';
import { bargeInOnClip, pauseCorpusControls } from '../../../bench/lib/noise-phantoms.ts';
import { loadNoiseCorpus } from '../../../bench/lib/noise-corpus.ts';
import { measureAllocationsPerFrame } from '../../../bench/lib/allocation-meter.ts';

const corpus = loadNoiseCorpus();

/** 20 ms mono frame `k` of a 48 kHz stereo signal with L = R, scaled by `gain`. */
function frameOf(signal: Int16Array, k: number, gain = 1): Int16Array {
  return Int16Array.from({ length: 960 }, (_, i) => Math.round(signal[2 * (k * 960 + i)]! * gain));
}

/** A key click: 2 ms of decaying noise at -10 dBFS peak, 15 ms into an otherwise silent 20 ms frame (the tested last 10 ms). */
function click(seed = 1): Int16Array {
  const out = new Int16Array(960);
  let x = seed;
  for (let i = 0; i < 96; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out[720 + i] = Math.round((x / 1073741824 - 1) * 10_000 * Math.exp(-i / 30));
  }
  return out;
}

describe('local barge-in on noise (judgeConfirmed, the call path)', () => {
  it("the corpus's keyboards and coughs, a headset speaker's frames over a reply, cut nothing; they hold it at most", () => {
    const clips = corpus.filter((c) => c.kind === 'keyboard' || c.kind === 'cough');
    expect(clips.length).toBe(5);
    for (const clip of clips) {
      const before = bargeInOnClip(clip.pcm, clip.soundStart, false);
      const now = bargeInOnClip(clip.pcm, clip.soundStart);
      expect(before.cuts, `${clip.file} cut the reply before`).toBeGreaterThan(0);
      expect(now.cuts, clip.file).toBe(0);
      expect(now.holds, `${clip.file}: held instead`).toBeGreaterThan(0);
    }
  });

  it("a word's onset stops the reply on the same frame as before and cuts it once confirmed (controls and pause corpus)", () => {
    const speech = [...corpus.filter((c) => c.label === 'speech'), ...pauseCorpusControls()];
    expect(speech.length).toBe(13);
    for (const [i, clip] of speech.entries()) {
      const before = bargeInOnClip(clip.pcm, clip.soundStart, false);
      const now = bargeInOnClip(clip.pcm, clip.soundStart);
      expect(now.firstStopFrames, `clip ${i}: the reply falls silent`).toBe(before.firstStopFrames);
      expect(now.firstStopFrames!, `clip ${i}`).toBeLessThanOrEqual(2);
      expect(now.firstCutFrames, `clip ${i}: cut`).not.toBeNull();
      // Cut at its first voiced frame: on the frame after the stop for the synthetic voices, up to
      // the hold's end (and one frame past it on one clip: its vowel comes 120 ms in) on espeak's.
      expect(now.firstCutFrames! - now.firstStopFrames!, `clip ${i}`).toBeLessThanOrEqual(HOLD_FRAMES + 1);
    }
  });

  describe('a headset speaker (quiet through the echo tail of 1.6 s of reply)', () => {
    const reply = speechLikeSignal(3, 12_000);
    function playing(d: BargeInDetector, ms: number): void {
      for (let k = 0; k < ms / 20; k++) d.notePlayed(frameOf(reply, k), k * 20);
    }
    /** Their own voice at -34 dBFS, in the reply's band: theirs only by the quiet evidence. */
    const word = (k: number) => frameOf(reply, 66 + k, 10 ** (-18 / 20));
    const verdicts = (d: BargeInDetector, id: string, at: number) =>
      [0, 1].map((k) => d.judgeConfirmed(word(k), at + 20 * k, id));

    // (After the cut the rest of the word meets the echo tests, as before: the evidence ends there.)
    it('a voiced word holds on its first frame and cuts on its second, where judge alone cut on the first', () => {
      const d = new BargeInDetector();
      playing(d, 2000);
      expect(d.judge(word(0), 1600, 'gus')).toBe('speech');
      const e = new BargeInDetector();
      playing(e, 2000);
      expect(verdicts(e, 'olga', 1600)).toEqual(['onset', 'speech']);
    });

    it('a click holds, and its release leaves the echo evidence and the onsets standing: the next word cuts as fast', () => {
      const d = new BargeInDetector();
      playing(d, 2000);
      expect(d.judgeConfirmed(click(), 1500, 'olga')).toBe('onset');
      expect(d.judgeConfirmed(click(7), 1520, 'olga'), 'clicks go on: one hold').toBe('none');
      d.suspectEcho('olga'); // the call's hold released unconfirmed (call-audio.ts)
      expect(verdicts(d, 'olga', 1600)).toEqual(['onset', 'speech']);
    });

    it("without quiet evidence too: a click's released hold leaves their onsets holding (the next word stops the reply on its first frame)", () => {
      const d = new BargeInDetector();
      playing(d, 2000);
      d.heard('olga', word(0), 1400); // sound over the floor within the echo tail: no quiet evidence
      expect(d.judgeConfirmed(click(), 1500, 'olga')).toBe('onset');
      d.suspectEcho('olga');
      expect(d.judgeConfirmed(word(0), 1600, 'olga')).toBe('onset');
    });

    it('an onset under the echo line that is not confirmed still marks the echo path (as before)', () => {
      const d = new BargeInDetector();
      playing(d, 2000);
      d.heard('olga', word(0), 1500); // sound over the floor within the echo tail: no quiet evidence
      expect(d.judgeConfirmed(word(0), 1600, 'olga')).toBe('onset');
      d.suspectEcho('olga');
      expect(d.judgeConfirmed(word(0), 1700, 'olga'), 'their onsets hold nothing more').toBe('none');
    });
  });

  it('allocates nothing per frame: clicks, a voice confirming, and quiet (allocation-meter.ts, as allocations.test.ts)', () => {
    const d = new BargeInDetector();
    const reply = speechLikeSignal(3, 12_000);
    for (let k = 0; k < 100; k++) d.notePlayed(frameOf(reply, k), k * 20);
    const frames = [click(), frameOf(reply, 66, 0.125), frameOf(reply, 67, 0.125), new Int16Array(960)];
    let f = 0;
    let spoken = 0;
    const report = measureAllocationsPerFrame(
      () => {
        f++;
        if (d.judgeConfirmed(frames[f % 4]!, 2000 + 20 * (f % 50), 'olga') === 'speech') spoken++;
      },
      { warmupFrames: 1000, frames: 2000, windows: 3 },
    );
    expect(spoken).toBeGreaterThan(0);
    expect(report.bytesPerFrame).toBeLessThan(4);
  });
});
