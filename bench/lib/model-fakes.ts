// The fake live model of a benchmark call, for any provider: the latency bench and the soak start
// one of the three fakes (Gemini Live, OpenAI Realtime, GPT-Live) through this module and script its
// "model" the same way whatever the protocol: when the service detects the end of a user turn, the
// driver gets the utterance as the service received it and may answer with a reply; it learns when
// the reply started, when the service cut it off (barge-in) and how it ended; and it can inject the
// soak's faults in the provider's own terms.
//
// How each service ends a user turn, cuts a reply and ends a session (so the figures compare alike):
// - gemini: the service's own automatic activity detection ends the turn (the fake's `userTurnEnd`,
//   counted on the audio it received), or the client's `audioStreamEnd` (the bridge's silence cap),
//   whichever comes first; loud input during a reply makes the service
//   send `interrupted` (the barge-in instant); a planned rotation is `goAway` then a deadline close,
//   and the client resumes with its handle.
// - openai-realtime: its VAD ends the turn (silence in the appended audio; semantic_vad's stand-in,
//   with the owner's utterances marked utterance-final: they are whole sentences) and creates the
//   response; barge-in is `input_audio_buffer.speech_started` (the adapter cancels and truncates);
//   Realtime has no resumption and no warning: a session ends at its maximum duration with
//   `error session_expired` + close 1001, and the adapter opens a new one and replays its history.
// - openai-live: the fake's VAD ends the turn; full duplex, so a barge-in is the model simply going
//   quiet when the user talks over it (no event: the adapter infers it after 250 ms without audio);
//   a session ends with `session.closed` reason `expired`, and the adapter starts a new one with its
//   history as `input`.
import { KNOWN_LIVE_MODELS, startFakeGemini, type FakeGeminiConnection } from '../../main/fakes/gemini/index.ts';
import {
  KNOWN_GPT_LIVE_MODELS,
  KNOWN_REALTIME_MODELS,
  startFakeOpenAILive,
  startFakeOpenAIRealtime,
  type FakeLiveConnection,
  type FakeRealtimeConnection,
} from '../../main/fakes/openai/index.ts';
import type { ReplyTiming } from '../../main/fakes/shared/paced-reply.ts';
import { tailPcm } from '../../main/fakes/shared/pcm.ts';
import { SERVICE_TIMING, type ServiceTimingProvider } from '../../main/fakes/shared/service-timing.ts';

/** The providers the benchmarks have fakes and timing for (main/fakes/shared/service-timing.ts): a registry provider without them is not benched. */
export type BenchProvider = ServiceTimingProvider;
export const BENCH_PROVIDERS = Object.keys(SERVICE_TIMING) as BenchProvider[];
const isBenchProvider = (name: string): name is BenchProvider => (BENCH_PROVIDERS as string[]).includes(name);

/** `gemini,openai-live` → the providers named, in order, each once; an unknown name is an error. */
export function parseProviders(list: string): BenchProvider[] {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !isBenchProvider(n));
  if (names.length === 0 || unknown.length > 0)
    throw new Error(`unknown provider ${unknown.join(', ') || '(none)'}: use ${BENCH_PROVIDERS.join(', ')}`);
  return [...new Set(names.filter(isBenchProvider))];
}

export type BenchReplyOutcome = 'complete' | 'interrupted' | 'closed';

export interface BenchReplyScript {
  toneMs: number;
  /** The reply's audio (24 kHz mono); without it, the fake's 440 Hz tone of `toneMs`. */
  pcm?: Int16Array;
  transcript: string;
  /** What the service says it heard (input transcription). */
  inputTranscript: string;
  chunkMs?: number;
  paceMs?: number;
}

export interface BenchReply {
  /** Date.now() when the fake model began the reply (its first chunk follows the service's modelled first-audio latency after the end of turn: main/fakes/shared/service-timing.ts). */
  startedAt: number;
  /** Date.now() when the service signalled the barge-in (null: not cut off). */
  interruptedAt: number | null;
  outcome: BenchReplyOutcome | null;
  /** Date.now() when the reply ended. */
  endedAt: number | null;
  /** Date.now() when the fake sent the reply's first audio (null: not yet, or never). */
  firstAudioSentAt(): number | null;
  done: Promise<BenchReplyOutcome>;
}

