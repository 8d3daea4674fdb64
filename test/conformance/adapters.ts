// One adapter per provider: how the conformance suite starts that provider's fake, builds the real
// provider against it, and scripts the fake's "model". Adding a provider means adding an adapter
// here (and a fake); the scenarios in providers.test.ts then tell what is missing.
import type { Logger } from 'pino';
import { createGeminiProvider } from '../../main/core/model/index.ts';
import { createOpenAILiveProvider } from '../../main/core/model/openai/live/provider.ts';
import { createOpenAIRealtimeProvider } from '../../main/core/model/openai/realtime/provider.ts';
import { createXaiProvider } from '../../main/core/model/xai/provider.ts';
import type { LiveModelProvider } from '../../main/core/ports.ts';
import { startFakeXai } from '../../main/fakes/xai/server.ts';
import { startFakeGemini, type FakeGeminiConnection } from '../../main/fakes/gemini/index.ts';
import {
  startFakeOpenAILive,
  startFakeOpenAIRealtime,
  type FakeLiveConnection,
  type FakeRealtimeConnection,
} from '../../main/fakes/openai/index.ts';

/** A provider of the registry (main/core/providers/index.ts). */
export type ProviderName = string;

export interface ScriptedReply {
  transcript: string;
  toneMs: number;
  paceMs?: number;
  /** False: the reply's audio ends without the turn ending (Gemini: no generationComplete/turnComplete). */
  complete?: boolean;
}

/** Replies a fake connection began, and how many had sent their first audio (the shared base records both). */
function repliesOf(c: { readonly replyTimings: readonly { firstAudioAt: number | null }[] }): {
  started: number;
  spoken: number;
} {
  return { started: c.replyTimings.length, spoken: c.replyTimings.filter((t) => t.firstAudioAt !== null).length };
}

/** One server-side connection of a fake, seen through what every protocol has in common. */
export interface FakeConnectionControls {
  /** Sample rate the service receives user audio at. */
  inputRate: number;
  reply(script: ScriptedReply): Promise<string>;
  /** The model calls a tool; resolves with the JSON the client returned (`{result}` or `{error}`). */
  toolCall(name: string, args: Record<string, unknown>): Promise<unknown>;
  inputPcm(): Int16Array;
  injectedTexts(): string[];
  /** Silent context the client added (addContext), as the service recorded it. */
  contextNotes(): string[];
  /** Client messages that ask the model to answer (a turn-completing text, `response.create`). */
  replyRequests(): number;
  /** Replies the service began on this socket, and how many of them had sent their first audio. */
  replies(): { started: number; spoken: number };
  frames(): number;
  systemInstruction(): string;
  declaredTools(): string[];
  /** What the service-side conversation holds (history replay / resumption evidence). */
  conversation(): string[];
  /** Errors the fake sent back to the client (a protocol violation by our client shows up here). */
  rejections(): string[];
  drop(): void;
  /** The service ends the session at its time limit, in its own terms (Gemini: goAway; OpenAI: session expired). */
  endSession(): void;
  sendOdd(kind: 'not_json' | 'unknown_type' | 'malformed' | 'binary'): void;
  waitFor(predicate: () => boolean, what: string): Promise<void>;
  readonly isOpen: boolean;
  /** Gemini only: the service's own turn messages, alone (`serverContent.interrupted` / `turnComplete`), in any order a test wants. */
  serverTurnEvent?(kind: 'interrupted' | 'turnComplete'): void;
}

export interface FakeService {
  knownModel: string;
  /** `replyWaitMs`: the wait for a reply before queued text goes out (default 200 ms here, 1500 ms in the product). */
  provider(options: {
    apiKey: string;
    logger: Logger;
    model?: string;
    fallbackModels?: string[];
    replyWaitMs?: number;
  }): LiveModelProvider;
  connection(n: number): Promise<FakeConnectionControls>;
  established(): number;
  upgradeAttempts(): number;
  /** An incident: open sockets closed 1011, new ones refused (503) until it ends (fake-server.ts). */
  setUnavailable(down: boolean): void;
  close(): Promise<void>;
}

