// Phantom turns on the noise corpus (bench/lib/noise-phantoms.ts; docs/audio.md "Phantom turns"):
// what the voice gate guarantees, counted in corpus frames. The energy gate alone keeps keyboard
// clicks out only partly and coughs not at all (a cough is as loud and as long as a word); closing on
// a stationary sound (an option) ends a fan's turn; with a classifier confirming each onset none opens. Speech opens on the same frame as before either way.
import { describe, expect, it } from 'vitest';
import { measurePhantomTurns, gateOnClip, pauseCorpusControls } from '../../bench/lib/noise-phantoms.ts';
import { loadNoiseCorpus } from '../../bench/lib/noise-corpus.ts';
import { evaluateEndOfTurn, loadPauseCorpus } from '../../bench/lib/pause-corpus.ts';
import type { VoiceActivityClassifier } from '../../main/core/audio/index.ts';

const corpus = loadNoiseCorpus();
/** The gate as it was before the click and stationary checks (both off). */
const BEFORE = { maxBurstShare: 1, stationaryAfterMs: 0 };

/** A classifier that knows the label (the gate's side of the contract, not a model): 1 on speech, 0 on noise. */
function labelled(speech: boolean): VoiceActivityClassifier {
  return { windowSamples: 512, reset: () => undefined, classify: (_w, onResult) => onResult(speech ? 1 : 0) };
}

describe('the energy gate on the noise corpus', () => {
  const now = measurePhantomTurns();
  const before = measurePhantomTurns(BEFORE);

  it('still opens on every speech control and pause-corpus clip, on the same frame as before the noise checks', () => {
    expect(now.speechOpened).toBe(now.speechClips);
    expect(now.speechOpenFrames).toEqual(before.speechOpenFrames);
    for (const frames of now.speechOpenFrames) expect(frames).toBeLessThanOrEqual(2);
  });

  it('opens fewer times on keyboards (clicks rejected), never more on anything', () => {
    expect(now.byKind.keyboard!.opens).toBeLessThan(before.byKind.keyboard!.opens);
    expect(now.phantomStartsPerHour).toBeLessThan(before.phantomStartsPerHour);
    for (const kind of Object.keys(before.byKind))
      expect(now.byKind[kind]!.opens, kind).toBeLessThanOrEqual(before.byKind[kind]!.opens);
  });

  it("closing on a stationary sound ends a fan's and hum's turn, with speech opening as before", () => {
    const closing = measurePhantomTurns({ closeOnStationary: true });
    for (const kind of ['fan', 'hum']) {
      const ms = (r: typeof now) => r.clips.filter((c) => c.kind === kind).reduce((n, c) => n + c.sentMs, 0);
      expect(ms(closing), kind).toBeLessThan(0.75 * ms(now));
    }
    expect(closing.speechOpenFrames).toEqual(before.speechOpenFrames);
    const pause = loadPauseCorpus();
    expect(evaluateEndOfTurn(pause, { closeOnStationary: true })).toEqual(evaluateEndOfTurn(pause, BEFORE));
  });

  it('does not open on a lone key click or on the typing clip at a desk', () => {
    const typing = corpus.find((c) => c.file === 'keyboard-typing.wav')!;
    expect(gateOnClip(typing.pcm, typing.soundStart, BEFORE).opens).toBeGreaterThan(1);
    expect(gateOnClip(typing.pcm, typing.soundStart).opens).toBeLessThanOrEqual(1);
  });

  it('ends every pause-corpus turn exactly as before (the checks change nothing for speech)', () => {
    const pause = loadPauseCorpus();
    expect(evaluateEndOfTurn(pause, {})).toEqual(evaluateEndOfTurn(pause, BEFORE));
  });
});

describe('the gate with a classifier confirming onsets', () => {
  it('opens on no keyboard, cough, music, fan or hum clip, and on every speech clip on the same frame as without it', () => {
    for (const clip of corpus) {
      const alone = gateOnClip(clip.pcm, clip.soundStart);
      const withClassifier = gateOnClip(clip.pcm, clip.soundStart, { classifier: labelled(clip.label === 'speech') });
      if (clip.label === 'noise') expect(withClassifier.opens, clip.file).toBe(0);
      else expect(withClassifier.firstOpenFrames, clip.file).toBe(alone.firstOpenFrames);
    }
    for (const clip of pauseCorpusControls()) {
      expect(gateOnClip(clip.pcm, clip.soundStart, { classifier: labelled(true) }).firstOpenFrames).toBe(
        gateOnClip(clip.pcm, clip.soundStart).firstOpenFrames,
      );
    }
  });
});

describe('Silero confirming onsets (optional packages)', async () => {
  const { measurePhantomTurnsWithSilero } = await import('../../bench/lib/noise-silero.ts');
  const measured = await measurePhantomTurnsWithSilero({}, 200);

  it('is reported as not installed, never thrown, when its packages are absent', () => {
    if (!measured.installed) expect(measured.reason).toMatch(/not installed/);
  });

  it.skipIf(!measured.installed)('opens on no noise clip and on every speech clip', () => {
    if (!measured.installed) return;
    expect(measured.result.phantomStartsPerHour).toBe(0);
    expect(measured.result.speechOpened).toBe(measured.result.speechClips);
  });
});