export interface UserTurn {
  socket: number;
  /** The utterance as the service received it, mono at `rate`. */
  pcm: Int16Array;
  rate: number;
  /**
   * The trailing quiet (ms of audio received) the service's detector counted before it ended the
   * turn: its own silence window. Wall time past it is what the audio took to reach the service.
   */
  serviceQuietMs: number;
  /** Gemini: how the turn ended (`detected` by the service, `audioStreamEnd` from the client); the OpenAI fakes: `detected`. */
  endedBy: 'detected' | 'audioStreamEnd' | 'activityEnd';
  /** Answer this turn; null when the socket cannot (a stalled Gemini socket sends nothing). */
  respond(script: BenchReplyScript): BenchReply | null;
}

/** A turn the client wrote (realtimeInput.text, or clientContent ending a turn): the service answers it. */
export interface TextTurn {
  socket: number;
  text: string;
  respond(script: BenchReplyScript): BenchReply | null;
}

export interface ModelSocketControls {
  index: number;
  /** Cut the TCP connection, no close frame (the client sees 1006). */
  drop(): void;
  /** Close with 1011 and no warning before. */
  closeWithError(): void;
  /** Go silent (Gemini only: the OpenAI adapters have no stall watchdog; see docs/providers.md). */
  stall?(): void;
}

export interface BenchModelOptions {
  /** Incoming RMS that makes the model stop talking (barge-in); null: never. */
  bargeInRms: number | null;
  /** Planned session end after this long (0: never): Gemini rotates with goAway; OpenAI sessions expire. */
  sessionLifetimeMs?: number;
  /** Gemini only: the service session's hard deadline (1011 "Deadline expired", then a refused resume); 0: the fake's default (58 min). */
  sessionDeadlineMs?: number;
  /** OpenAI Realtime only: what its transcription sessions (the wake-name screener) hear, and after how long. */
  transcribe?: { text: (pcm24k: Int16Array) => string; delayMs: number };
}

export interface BenchModelFake {
  provider: BenchProvider;
  model: string;
  /** The core's environment for this provider (key, endpoint, model). */
  env(): Record<string, string>;
  onUserTurn(handler: (turn: UserTurn) => void): void;
  /**
   * Every established socket after the first: `planned` when the service replaced it on its own
   * terms (Gemini: resumed after goAway; OpenAI: the previous session expired).
   */
  onReplacement(handler: (socket: number, planned: boolean) => void): void;
  firstSocket(): Promise<void>;
  latestOpen(): ModelSocketControls | undefined;
  sockets(): number;
  /** Sockets open now (more than one outside a handover: a leaked model connection). */
  openSockets(): number;
  /** Gemini only: the service answers nothing (open sockets closed 1011, new ones refused) until set back. */
  setUnavailable?(down: boolean): void;
  /** Gemini only: every client message that carries text (clientContent, realtimeInput.text), as JSON. */
  onClientText?(handler: (json: string) => void): void;
  /** Gemini only: a text that ends a turn (a /say or /ask, a voice reminder) while the model is not talking. */
  onTextTurn?(handler: (turn: TextTurn) => void): void;
  /** Gemini only: sockets refused while another of the session was still open. */
  overlapsRefused(): number;
  /** Gemini only: service sessions that met their hard deadline (closed at it, or a resume past it refused). */
  deadlines(): number;
  /** Gemini only: service sessions begun after the first (fresh, seeded: after a refused resume or a renewal). */
  freshSessions(): number;
  /** Gemini only: user audio (ms) resumed sessions had not consumed, so the client had to send it again. */
  replayedMs(): number;
  /** Gemini only: a socket was closed at its session's hard deadline. */
  onDeadline(handler: () => void): void;
  close(): Promise<void>;
}

/** `timings`: the connection's reply timings; this reply's is the first begun at or after `startedAt`. */
function track(startedAt: number, done: Promise<BenchReplyOutcome>, timings: readonly ReplyTiming[]): BenchReply {
  const firstAudioSentAt = (): number | null => timings.find((t) => t.startedAt >= startedAt)?.firstAudioAt ?? null;
  const reply: BenchReply = { startedAt, interruptedAt: null, outcome: null, endedAt: null, done, firstAudioSentAt };
  void done.then((outcome) => {
    reply.outcome = outcome;
    reply.endedAt = Date.now();
    if (outcome === 'interrupted') reply.interruptedAt ??= reply.endedAt;
  });
  return reply;
}

