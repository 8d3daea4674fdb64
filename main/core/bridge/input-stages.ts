// The input stages between the voice port and the wake-name gate that are not CallAudio's mix:
// receive (the voice port's frames into the pipeline), resample (48 → 16 kHz) and gate (the level
// meter and the voice gate: fixed chunks of speech, and the end of each utterance). Their order and
// wiring are pipeline.ts's; each takes frames from its input and hands them to its outlet.
import { Downsampler48kTo16k, LevelMeter, VoiceGate, type VoiceActivityClassifier } from '../audio/index.ts';
import type { CallMetrics } from './metrics.ts';
import { Outlet, stageOf, type PcmSink, type SpeakerFrameSink, type SpeechSink, type Stage } from './pipeline.ts';

/** receive: an allowed speaker's decoded frames (the voice port's `pcm` event) enter the call. */
export class ReceiveStage {
  readonly #out = new Outlet<SpeakerFrameSink>('receive');
  readonly stage: Stage<null, SpeakerFrameSink> = stageOf('receive', null, this.#out);

  /** The voice port's `pcm` listener: 20 ms, 48 kHz mono (a reused buffer). */
  readonly pcm = (speakerId: string, frame: Int16Array): void => this.#out.next.frame(speakerId, frame);
}

/** resample: 48 kHz mono → 16 kHz mono (the model's rate), once, after mixing (docs/audio.md "Mixer"). */
export class ResampleStage {
  readonly #downsampler = new Downsampler48kTo16k();
  readonly #out = new Outlet<PcmSink<16_000>>('resample');
  readonly #input: PcmSink<48_000> = {
    stage: 'resample',
    caps: 'pcm@48000',
    push: (pcm, arrivedAt) => this.#out.next.push(this.#downsampler.process(pcm), arrivedAt),
    // Silence passes around the filter, as digital zeros in whole 20 ms ticks (a multiple of 3 samples).
    silence: (samples) => this.#out.next.silence(samples / 3),
    untilOutput: () => {
      const samples16k = this.#out.next.untilOutput();
      return samples16k === null ? null : 3 * samples16k;
    },
    flush: () => {
      this.#downsampler.reset();
      this.#out.next.flush();
    },
  };
  readonly stage: Stage<PcmSink<48_000>, PcmSink<16_000>> = stageOf('resample', this.#input, this.#out);
}

export interface GateStageOptions {
  chunkMs: number;
  metrics: CallMetrics;
  /** Monotonic ms clock (ingress latency). */
  now: () => number;
  /** Asked at the hangover: the service hears this utterance, so its detector ends the turn (voice-gate.ts). */
  holdTurn?: () => boolean;
  /** Quiet after which a turn the service has not ended is ended anyway (ms). */
  turnCapMs?: number;
}

/** gate: the input level meter, then the voice gate (pre-roll, hangover, fixed chunks, the end of input). */
export class GateStage {
  /** Input levels of every 16 kHz frame (the page's meter). */
  readonly meter = new LevelMeter();
  #gate: VoiceGate;
  readonly #options: GateStageOptions;
  #classifier: VoiceActivityClassifier | null = null;
  #capMs: number | null = null;
  readonly #metrics: CallMetrics;
  readonly #now: () => number;
  readonly #out = new Outlet<SpeechSink>('gate');
  /** The arrival of the packet whose frame is being gated (0: a frame the clock made). */
  #arrivedAt = 0;
  readonly #input: PcmSink<16_000> = {
    stage: 'gate',
    caps: 'pcm@16000',
    push: (pcm, arrivedAt) => {
      this.meter.measure(pcm);
      this.#arrivedAt = arrivedAt;
      this.#gate.push(pcm);
      this.#arrivedAt = 0;
    },
    silence: (samples) => this.#gate.pushSilence(samples),
    // A pending onset (the voice check deciding) is dropped by the silence that follows it, so time reaches it too.
    untilOutput: () => (this.#gate.isOpen || this.#gate.isPending ? this.#gate.silenceSamplesUntilOutput() : null),
    flush: () => this.#gate.flush(),
  };
  readonly stage: Stage<PcmSink<16_000>, SpeechSink>;

  constructor(options: GateStageOptions) {
    this.#metrics = options.metrics;
    this.#now = options.now;
    this.#options = options;
    this.#gate = this.#build();
    this.stage = stageOf('gate', this.#input, this.#out);
  }

  #build(): VoiceGate {
    const o = this.#options;
    return new VoiceGate({
      chunkMs: o.chunkMs,
      onChunk: (chunk) => this.#emit(chunk),
      onEnd: (trailingQuietMs) => {
        this.#metrics.turnEnded(trailingQuietMs);
        this.#out.next.end();
      },
      ...(o.holdTurn ? { holdTurn: o.holdTurn } : {}),
      ...(o.turnCapMs !== undefined ? { turnCapMs: o.turnCapMs } : {}),
      ...(this.#classifier ? { classifier: this.#classifier } : {}),
    });
  }

  /**
   * Between calls: the voice check that confirms each onset before a turn opens (Silero, the
   * `sileroVad` setting; docs/audio.md "Phantom turns"), or none. The gate is rebuilt when it
   * changes (its buffers are sized for it), keeping the call's silence cap.
   */
  useClassifier(classifier: VoiceActivityClassifier | null): void {
    if (classifier === this.#classifier) return;
    this.#gate.flush();
    this.#classifier = classifier;
    this.#gate = this.#build();
    if (this.#capMs !== null) this.#gate.setTurnCap(this.#capMs);
  }

  /** Whether a voice check confirms onsets (the room view and /health say so). */
  get voiceCheck(): boolean {
    return this.#classifier !== null;
  }

  /** The service ended the user's turn: the gate closes now if the speaker is quiet (its end goes to the model). */
  serviceEndedTurn(): void {
    this.#gate.serviceEndedTurn();
  }

  /** The silence cap of a held turn, ms (a call's setting). */
  setTurnCap(ms: number): void {
    this.#capMs = ms;
    this.#gate.setTurnCap(ms);
  }

  #emit(chunk: Int16Array): void {
    this.#out.next.push(chunk); // bytesToModel is counted where audio is sent (the wake-name gate may hold or drop it)
    // Ingress latency is measured for chunks completed by an arriving packet (not for the pre-roll
    // or hangover the gate releases on its own).
    if (this.#arrivedAt > 0) this.#metrics.ingress.record(this.#now() - this.#arrivedAt);
  }
}