export interface ProviderAdapter {
  name: ProviderName;
  /**
   * Scenarios (by id) this provider's protocol has no such thing for, with why: a provider added
   * later says so in its own adapter entry, without touching the scenarios.
   */
  notApplicable?: Readonly<Record<string, string>>;
  start(options: { autoReply?: boolean; validKeys?: string[] }): Promise<FakeService>;
}

function geminiControls(c: FakeGeminiConnection, conversation: () => string[]): FakeConnectionControls {
  return {
    inputRate: 16_000,
    reply: (s) =>
      c.reply({
        transcript: s.transcript,
        toneMs: s.toneMs,
        paceMs: s.paceMs,
        ...(s.complete === false ? { complete: false } : {}),
      }),
    toolCall: async (name, args) => (await c.toolCall([{ name, args }]))[0]?.response,
    serverTurnEvent: (kind) =>
      kind === 'interrupted' ? c.send({ serverContent: { interrupted: true } }) : c.turnComplete(),
    inputPcm: () => c.inputPcm(),
    injectedTexts: () => [
      ...c.texts,
      ...c.clientContents.flatMap((content) =>
        ((content.turns as { parts?: { text?: string }[] }[] | undefined) ?? []).map((t) =>
          (t.parts ?? []).map((p) => p.text ?? '').join('\n'),
        ),
      ),
    ],
    contextNotes: () =>
      c.clientContents
        .filter((content) => content.turnComplete === false)
        .flatMap((content) =>
          ((content.turns as { parts?: { text?: string }[] }[] | undefined) ?? []).map((t) =>
            (t.parts ?? []).map((p) => p.text ?? '').join('\n'),
          ),
        ),
    replyRequests: () => c.texts.length + c.clientContents.filter((content) => content.turnComplete === true).length,
    replies: () => repliesOf(c),
    frames: () => c.frames.length,
    systemInstruction: () => JSON.stringify(c.setup?.systemInstruction ?? ''),
    declaredTools: () =>
      ((c.setup?.tools as { functionDeclarations?: { name: string }[] }[] | undefined) ?? []).flatMap((t) =>
        (t.functionDeclarations ?? []).map((f) => f.name),
      ),
    conversation,
    rejections: () =>
      c.closedBy === 'server' && c.closeCode !== 1000 && c.closeCode !== 1006
        ? [`${c.closeCode} ${c.closeReason}`]
        : [],
    drop: () => c.drop(),
    endSession: () => c.goAway(200),
    sendOdd: (kind) => {
      if (kind === 'not_json') c.sendRaw('this is not json');
      else if (kind === 'unknown_type') c.send({ someFutureMessage: { value: 1 } });
      else if (kind === 'malformed') c.send({ serverContent: { modelTurn: 'not-an-object', inputTranscription: 42 } });
      else c.sendRaw(Buffer.from([0xff, 0xfe, 0x00]));
    },
    waitFor: (predicate, what) => c.waitFor(predicate, 10_000, what),
    get isOpen() {
      return c.isOpen;
    },
  };
}

export const geminiAdapter: ProviderAdapter = {
  name: 'gemini',
  async start(options) {
    const fake = await startFakeGemini({
      validKeys: options.validKeys,
      autoReply: options.autoReply
        ? { transcript: 'Hello from the fake model.', inputTranscript: 'hello model', toneMs: 400 }
        : false,
    });
    return {
      knownModel: 'gemini-3.8-live',
      provider: (o) =>
        createGeminiProvider({
          apiKey: o.apiKey,
          model: o.model ?? 'gemini-3.8-live',
          fallbackModels: o.fallbackModels ?? [],
          voice: 'Kore',
          baseUrl: fake.url,
          logger: o.logger,
          backoff: { initialMs: 20, maxMs: 100, maxAttempts: 3 },
          replyWaitMs: o.replyWaitMs ?? 200,
        }),
      async connection(n) {
        const c = await fake.connection(n);
        return geminiControls(c, () =>
          c.sessionId ? (fake.sessions.get(c.sessionId)?.history ?? []).map((h) => `${h.role}: ${h.text}`) : [],
        );
      },
      established: () => fake.established.length,
      upgradeAttempts: () => fake.upgradeAttempts,
      setUnavailable: (down) => fake.setUnavailable(down),
      close: () => fake.close(),
    };
  },
};