/** A Gemini reply to a turn on `connection`; null when the socket stalled (it sends nothing). */
function geminiRespond(connection: FakeGeminiConnection, s: BenchReplyScript): BenchReply | null {
  if (connection.stalled) return null;
  const startedAt = Date.now();
  return track(
    startedAt,
    connection.reply({
      toneMs: s.toneMs,
      pcm: s.pcm,
      chunkMs: s.chunkMs,
      paceMs: s.paceMs,
      transcript: s.transcript,
      inputTranscript: s.inputTranscript,
    }),
    connection.replyTimings,
  );
}

/** The text a client message ends a turn with (realtimeInput.text; clientContent with turnComplete); null if none. */
function textOfTurn(message: Record<string, unknown>): string | null {
  const realtime = message.realtimeInput as { text?: unknown } | undefined;
  if (typeof realtime?.text === 'string') return realtime.text;
  const content = message.clientContent as
    { turnComplete?: unknown; turns?: { parts?: { text?: unknown }[] }[] } | undefined;
  if (content?.turnComplete !== true) return null;
  const texts = (content.turns ?? []).flatMap((t) =>
    (t.parts ?? []).flatMap((p) => (typeof p.text === 'string' ? [p.text] : [])),
  );
  return texts.length ? texts.join('\n') : null;
}

const fakeKey = (name: string) => ['fake', 'bench', name, process.pid.toString(36)].join('-');

async function geminiFake(options: BenchModelOptions): Promise<BenchModelFake> {
  const lifetime = options.sessionLifetimeMs ?? 0;
  const fake = await startFakeGemini({
    autoReply: false,
    bargeInRms: options.bargeInRms,
    ...(lifetime > 0
      ? { goAwayAfterMs: lifetime, goAwayTimeLeftMs: Math.min(10_000, Math.max(1000, lifetime / 3)) }
      : {}),
    ...(options.sessionDeadlineMs ? { sessionDeadlineMs: options.sessionDeadlineMs } : {}),
  });
  const deadlineHandlers: (() => void)[] = [];
  const model = KNOWN_LIVE_MODELS[0];
  const turnHandlers: ((turn: UserTurn) => void)[] = [];
  const replacementHandlers: ((socket: number, planned: boolean) => void)[] = [];
  const textHandlers: ((json: string) => void)[] = [];
  const textTurnHandlers: ((turn: TextTurn) => void)[] = [];
  fake.on('setup', (connection: FakeGeminiConnection) => {
    connection.on('message', (message) => {
      const realtime = message.realtimeInput as { text?: unknown } | undefined;
      if (message.clientContent === undefined && realtime?.text === undefined) return;
      const json = JSON.stringify(message);
      for (const handler of textHandlers) handler(json);
      const text = textOfTurn(message);
      // The service answers a text turn as it answers speech; while it talks, a text is context.
      if (text !== null && !connection.replying)
        for (const handler of textTurnHandlers)
          handler({ socket: connection.index, text, respond: (s) => geminiRespond(connection, s) });
    });
    connection.once('close', () => {
      if (
        connection.closedBy === 'server' &&
        connection.closeReason === 'Deadline expired' &&
        fake.sessions.get(connection.sessionId!)?.expired
      )
        for (const handler of deadlineHandlers) handler();
    });
    // The service's end of the user's turn: its detector on the audio received, or the client's flush.
    connection.on('userTurnEnd', (end) => {
      // SOAK_DEBUG: a turn the fake ignores (it takes none while it replies: no barge-in here) is
      // otherwise invisible when a soak traces a lost word.
      if (process.env.SOAK_DEBUG && connection.replying && connection.samplesSinceTurn > 0)
        console.error(
          `${new Date().toISOString()} fake gemini socket ${connection.index}: a user turn of ${connection.samplesSinceTurn} samples (${end.by}) ended while replying: ignored`,
        );
      if (connection.samplesSinceTurn === 0 || connection.replying) return;
      const turn: UserTurn = {
        socket: connection.index,
        pcm: tailPcm(connection.audio, connection.samplesSinceTurn, (a) => a.pcm),
        rate: 16_000,
        serviceQuietMs: end.quietSamples / 16,
        endedBy: end.by,
        respond: (s) => geminiRespond(connection, s),
      };
      for (const handler of turnHandlers) handler(turn);
    });
    if (fake.established.length > 1)
      for (const handler of replacementHandlers) handler(connection.index, connection.resumedWithHandle !== null);
  });
  return {
    provider: 'gemini',
    model,
    env: () => ({ GEMINI_API_KEY: fakeKey('gemini'), GEMINI_LIVE_BASE_URL: fake.url, GEMINI_MODEL: model }),
    onUserTurn: (handler) => void turnHandlers.push(handler),
    onReplacement: (handler) => void replacementHandlers.push(handler),
    firstSocket: async () => void (await fake.connection(0)),
    latestOpen: () => {
      const c = fake.established.filter((x) => x.isOpen).at(-1);
      return (
        c && {
          index: c.index,
          drop: () => c.drop(),
          closeWithError: () => c.close(1011, 'Internal error occurred.'),
          stall: () => c.stall(),
        }
      );
    },
    sockets: () => fake.connections.length,
    openSockets: () => fake.connections.filter((c) => c.isOpen).length,
    setUnavailable: (down) => fake.setUnavailable(down),
    onClientText: (handler) => void textHandlers.push(handler),
    onTextTurn: (handler) => void textTurnHandlers.push(handler),
    overlapsRefused: () => fake.overlapsRefused,
    deadlines: () => [...fake.sessions.values()].filter((s) => s.expired).length,
    freshSessions: () => Math.max(0, fake.sessions.size - 1),
    replayedMs: () => Math.round([...fake.sessions.values()].reduce((n, s) => n + s.rolledBackSamples, 0) / 16),
    onDeadline: (handler) => void deadlineHandlers.push(handler),
    close: () => fake.close(),
  };
}

