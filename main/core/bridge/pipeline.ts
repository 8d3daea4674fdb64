// The call as one pipeline: its stages declared here, in order, each a small object with a typed
// input and output, connected by `wireCall` from this one list and nowhere else (Pipecat's
// `Pipeline([...])`, GStreamer's caps: docs/architecture.md "One call, frame by frame").
//
// What flows between two stages is mono at the stage's rate (docs/audio.md "Mono inside"); the
// rate is part of the edge's type (`caps`), so two neighbours that disagree do not compile, and a
// conversion exists only where a stage says so (resample). Frames are reused buffers: a stage uses
// them synchronously or copies them; nothing here allocates per frame.
//
// In:  receive → mix → resample → gate → wake → model
// Out: model-audio → playback → upsample → encode
// The output is pulled: the encoder's 20 ms clock reads the upsample stage, which reads one 24 kHz
// frame from the playback buffer per 48 kHz frame it makes (bridge/output-stages.ts), so its filter
// runs on that clock through gaps, turn ends and the barge-in fade alike. Control goes the other
// way: playback starts the stages after it when it has audio and stops them when it has none.
// (The output's resampler is `upsample`: a stage's name is unique across both lists.)
import type { ReplyFrameSource } from '../audio/index.ts';
import type { PlaybackSource } from '../ports.ts';

/** The stages of a call, in order, each direction. */
export const CALL_INPUT = ['receive', 'mix', 'resample', 'gate', 'wake', 'model'] as const;
export const CALL_OUTPUT = ['model-audio', 'playback', 'upsample', 'encode'] as const;
export type InputStageName = (typeof CALL_INPUT)[number];
export type OutputStageName = (typeof CALL_OUTPUT)[number];
export type StageName = InputStageName | OutputStageName;

/** An edge's input side: which stage it belongs to and what it takes. */
interface Inlet<C extends string> {
  readonly stage: StageName;
  readonly caps: C;
}

/** One allowed speaker's 20 ms frames, 48 kHz mono (960 samples, a reused buffer). */
export interface SpeakerFrameSink extends Inlet<'speaker-pcm@48k'> {
  frame(speakerId: string, pcm48k: Int16Array): void;
}

/**
 * Mono PCM at `R` Hz, with time passing as silence and the questions a pause asks downstream.
 * `arrivedAt`: when the packet that produced this frame arrived (monotonic ms), 0 for frames made
 * by the clock; latency is measured from it.
 */
export interface PcmSink<R extends number> extends Inlet<`pcm@${R}`> {
  push(pcm: Int16Array, arrivedAt: number): void;
  /** `samples` of silence (at R) have passed with no packet. */
  silence(samples: number): void;
  /** Silence (samples at R) after which the next output comes out downstream, or null when none is due (the gate is closed). */
  untilOutput(): number | null;
  /** Forget what is in flight (a new call, or the user muted): filter state, a half-made chunk. */
  flush(): void;
}

/** Fixed-size chunks of gated speech at 16 kHz (a reused buffer), and the end of each utterance. */
export interface SpeechSink extends Inlet<'speech@16k'> {
  push(chunk16k: Int16Array): void;
  end(): void;
}

/** Model speech, 24 kHz mono chunks (any length, copied by the buffer). */
export interface ModelAudioSink extends Inlet<'pcm@24k'> {
  /** Returns true when the chunk starts a reply (playback was idle). */
  push(pcm24k: Int16Array): boolean;
}

/**
 * The playback buffer's 20 ms frames at 24 kHz, pulled by the next stage on the encoder's clock:
 * connecting the edge hands it the source (pulledStageOf); playback then starts and stops it.
 */
export interface ReplyFrameSink extends Inlet<'pull@24k'> {
  /** Where to pull from: set once, when the edge is connected (connectListed). */
  pullFrom(source: ReplyFrameSource): void;
  /** Playback has audio: the player must run (again). */
  start(): void;
  /** Playback has had nothing to play for five frames: the player may stop. */
  stop(): void;
}

/** The player that pulls 20 ms frames (48 kHz mono) from a source on its own clock and encodes them. */
export interface EncoderSink extends Inlet<'pull@48k'> {
  start(source: PlaybackSource): void;
  stop(): void;
}

/**
 * What connecting a stage takes besides its next input: this module's own token, which it does not
 * export. Only connectListed (below) passes it, after checking the edge against the list, so no
 * other code can connect a stage's output: a call without it does not compile, and one with
 * anything else throws.
 */
const WIRING: unique symbol = Symbol('connectListed');
type WiringToken = typeof WIRING;

function checkToken(token: WiringToken, from: StageName): void {
  if (token !== WIRING) throw new Error(`${from}: stages are connected only from the list (connectListed)`);
}

/** A stage: what it takes (absent for the first one), and where its output goes (set once, by wireCall). */
export interface Stage<In, Out> {
  readonly name: StageName;
  readonly input: In;
  /** The stage its output is connected to (null until wired; the last stage has none). */
  readonly downstream: StageName | null;
  /** connectListed's only: `token` is this module's (WIRING). */
  connect(next: Out, token: WiringToken): void;
}

/** A stage's output end: connected once (from the list), then fixed. A second connection is a wiring mistake and throws. */
export class Outlet<Out extends Inlet<string>> {
  readonly #from: StageName;
  #next: Out | null = null;

  constructor(from: StageName) {
    this.#from = from;
  }

  get downstream(): StageName | null {
    return this.#next?.stage ?? null;
  }

