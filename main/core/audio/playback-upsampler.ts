// The output's 24 → 48 kHz step: pulls the playback buffer's 20 ms frames at 24 kHz on the
// encoder's clock and upsamples each (480 samples in, 960 out), so the interpolator runs
// continuously: gaps, the end of a turn and the barge-in fade all pass through the same filter
// state, with no clicks at the edges. The buffer says how each frame plays (ReplyFrameShape); the
// fades are shaped here, on the filter's 48 kHz output, where they always were (a ramp at 24 kHz
// would come out of the filter a slightly different shape). The 48 kHz sound effects (the
// notification chime) are mixed over the result here too: this is where the output is first at
// their rate.
import { FRAME_SAMPLES_48K, type PlaybackSource } from '../ports.ts';
import { LevelMeter } from './level-meter.ts';
import { roundClipInto, softLimitInto } from './pcm.ts';
import type { ReplyFrameSource } from './playback-buffer.ts';
import { PolyphaseInterpolator2x } from './upsampler.ts';

const IN_FRAME = FRAME_SAMPLES_48K / 2; // 480 samples = 20 ms at 24 kHz
const OUT_SAMPLES = FRAME_SAMPLES_48K; // 960 samples = 20 ms at 48 kHz, mono
const MAX_EFFECTS = 4;

export interface EffectStats {
  activeEffects: number;
  effectsReplaced: number;
}

export class PlaybackUpsampler implements PlaybackSource {
  /** Output levels of every frame read. */
  readonly meter = new LevelMeter();
  readonly #interp = new PolyphaseInterpolator2x();
  readonly groupDelayMs = this.#interp.groupDelayMs;
  /** The playback buffer, once the pipeline's edge is wired (pullFrom). */
  #source: ReplyFrameSource | null = null;
  /** True once the interpolator holds only zeros, so silence can skip the filter. */
  #quiet = true;
  readonly #in = new Int16Array(IN_FRAME);
  readonly #mono = new Float32Array(OUT_SAMPLES);
  readonly #mix = new Float32Array(OUT_SAMPLES);

  readonly #fxClip: (Int16Array | null)[] = new Array<Int16Array | null>(MAX_EFFECTS).fill(null);
  readonly #fxPos = new Int32Array(MAX_EFFECTS);
  readonly #fxGain = new Float64Array(MAX_EFFECTS);
  #fxActive = 0;
  #effectsReplaced = 0;

  /** Pull from `source` from now on (the playback stage's buffer: pipeline.ts wires it). */
  pullFrom(source: ReplyFrameSource): void {
    this.#source = source;
  }

  /**
   * Mix a short sound effect (48 kHz mono s16) over whatever plays, from the next frame.
   * The clip is referenced, not copied: do not modify it while it plays. Effects survive a barge-in.
   */
  mixEffect(clip48k: Int16Array, gain = 1): void {
    if (!(Number.isFinite(gain) && gain >= 0 && gain <= 4)) throw new RangeError('gain must be 0-4');
    if (clip48k.length < 1) return;
    let slot = this.#fxClip.indexOf(null);
    if (slot < 0) {
      // Replace the effect that has played longest.
      slot = 0;
      for (let s = 1; s < MAX_EFFECTS; s++) if (this.#fxPos[s]! > this.#fxPos[slot]!) slot = s;
      this.#effectsReplaced++;
    } else this.#fxActive++;
    this.#fxClip[slot] = clip48k;
    this.#fxPos[slot] = 0;
    this.#fxGain[slot] = gain;
  }

  /** An effect is still playing (the output is not drained while one is). */
  get effectsPlaying(): boolean {
    return this.#fxActive > 0;
  }

  effectStats(): EffectStats {
    return { activeEffects: this.#fxActive, effectsReplaced: this.#effectsReplaced };
  }

  /** PlaybackSource: always fills 20 ms (960 mono samples), with silence when there is nothing to play. */
  readFrame(out: Int16Array): void {
    if (out.length !== OUT_SAMPLES) throw new RangeError(`readFrame needs ${OUT_SAMPLES} samples, got ${out.length}`);
    const source = this.#source;
    if (source === null) throw new Error('the upsampler has no source: pullFrom() first');
    const mono = this.#mono;
    const shape = source.readFrame(this.#in);
    if (shape === 'silence') this.#runSilence(mono);
    else if (shape === 'fade-out') this.#fadeOut(mono, source.fadeSamples);
    else {
      this.#interp.run(this.#in, 0, IN_FRAME, mono, 0);
      this.#quiet = false;
      if (shape === 'fade-in') this.#fadeIn(mono, source.fadeSamples);
    }
    this.#render(mono, out);
    this.meter.measure(out);
  }

  /** PlaybackSource: whole frames the source has buffered past its playing point. */
  framesAhead(): number {
    return this.#source?.framesAhead() ?? 0;
  }

  /** Forget the filter's state and the effects (leaving the call). */
  reset(): void {
    this.#interp.reset();
    this.#quiet = true;
    this.#fxClip.fill(null);
    this.#fxActive = 0;
  }

  /** Silence still runs through the filter until its tail has left (then it is exact zeros). */
  #runSilence(mono: Float32Array): void {
    if (this.#quiet) {
      mono.fill(0);
      return;
    }
    this.#interp.run(null, 0, IN_FRAME, mono, 0);
    this.#quiet = true; // 480 zeros flush the 54-sample filter span: its history is all zeros now
  }

  /**
   * The frame's first fadeSamples (the stream's next 10 ms) through the filter under a
   * raised-cosine ramp, then exact zeros; the filter starts again from silence after it (the
   * buffer holds the rest of a held turn, or none).
   */
  #fadeOut(mono: Float32Array, inputSamples: number): void {
    const values = 2 * inputSamples;
    this.#interp.run(this.#in, 0, inputSamples, mono, 0);
    for (let i = 0; i < values; i++) mono[i] = mono[i]! * 0.5 * (1 + Math.cos((Math.PI * i) / values));
    mono.fill(0, values);
    this.#interp.reset();
    this.#quiet = true;
  }

  /** The frame rises from silence over the fade's length (the mirror of the fade-out). */
  #fadeIn(mono: Float32Array, inputSamples: number): void {
    const values = 2 * inputSamples;
    for (let i = 0; i < values; i++) mono[i] = mono[i]! * 0.5 * (1 - Math.cos((Math.PI * i) / values));
  }

  /** Speech to s16, plus effects; the soft limiter only engages while an effect plays. */
  #render(mono: Float32Array, out: Int16Array): void {
    if (this.#fxActive === 0) {
      roundClipInto(mono, out, OUT_SAMPLES);
      return;
    }
    const mix = this.#mix;
    mix.set(mono);
    for (let s = 0; s < MAX_EFFECTS; s++) {
      const clip = this.#fxClip[s];
      if (clip === null || clip === undefined) continue;
      const pos = this.#fxPos[s]!;
      const gain = this.#fxGain[s]!;
      const n = Math.min(OUT_SAMPLES, clip.length - pos);
      for (let k = 0; k < n; k++) mix[k] = mix[k]! + clip[pos + k]! * gain;
      if (pos + n >= clip.length) {
        this.#fxClip[s] = null;
        this.#fxActive--;
      } else this.#fxPos[s] = pos + n;
    }
    softLimitInto(mix, out, OUT_SAMPLES);
  }
}
