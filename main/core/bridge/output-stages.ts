// The output stage between CallAudio's playback and the encoder: upsample (24 → 48 kHz mono, and
// the 48 kHz sound effects mixed over it). The output is pulled: the encoder's 20 ms clock reads
// this stage, which reads one 24 kHz frame from playback per 48 kHz frame it makes, so its filter
// runs on that clock through gaps, turn ends and the barge-in fade alike. Its order and wiring are
// pipeline.ts's; CallAudio builds it (as it builds the input side's resample and gate).
import { PlaybackUpsampler, type EffectStats, type LevelMeter } from '../audio/index.ts';
import type { PlaybackSource } from '../ports.ts';
import { Outlet, stageOf, type EncoderSink, type ReplyFrameSink, type Stage } from './pipeline.ts';

export class UpsampleStage {
  readonly #upsampler = new PlaybackUpsampler();
  readonly #out = new Outlet<EncoderSink>('upsample');
  readonly #frameOut: (frame48k: Int16Array) => void;
  readonly stage: Stage<ReplyFrameSink, EncoderSink>;
  /**
   * What the encoder pulls: 20 ms at 48 kHz mono, each frame handed to `frameOut` as it leaves
   * (CallAudio: the barge-in test's playback reference and the output's bookkeeping).
   */
  readonly source: PlaybackSource = {
    framesAhead: () => this.#upsampler.framesAhead(),
    readFrame: (out: Int16Array) => {
      this.#upsampler.readFrame(out);
      this.#frameOut(out);
    },
  };

  /** `frameOut`: each 48 kHz frame as it goes to the encoder (a reused buffer: use it synchronously). */
  constructor(frameOut: (frame48k: Int16Array) => void) {
    this.#frameOut = frameOut;
    this.stage = stageOf(
      'upsample',
      {
        stage: 'upsample',
        caps: 'pull@24k',
        pullFrom: (source) => this.#upsampler.pullFrom(source),
        start: () => this.#out.next.start(this.source),
        stop: () => this.#out.next.stop(),
      },
      this.#out,
    );
  }

  /** Output levels of the frames that went to the encoder. */
  get meter(): LevelMeter {
    return this.#upsampler.meter;
  }

  /** Mix a 48 kHz mono clip over whatever plays, from the next frame (notification sounds). */
  mixEffect(clip48k: Int16Array, gain: number): void {
    this.#upsampler.mixEffect(clip48k, gain);
  }

  get effectsPlaying(): boolean {
    return this.#upsampler.effectsPlaying;
  }

  effectStats(): EffectStats {
    return this.#upsampler.effectStats();
  }

  /** Forget the filter's state and the effects (a new call). */
  reset(): void {
    this.#upsampler.reset();
  }
}