/** What both OpenAI fakes script alike; `events` is the namespace of their server events. */
type OpenAIFakeConnection = FakeRealtimeConnection | FakeLiveConnection;

function openaiControls(
  c: OpenAIFakeConnection,
  events: 'response' | 'session',
  own: Pick<
    FakeConnectionControls,
    | 'inputRate'
    | 'injectedTexts'
    | 'contextNotes'
    | 'replyRequests'
    | 'frames'
    | 'systemInstruction'
    | 'declaredTools'
    | 'conversation'
  >,
): FakeConnectionControls {
  return {
    ...own,
    replies: () => repliesOf(c),
    reply: (s) => c.reply({ transcript: s.transcript, toneMs: s.toneMs, paceMs: s.paceMs }),
    toolCall: (name, args) => c.toolCall(name, args),
    inputPcm: () => c.inputPcm(),
    rejections: () => c.errors.map((e) => `${e.code}: ${e.message}`),
    drop: () => c.drop(),
    endSession: () => c.expireAfter(0),
    sendOdd: (kind) => {
      if (kind === 'not_json') c.sendRaw('this is not json');
      else if (kind === 'unknown_type') c.send({ type: `${events}.some_future_event`, value: 1 });
      else if (kind === 'malformed') c.send({ type: `${events}.output_audio.delta`, delta: 42 });
      else c.sendRaw(Buffer.from([0xff, 0xfe, 0x00]));
    },
    waitFor: (predicate, what) => c.waitFor(predicate, 10_000, what),
    get isOpen() {
      return c.isOpen;
    },
  };
}

const OPENAI_AUTO_REPLY = { transcript: 'Hello from the fake model.', inputTranscript: 'hello model', toneMs: 400 };
/** Provider options both OpenAI adapters pass the same way: short back-off and reply wait for tests. */
const openaiProviderBase = (o: Parameters<FakeService['provider']>[0], model: string, baseUrl: string) => ({
  apiKey: o.apiKey,
  model: o.model ?? model,
  fallbackModels: o.fallbackModels ?? [],
  voice: 'marin',
  baseUrl,
  logger: o.logger,
  backoff: { initialMs: 20, maxMs: 100, maxAttempts: 3 },
  replyWaitMs: o.replyWaitMs ?? 200,
});

export const openaiRealtimeAdapter: ProviderAdapter = {
  name: 'openai-realtime',
  async start(options) {
    const fake = await startFakeOpenAIRealtime({
      validKeys: options.validKeys,
      autoReply: options.autoReply ? OPENAI_AUTO_REPLY : false,
    });
    return {
      knownModel: 'gpt-realtime-2.1',
      provider: (o) => createOpenAIRealtimeProvider(openaiProviderBase(o, 'gpt-realtime-2.1', fake.url)),
      connection: async (n) => {
        const c = await fake.connection(n);
        return openaiControls(c, 'response', {
          inputRate: 24_000,
          injectedTexts: () =>
            c.items
              .filter((i) => i.source === 'client' && i.role === 'user' && i.type === 'message' && i.text !== '[image]')
              .map((i) => i.text),
          contextNotes: () => c.items.filter((i) => i.source === 'client' && i.role === 'system').map((i) => i.text),
          replyRequests: () => c.received.filter((e) => e.type === 'response.create').length,
          frames: () => c.items.filter((i) => i.text === '[image]').length,
          systemInstruction: () => String(c.session.instructions ?? ''),
          declaredTools: () => (c.session.tools ?? []).map((t) => t.name),
          conversation: () => c.transcript(),
        });
      },
      established: () => fake.established.length,
      upgradeAttempts: () => fake.upgradeAttempts,
      setUnavailable: (down) => fake.setUnavailable(down),
      close: () => fake.close(),
    };
  },
};