  connect(next: Out, token: WiringToken): void {
    checkToken(token, this.#from);
    if (this.#next !== null) throw new Error(`${this.#from} is already wired to ${this.#next.stage}`);
    this.#next = next;
  }

  /** The connected input (wireCall connects every stage before the first frame flows). */
  get next(): Out {
    if (this.#next === null) throw new Error(`${this.#from} is not wired`);
    return this.#next;
  }
}

/** The stage the list names after `name`, or null for the last of its direction. */
export function nextInList(name: StageName): StageName | null {
  for (const list of [CALL_INPUT, CALL_OUTPUT] as readonly (readonly StageName[])[]) {
    const i = list.indexOf(name);
    if (i >= 0) return list[i + 1] ?? null;
  }
  return null;
}

/**
 * Connects `from`'s output to `to`, which must be the input of the stage the list names next: the
 * one way a stage's output is connected (wireCall, and the partial chains that benchmarks and unit
 * tests run against stand-ins named for the next stage). Anything else throws.
 */
export function connectListed<Out extends Inlet<string>>(from: Stage<unknown, Out>, to: Out): void {
  const want = nextInList(from.name);
  if (to.stage !== want) throw new Error(`${from.name} feeds ${want ?? 'nothing'} in the list, not ${to.stage}`);
  from.connect(to, WIRING);
}

/** A stage over an input and an outlet (the usual shape). */
export function stageOf<In, Out extends Inlet<string>>(
  name: StageName,
  input: In,
  outlet: Outlet<Out>,
): Stage<In, Out> {
  return {
    name,
    input,
    get downstream() {
      return outlet.downstream;
    },
    connect: (next: Out, token: WiringToken) => outlet.connect(next, token),
  };
}

/**
 * A stage whose output is pulled (playback): connecting it also hands the next stage `source`, to
 * read on its own clock, so the pull is an edge of the list like any other.
 */
export function pulledStageOf<In>(
  name: StageName,
  input: In,
  outlet: Outlet<ReplyFrameSink>,
  source: ReplyFrameSource,
): Stage<In, ReplyFrameSink> {
  return {
    name,
    input,
    get downstream() {
      return outlet.downstream;
    },
    connect: (next: ReplyFrameSink, token: WiringToken) => {
      outlet.connect(next, token);
      next.pullFrom(source);
    },
  };
}

/** The last stage of a direction: its output leaves the pipeline (the model's socket, the UDP socket). */
export function lastStage<In>(name: StageName, input: In): Stage<In, null> {
  return {
    name,
    input,
    downstream: null,
    connect: (_next: null, token: WiringToken) => {
      checkToken(token, name);
      throw new Error(`${name} is the last stage`);
    },
  };
}

export interface CallInputStages {
  receive: Stage<null, SpeakerFrameSink>;
  mix: Stage<SpeakerFrameSink, PcmSink<48_000>>;
  resample: Stage<PcmSink<48_000>, PcmSink<16_000>>;
  gate: Stage<PcmSink<16_000>, SpeechSink>;
  wake: Stage<SpeechSink, SpeechSink>;
  model: Stage<SpeechSink, null>;
}

export interface CallOutputStages {
  'model-audio': Stage<null, ModelAudioSink>;
  playback: Stage<ModelAudioSink, ReplyFrameSink>;
  upsample: Stage<ReplyFrameSink, EncoderSink>;
  encode: Stage<EncoderSink, null>;
}

/** A wired pipeline, as its stages report it: each stage and where its output goes. */
export interface PipelineView {
  input: { stage: StageName; downstream: StageName | null }[];
  output: { stage: StageName; downstream: StageName | null }[];
}

/**
 * Connects every stage to the next in CALL_INPUT / CALL_OUTPUT order: the one place a call's stages
 * are wired. Then checks, from what each stage reports, that the wiring is the list (a stage
 * connected anywhere else fails here, at construction).
 */
export function wireCall(input: CallInputStages, output: CallOutputStages): PipelineView {
  connectListed(input.receive, input.mix.input);
  connectListed(input.mix, input.resample.input);
  connectListed(input.resample, input.gate.input);
  connectListed(input.gate, input.wake.input);
  connectListed(input.wake, input.model.input);
  connectListed(output['model-audio'], output.playback.input);
  connectListed(output.playback, output.upsample.input);
  connectListed(output.upsample, output.encode.input);
  const view = describePipeline(input, output);
  assertWiredAsListed(view);
  return view;
}

/** What the stages say of their wiring, in list order. */
export function describePipeline(input: CallInputStages, output: CallOutputStages): PipelineView {
  return {
    input: CALL_INPUT.map((name) => ({ stage: input[name].name, downstream: input[name].downstream })),
    output: CALL_OUTPUT.map((name) => ({ stage: output[name].name, downstream: output[name].downstream })),
  };
}

/** Throws unless each stage is the one its list names and feeds exactly the next one in the list. */
export function assertWiredAsListed(view: PipelineView): void {
  const check = (list: readonly StageName[], seen: PipelineView['input']): void => {
    list.forEach((name, i) => {
      const want = list[i + 1] ?? null;
      const got = seen[i];
      if (got?.stage !== name) throw new Error(`stage ${i} is ${got?.stage ?? 'missing'}, the list says ${name}`);
      if (got.downstream !== want)
        throw new Error(`${name} feeds ${got.downstream ?? 'nothing'}, the list says ${want ?? 'nothing'}`);
    });
  };
  check(CALL_INPUT, view.input);
  check(CALL_OUTPUT, view.output);
}
