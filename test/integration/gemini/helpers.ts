// Shared wiring for the Gemini integration tests: the real provider (real @google/genai client)
// against the fake service on 127.0.0.1, a log capture (to prove the key never reaches a log line),
// and a recorder of everything the session emits.
import pino, { type Logger } from 'pino';
import { Writable } from 'node:stream';
import {
  createGeminiProvider,
  type GeminiProviderOptions,
  type GeminiLiveSession,
} from '../../../main/core/model/index.ts';
import type { LiveModelConnectOptions, ToolCallRequest } from '../../../main/core/ports.ts';
import { startFakeGemini, type FakeGemini, type FakeGeminiOptions } from '../../../main/fakes/gemini/index.ts';

/** Built at run time so no literal in the source looks like a real key. */
export function fakeKey(label = 'test'): string {
  return ['fake', label, 'key', process.pid.toString(36)].join('-');
}

export function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

export class SessionRecorder {
  audio: Int16Array[] = [];
  inputTranscripts: string[] = [];
  outputTranscripts: string[] = [];
  states: { state: string; reason?: string }[] = [];
  toolCalls: ToolCallRequest[] = [];
  cancelled: string[][] = [];
  interrupted = 0;
  turnCompletes = 0;
  /** Order of events as seen by the bridge, e.g. ['audio', 'outputTranscript', 'turnComplete']. */
  order: string[] = [];

  constructor(session: GeminiLiveSession) {
    session.on('audio', (pcm) => {
      this.audio.push(pcm);
      this.order.push('audio');
    });
    session.on('inputTranscript', (t) => this.inputTranscripts.push(t));
    session.on('outputTranscript', (t) => {
      this.outputTranscripts.push(t);
      this.order.push('outputTranscript');
    });
    session.on('state', (state, reason) => this.states.push({ state, reason }));
    session.on('toolCall', (call) => this.toolCalls.push(call));
    session.on('toolCallCancelled', (ids) => this.cancelled.push(ids));
    session.on('interrupted', () => {
      this.interrupted++;
      this.order.push('interrupted');
    });
    session.on('turnComplete', () => {
      this.turnCompletes++;
      this.order.push('turnComplete');
    });
  }

  get audioSamples(): number {
    return this.audio.reduce((n, a) => n + a.length, 0);
  }

  get outputText(): string {
    return this.outputTranscripts.join('');
  }
}

export async function waitUntil(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export interface Harness {
  fake: FakeGemini;
  session: GeminiLiveSession;
  rec: SessionRecorder;
  logLines: string[];
  key: string;
  close(): Promise<void>;
}

export async function startHarness(
  fakeOptions: FakeGeminiOptions = {},
  providerOptions: Partial<GeminiProviderOptions> = {},
  connect: Partial<LiveModelConnectOptions> = {},
): Promise<Harness> {
  const fake = await startFakeGemini(fakeOptions);
  const key = providerOptions.apiKey ?? fakeKey();
  const { logger, lines } = captureLogger();
  try {
    const provider = createGeminiProvider({
      model: 'gemini-3.8-live',
      voice: 'Kore',
      baseUrl: fake.url,
      backoff: { initialMs: 20, maxMs: 200, maxAttempts: 5 },
      ...providerOptions,
      apiKey: key,
      logger,
    });
    const session = (await provider.connect({
      ...connect,
      tools: connect.tools ?? [],
      systemInstruction: connect.systemInstruction ?? 'You are a test persona.',
    })) as GeminiLiveSession;
    const rec = new SessionRecorder(session);
    return {
      fake,
      session,
      rec,
      logLines: lines,
      key,
      async close() {
        await session.close();
        await fake.close();
      },
    };
  } catch (err) {
    await fake.close();
    throw err;
  }
}

/** 20 ms of 16 kHz speech-like PCM whose samples encode `seq`, so order and loss are checkable. */
export function numberedChunk(seq: number, samples = 320): Int16Array {
  const out = new Int16Array(samples);
  for (let i = 0; i < samples; i++) out[i] = ((seq * 7 + i) % 2000) - 1000;
  out[0] = seq;
  return out;
}

/**
 * Audio across a resume, as the resumed session must hear it: every chunk reached a socket, each
 * socket got its chunks once and in order, and the resumed socket's chunks run without a gap to
 * the last one sent. The resumed socket may start earlier than where the old one stopped: audio
 * the service had not answered (or covered by a handle) is sent again, because a session resumed
 * from a handle has not heard it.
 */
export function expectAudioAcrossResume(
  first: { audio: { pcm: Int16Array }[] },
  second: { audio: { pcm: Int16Array }[] },
  total: number,
): void {
  const a = first.audio.map((c) => c.pcm[0]!);
  const b = second.audio.map((c) => c.pcm[0]!);
  const contiguous = (list: number[]) => list.every((v, i) => i === 0 || v === list[i - 1]! + 1);
  if (!contiguous(a) || !contiguous(b))
    throw new Error(`a socket got chunks out of order or twice: ${a.join(',')} | ${b.join(',')}`);
  if (b.at(-1) !== total - 1)
    throw new Error(`the resumed socket did not get the last chunk (${b.at(-1)} of ${total - 1})`);
  const union = new Set([...a, ...b]);
  for (let i = 0; i < total; i++) if (!union.has(i)) throw new Error(`chunk ${i} reached no socket`);
}

/** Sends a numbered 20 ms chunk every 10 ms (faster than real time) until `stop()`. */
export function startAudioPump(harness: Harness): { sent: () => number; stop: () => void } {
  let seq = 0;
  const timer = setInterval(() => harness.session.sendAudio(numberedChunk(seq++)), 10);
  return { sent: () => seq, stop: () => clearInterval(timer) };
}