export const openaiLiveAdapter: ProviderAdapter = {
  name: 'openai-live',
  async start(options) {
    const fake = await startFakeOpenAILive({
      validKeys: options.validKeys,
      autoReply: options.autoReply ? OPENAI_AUTO_REPLY : false,
    });
    return {
      knownModel: 'gpt-live-1.1',
      provider: (o) =>
        createOpenAILiveProvider({ ...openaiProviderBase(o, 'gpt-live-1.1', fake.url), toolReplyWaitMs: 300 }),
      connection: async (n) => {
        const c = await fake.connection(n);
        return openaiControls(c, 'session', {
          inputRate: c.rate,
          injectedTexts: () => [...c.commentary],
          contextNotes: () => [...c.thinking],
          replyRequests: () => c.responseCreates,
          frames: () => 0,
          systemInstruction: () => String(c.session?.instructions ?? ''),
          declaredTools: () =>
            c.session?.delegation?.type === 'responses'
              ? (c.session.delegation.responses.tools ?? []).map((t) => ('name' in t ? String(t.name) : t.type))
              : [],
          conversation: () => c.conversation(),
        });
      },
      established: () => fake.established.length,
      upgradeAttempts: () => fake.upgradeAttempts,
      setUnavailable: (down) => fake.setUnavailable(down),
      close: () => fake.close(),
    };
  },
};

/** xAI's Grok Voice Agent: the Realtime events in xAI's dialect, against a fake written from xAI's docs. */
export const xaiAdapter: ProviderAdapter = {
  name: 'xai',
  notApplicable: {
    'barge-in-truncate': 'xAI has no conversation.item.truncate among its client events; a barge-in is response.cancel',
    'frame-sent':
      'xAI takes no image content (text and audio only): sendFrame answers dropped/unsupported_by_model (see frame-unsupported)',
    'frame-rate-limited':
      'xAI takes no image content: sendFrame answers dropped/unsupported_by_model (see frame-unsupported)',
    'usage-reported':
      'xAI bills per minute of connection; the estimate uses the connected time (no usage message of minutes)',
    'barge-in-then-drop': 'the service reports the interruption itself (speech_started), not the client',
    'text-after-silent-tool': 'the service ends every response.create with response.done',
    'turn-order': 'the service sends no interrupted/turn-end messages a test could reorder, as OpenAI Realtime',
  },
  async start(options) {
    const fake = await startFakeXai({
      validKeys: options.validKeys,
      autoReply: options.autoReply ? OPENAI_AUTO_REPLY : false,
    });
    return {
      knownModel: 'grok-voice-think-fast-1.0',
      provider: (o) =>
        createXaiProvider({ ...openaiProviderBase(o, 'grok-voice-think-fast-1.0', fake.url), voice: 'Ara' }),
      connection: async (n) => {
        const c = await fake.connection(n);
        return openaiControls(c, 'response', {
          // The fake's engine keeps the input at 24 kHz (it takes 16 kHz from our client and interpolates).
          inputRate: 24_000,
          injectedTexts: () =>
            c.items
              .filter((i) => i.source === 'client' && i.role === 'user' && i.type === 'message')
              .map((i) => i.text),
          contextNotes: () => c.items.filter((i) => i.source === 'client' && i.role === 'system').map((i) => i.text),
          replyRequests: () => c.received.filter((e) => e.type === 'response.create').length,
          frames: () => 0,
          systemInstruction: () => String(c.xaiSession.instructions ?? ''),
          declaredTools: () => (c.xaiSession.tools ?? []).map((t) => ('name' in t ? t.name : t.type)),
          conversation: () => c.transcript(),
        });
      },
      established: () => fake.established.length,
      upgradeAttempts: () => fake.upgradeAttempts,
      setUnavailable: (down) => fake.setUnavailable(down),
      close: () => fake.close(),
    };
  },
};

export const ADAPTERS: readonly ProviderAdapter[] = [
  geminiAdapter,
  openaiRealtimeAdapter,
  openaiLiveAdapter,
  xaiAdapter,
];