type OpenAIConnection = FakeRealtimeConnection | FakeLiveConnection;

/** What the two OpenAI fakes share for a bench: socket controls, replacements after expiry. */
interface OpenAIFakeServer {
  readonly established: OpenAIConnection[];
  readonly connections: readonly unknown[];
  connection(index: number): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * What both OpenAI bench fakes share: the user-turn fan-out, replacements (the previous session
 * expired on the service's terms, or failed) and the BenchModelFake they return. Each fake wires its
 * own protocol's turns to `emitTurn` and calls `onReady` for each established connection.
 */
function openaiBench(
  fake: OpenAIFakeServer,
  provider: BenchProvider,
  model: string,
  env: () => Record<string, string>,
) {
  const turnHandlers: ((turn: UserTurn) => void)[] = [];
  const replacementHandlers: ((socket: number, planned: boolean) => void)[] = [];
  const bench: BenchModelFake = {
    provider,
    model,
    env,
    onUserTurn: (handler) => void turnHandlers.push(handler),
    onReplacement: (handler) => void replacementHandlers.push(handler),
    firstSocket: async () => void (await fake.connection(0)),
    latestOpen: () => {
      const c = fake.established.filter((x) => x.isOpen).at(-1);
      return (
        c && { index: c.index, drop: () => c.drop(), closeWithError: () => c.close(1011, 'Internal server error') }
      );
    },
    sockets: () => fake.connections.length,
    openSockets: () => fake.established.filter((c) => c.isOpen).length,
    overlapsRefused: () => 0,
    deadlines: () => 0,
    freshSessions: () => 0,
    replayedMs: () => 0,
    onDeadline: () => undefined,
    close: () => fake.close(),
  };
  return {
    bench,
    emitTurn: (turn: UserTurn): void => {
      for (const handler of turnHandlers) handler(turn);
    },
    onReady: (connection: OpenAIConnection): void => {
      const all = fake.established;
      if (all.length < 2) return;
      const previous = all[all.length - 2]!;
      // The previous session ended on the service's terms (its maximum duration), not by a fault.
      for (const handler of replacementHandlers) handler(connection.index, previous.expired);
    },
  };
}

async function realtimeFake(options: BenchModelOptions): Promise<BenchModelFake> {
  const fake = await startFakeOpenAIRealtime({
    autoReply: false,
    // Server VAD's speech threshold doubles as the barge-in threshold (speech_started during a reply).
    vadRms: options.bargeInRms ?? 1000,
    ...(options.sessionLifetimeMs ? { sessionLifetimeMs: options.sessionLifetimeMs } : {}),
    ...(options.transcribe
      ? { transcribe: options.transcribe.text, transcribeDelayMs: options.transcribe.delayMs }
      : {}),
  });
  const model = KNOWN_REALTIME_MODELS[0];
  const shared = openaiBench(fake, 'openai-realtime', model, () => ({
    OPENAI_API_KEY: fakeKey('openai'),
    OPENAI_REALTIME_BASE_URL: fake.url,
    OPENAI_REALTIME_MODEL: model,
  }));
  fake.on('ready', (connection) => {
    let current: BenchReply | null = null;
    // speech_started during a reply is the barge-in instant; the reply's audio stops when the client cancels.
    connection.on('speechStarted', () => {
      if (current && current.outcome === null && current.interruptedAt === null) current.interruptedAt = Date.now();
    });
    // The owner's utterances are whole sentences: the semantic_vad stand-in's utterance-final cue
    // (set per turn: the fake clears it when a turn ends). server_vad ignores it.
    connection.setUtteranceCue('final');
    connection.on('speechStarted', () => connection.setUtteranceCue('final'));
    connection.on('userTurn', ({ pcm, quietMs }) => {
      const turn: UserTurn = {
        socket: connection.index,
        pcm,
        rate: 24_000,
        serviceQuietMs: quietMs,
        endedBy: 'detected',
        respond: (s) => {
          connection.setInputTranscript(s.inputTranscript);
          // The response server VAD creates right after this turn speaks the script.
          const done = connection.queueReply({
            toneMs: s.toneMs,
            pcm: s.pcm,
            chunkMs: s.chunkMs,
            paceMs: s.paceMs,
            transcript: s.transcript,
          });
          current = track(
            Date.now(),
            done.then((o) => (o === 'completed' ? 'complete' : o === 'cancelled' ? 'interrupted' : 'closed')),
            connection.replyTimings,
          );
          return current;
        },
      };
      shared.emitTurn(turn);
    });
    shared.onReady(connection);
  });
  return shared.bench;
}

async function liveFake(options: BenchModelOptions): Promise<BenchModelFake> {
  const fake = await startFakeOpenAILive({
    autoReply: false,
    // Full duplex: input louder than this is speech, and speech over the model makes it yield.
    vadRms: options.bargeInRms ?? 1000,
    ...(options.sessionLifetimeMs ? { sessionLifetimeMs: options.sessionLifetimeMs } : {}),
  });
  const model = KNOWN_GPT_LIVE_MODELS[0];
  const shared = openaiBench(fake, 'openai-live', model, () => ({
    OPENAI_API_KEY: fakeKey('openai'),
    OPENAI_LIVE_BASE_URL: fake.url,
    OPENAI_LIVE_MODEL: model,
  }));
  fake.on('ready', (connection) => {
    connection.on('userTurn', ({ ms, pcm, quietMs }) => {
      const turn: UserTurn = {
        socket: connection.index,
        pcm,
        rate: connection.rate,
        serviceQuietMs: quietMs,
        endedBy: 'detected',
        respond: (s) => {
          connection.sendInputTranscript(s.inputTranscript, ms);
          const startedAt = Date.now();
          const done = connection.reply({
            toneMs: s.toneMs,
            pcm: s.pcm,
            chunkMs: s.chunkMs,
            paceMs: s.paceMs,
            transcript: s.transcript,
          });
          return track(
            startedAt,
            done.then((o) => (o === 'completed' ? 'complete' : o)),
            connection.replyTimings,
          );
        },
      };
      shared.emitTurn(turn);
    });
    shared.onReady(connection);
  });
  return shared.bench;
}

/** Starts the provider's fake on 127.0.0.1, scripted by the caller (no automatic replies). */
export function startBenchModel(provider: BenchProvider, options: BenchModelOptions): Promise<BenchModelFake> {
  if (provider === 'openai-realtime') return realtimeFake(options);
  if (provider === 'openai-live') return liveFake(options);
  return geminiFake(options);
}
