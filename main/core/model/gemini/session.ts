// One conversation with Gemini Live, which may span several WebSockets:
// - a connection lives ~10 min and announces its end with `goAway`; the next one is opened with the
//   latest resumption handle WHILE the old one is still up, at an idle point (no reply, no tool call
//   in flight, handle fresh) or at the deadline, and input is re-routed in one synchronous step, so
//   audio never stops flowing and the conversation continues on the new socket;
// - an unexpected close is followed by reconnects with backoff, resuming with the latest handle;
// - a rejected key stops at once (`error`), an unknown model moves to the next fallback model.
import { EventEmitter } from 'node:events';
import type { GoogleGenAI, LiveServerMessage } from '@google/genai';
import type { Logger } from 'pino';
import type { ConnectionState } from '../../api-types.ts';
import type { FrameSendResult, LiveModelEvents, LiveModelSession, ToolCallResult, ToolDeclaration } from '../../ports.ts';
import type { Clock, TimerHandle } from '../clock.ts';
import { toModelFrame } from '../frame-converter.ts';
import { FrameLimiter, type FrameStats } from '../frame-limiter.ts';
import { ConnectFailure, GeminiConnection } from './connection.ts';
import { buildLiveConfig, classifyFailure, parseDurationMs, textInjectionKindFor } from './setup.ts';
import { TextInjectionQueue } from '../text-injection.ts';

export const INPUT_AUDIO_MIME = 'audio/pcm;rate=16000';

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Transient failures tolerated in a row before giving up with `error`. */
  maxAttempts: number;
}

export interface GeminiSessionOptions {
  ai: GoogleGenAI;
  /** Primary model first, then fallbacks in order. */
  models: readonly string[];
  voice: string;
  systemInstruction?: string;
  tools: ToolDeclaration[];
  logger: Logger;
  clock: Clock;
  scrub: (text: string) => string;
  backoff: BackoffOptions;
  formatInjectedText: (text: string) => string;
  /** Force the goAway switch-over this long before the announced close, whatever is going on. */
  switchMarginMs: number;
  /** How long a replaced connection may still deliver the tail of its output before we close it. */
  drainMs: number;
  replyWaitMs?: number;
}

export interface GeminiSessionStats {
  /** Every WebSocket this session tried to open (initial, fallbacks, switch-overs, reconnects). */
  connectionAttempts: number;
  /** Connections that completed setup with a resumption handle. */
  resumed: number;
  reconnects: number;
  switchOvers: number;
  audioChunksDropped: number;
  textsDelivered: number;
  textsQueued: number;
  frames: FrameStats;
}

class FatalSessionError extends Error {}

export class GeminiLiveSession extends EventEmitter<LiveModelEvents> implements LiveModelSession {
  readonly #o: GeminiSessionOptions;
  #state: ConnectionState = 'disconnected';
  #modelIndex = 0;
  #active: GeminiConnection | null = null;
  #draining = new Set<GeminiConnection>();
  #handle: string | null = null;
  /** The latest handle was issued after the last model activity (safe to resume from). */
  #handleFresh = false;
  #turnOpen = false;
  /** The socket whose model turn is open: if it closes mid-turn, that turn is over. */
  #turnConnection: GeminiConnection | null = null;
  readonly #toolsInFlight = new Set<string>();
  #goAwayDeadline: number | null = null;
  #goAwayTimer: TimerHandle | null = null;
  #switching = false;
  #reconnecting = false;
  #closed = false;
  #sleepers = new Set<() => void>();
  #nextConnectionId = 1;
  #lastOpenResumed = false;
  readonly #frames: FrameLimiter;
  readonly #texts: TextInjectionQueue;
  readonly #stats = { connectionAttempts: 0, resumed: 0, reconnects: 0, switchOvers: 0, audioChunksDropped: 0 };

  constructor(options: GeminiSessionOptions) {
    super();
    this.#o = options;
    this.#frames = new FrameLimiter({ clock: options.clock, send: (image) => this.#sendFrameNow(image) });
    this.#texts = new TextInjectionQueue({
      clock: options.clock,
      deliver: (texts) => this.#deliverTexts(texts),
      replyWaitMs: options.replyWaitMs,
      onOverflow: (dropped) => options.logger.warn({ dropped }, 'text injection queue full: oldest texts dropped'),
    });
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get model(): string {
    return this.#o.models[this.#modelIndex] ?? this.#o.models[0] ?? '';
  }

  get stats(): GeminiSessionStats {
    return { ...this.#stats, textsDelivered: this.#texts.delivered, textsQueued: this.#texts.size, frames: { ...this.#frames.stats } };
  }

  /** Opens the first connection (trying fallback models); rejects with a readable reason. */
  async start(): Promise<void> {
    this.#setState('connecting');
    try {
      this.#adopt(await this.#openWithFallback());
      this.#setState('connected');
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.#setState('error', reason);
      throw new Error(reason, { cause: err });
    }
  }

  // --- input -------------------------------------------------------------------------------

  sendAudio(pcm16kMono: Int16Array): void {
    const sdk = this.#active?.sdk;
    if (!sdk) {
      this.#stats.audioChunksDropped++;
      return;
    }
    this.#texts.userAudio();
    const data = Buffer.from(pcm16kMono.buffer, pcm16kMono.byteOffset, pcm16kMono.byteLength).toString('base64');
    sdk.sendRealtimeInput({ audio: { data, mimeType: INPUT_AUDIO_MIME } });
  }

  endAudioInput(): void {
    this.#active?.sdk?.sendRealtimeInput({ audioStreamEnd: true });
    this.#texts.userAudioEnded();
  }

  sendText(text: string): void {
    const trimmed = text.trim();
    if (trimmed) this.#texts.enqueue(this.#o.formatInjectedText(trimmed));
  }

  sendFrame(image: Buffer): Promise<FrameSendResult> {
    return this.#frames.submit(image);
  }

  sendToolResult(result: ToolCallResult): void {
    this.#toolsInFlight.delete(result.id);
    const sdk = this.#active?.sdk;
    if (!sdk) {
      this.#o.logger.warn({ tool: result.name, callId: result.id }, 'tool result dropped: no live connection');
      return;
    }
    sdk.sendToolResponse({ functionResponses: [{ id: result.id, name: result.name, response: result.response }] });
    this.#maybeSwitch();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#o.clock.clearTimeout(this.#goAwayTimer);
    for (const wake of this.#sleepers) wake();
    this.#frames.close();
    this.#texts.close();
    this.#active?.close();
    for (const connection of this.#draining) connection.close();
    this.#active = null;
    this.#draining.clear();
    this.#setState('disconnected', 'closed');
  }

  // --- connections -------------------------------------------------------------------------

  async #openOne(model: string): Promise<GeminiConnection> {
    this.#stats.connectionAttempts++;
    const handle = this.#handle;
    const connection = await GeminiConnection.open(
      this.#o.ai,
      this.#nextConnectionId++,
      model,
      buildLiveConfig({ voice: this.#o.voice, systemInstruction: this.#o.systemInstruction, tools: this.#o.tools, handle }),
      { onMessage: (m, c) => this.#onMessage(m, c), onClose: (code, reason, c) => this.#onClose(code, reason, c) },
      this.#o.scrub,
    );
    if (handle) this.#stats.resumed++;
    this.#lastOpenResumed = Boolean(handle);
    this.#o.logger.info({ model, connection: connection.id, resumed: Boolean(handle) }, 'gemini live connected');
    return connection;
  }

  /**
   * Tries the current model, then the fallbacks. Auth failures stop at once; a model failure moves
   * on; transient failures back off and retry the same model up to `maxAttempts` times.
   */
  async #openWithFallback(): Promise<GeminiConnection> {
    const { backoff, logger } = this.#o;
    const failures: string[] = [];
    let handleRetried = false;
    for (let index = this.#modelIndex; index < this.#o.models.length; index++) {
      const model = this.#o.models[index]!;
      for (let attempt = 1; ; attempt++) {
        if (this.#closed) throw new FatalSessionError('session closed');
        try {
          const connection = await this.#openOne(model);
          this.#modelIndex = index;
          return connection;
        } catch (err) {
          const failure = err instanceof ConnectFailure ? err : new ConnectFailure(null, this.#o.scrub(String(err)));
          const kind = classifyFailure(failure.code, failure.reason);
          logger.warn({ model, code: failure.code, reason: failure.reason, kind, attempt }, 'gemini live connection failed');
          if (kind === 'auth') throw new FatalSessionError(`Gemini rejected the API key (${failure.message})`);
          if (kind === 'handle' && this.#handle && !handleRetried) {
            // The conversation cannot be resumed; a fresh one beats no conversation.
            logger.warn('resumption handle rejected: starting a fresh conversation');
            this.#handle = null;
            handleRetried = true;
            continue;
          }
          if (kind === 'model' || kind === 'handle') {
            failures.push(`${model}: ${failure.message}`);
            break;
          }
          if (attempt >= backoff.maxAttempts) throw new FatalSessionError(`Gemini unreachable after ${attempt} attempts (${failure.message})`);
          await this.#sleep(Math.min(backoff.maxMs, backoff.initialMs * 2 ** (attempt - 1)));
        }
      }
    }
    throw new FatalSessionError(`no configured Gemini model accepted the session (${failures.join('; ')})`);
  }

  #adopt(connection: GeminiConnection): void {
    if (this.#closed) {
      connection.close();
      return;
    }
    this.#active = connection;
    this.#goAwayDeadline = null;
    this.#o.clock.clearTimeout(this.#goAwayTimer);
    this.#goAwayTimer = null;
    this.#texts.tryFlush();
  }

  #onClose(code: number, reason: string, connection: GeminiConnection): void {
    if (this.#turnOpen && this.#turnConnection === connection && !this.#closed) {
      this.#turnOpen = false;
      this.#turnConnection = null;
      this.#texts.modelTurnEnded();
    }
    if (this.#draining.delete(connection) || this.#closed || connection.closedByUs) return;
    if (connection !== this.#active) return;
    this.#active = null;
    this.#o.logger.warn({ code, reason, connection: connection.id }, 'gemini live connection closed unexpectedly');
    this.#toolsInFlight.clear();
    // Mid switch-over the next socket is already being dialled: let #switchOver adopt it.
    if (this.#switching) return;
    void this.#reconnect(`connection closed (${code}${reason ? `: ${reason}` : ''})`);
  }

  async #reconnect(reason: string): Promise<void> {
    if (this.#reconnecting || this.#closed) return;
    this.#reconnecting = true;
    this.#stats.reconnects++;
    this.#setState('reconnecting', reason);
    try {
      this.#adopt(await this.#openWithFallback());
      if (!this.#closed) this.#setState('connected', this.#lastOpenResumed ? 'resumed' : 'new conversation (could not resume)');
    } catch (err) {
      if (!this.#closed) this.#setState('error', err instanceof Error ? err.message : String(err));
    } finally {
      this.#reconnecting = false;
    }
  }

  // --- goAway switch-over ------------------------------------------------------------------

  #onGoAway(connection: GeminiConnection, timeLeftMs: number): void {
    if (connection !== this.#active || this.#goAwayDeadline !== null) return;
    const { clock, switchMarginMs, logger } = this.#o;
    this.#goAwayDeadline = clock.now() + timeLeftMs;
    logger.info({ timeLeftMs, connection: connection.id }, 'gemini goAway: preparing the next connection');
    this.#goAwayTimer = clock.setTimeout(() => {
      this.#goAwayTimer = null;
      void this.#switchOver('deadline');
    }, Math.max(0, timeLeftMs - switchMarginMs));
    this.#maybeSwitch();
  }

  /** Switch as soon as nothing would be lost: no reply or tool call in flight, handle up to date. */
  #maybeSwitch(): void {
    if (this.#goAwayDeadline === null || this.#switching) return;
    if (!this.#turnOpen && this.#toolsInFlight.size === 0 && this.#handleFresh) void this.#switchOver('idle');
  }

  async #switchOver(trigger: 'idle' | 'deadline'): Promise<void> {
    const old = this.#active;
    if (this.#switching || this.#closed || !old || this.#goAwayDeadline === null) return;
    this.#switching = true;
    this.#o.clock.clearTimeout(this.#goAwayTimer);
    this.#goAwayTimer = null;
    try {
      const next = await this.#openOne(this.model);
      if (this.#closed) {
        next.close();
        return;
      }
      if (this.#active !== old && this.#active !== null) {
        next.close();
        return;
      }
      // From here on every input goes to `next`; the old socket may still finish its output.
      if (this.#active === old) this.#draining.add(old);
      else this.#setState('connected', 'resumed');
      this.#adopt(next);
      this.#stats.switchOvers++;
      this.#o.logger.info({ from: old.id, to: next.id, trigger }, 'gemini live switched to the resumed connection');
      // Idle switch: nothing more is due from the old socket, release it soon. Deadline switch: it
      // may still be finishing a reply, so let it play out until the service closes it.
      const drainMs = trigger === 'idle' ? this.#o.drainMs : this.#o.switchMarginMs + 1000;
      this.#o.clock.setTimeout(() => {
        if (this.#draining.delete(old)) old.close();
      }, drainMs);
    } catch (err) {
      // The old socket is usually still up until its deadline; when it closes, #onClose reconnects.
      this.#o.logger.warn({ reason: err instanceof Error ? err.message : String(err) }, 'gemini switch-over failed; will reconnect on close');
    } finally {
      this.#switching = false;
      if (!this.#active && !this.#closed) void this.#reconnect('connection closed during switch-over');
    }
  }

  // --- output ------------------------------------------------------------------------------

  #onMessage(message: LiveServerMessage, connection: GeminiConnection): void {
    if (this.#closed) return;
    const content = message.serverContent;
    if (content) {
      const parts = content.modelTurn?.parts;
      if (parts) {
        for (const part of parts) {
          const inline = part.inlineData;
          if (inline?.data && inline.mimeType?.startsWith('audio/pcm')) {
            this.#modelActivity(connection);
            this.emit('audio', decodePcm(inline.data));
          }
        }
      }
      if (content.inputTranscription?.text) this.emit('inputTranscript', content.inputTranscription.text);
      if (content.outputTranscription?.text) {
        this.#modelActivity(connection);
        this.emit('outputTranscript', content.outputTranscription.text);
      }
      if (content.interrupted) this.emit('interrupted');
      if (content.turnComplete) {
        this.#turnOpen = false;
        this.emit('turnComplete');
        this.#texts.modelTurnEnded();
      }
    }
    const calls = message.toolCall?.functionCalls;
    if (calls) {
      this.#modelActivity(connection);
      for (const call of calls) {
        const id = call.id ?? '';
        this.#toolsInFlight.add(id);
        this.emit('toolCall', { id, name: call.name ?? '', args: call.args ?? {} });
      }
    }
    const cancelled = message.toolCallCancellation?.ids;
    if (cancelled && cancelled.length > 0) {
      for (const id of cancelled) this.#toolsInFlight.delete(id);
      this.emit('toolCallCancelled', [...cancelled]);
    }
    const update = message.sessionResumptionUpdate;
    // Not only the active socket: the SDK delivers messages that arrive with setupComplete before
    // connect() returns, i.e. before the new connection is adopted. Only a replaced one is ignored.
    if (update && !this.#draining.has(connection) && !connection.closedByUs) {
      if (update.resumable && update.newHandle) {
        this.#handle = update.newHandle;
        this.#handleFresh = !this.#turnOpen && this.#toolsInFlight.size === 0;
        this.#maybeSwitch();
      } else {
        this.#handleFresh = false;
      }
    }
    if (message.goAway) this.#onGoAway(connection, parseDurationMs(message.goAway.timeLeft) ?? 10_000);
  }

  #modelActivity(connection: GeminiConnection): void {
    this.#turnOpen = true;
    this.#turnConnection = connection;
    this.#handleFresh = false;
    this.#texts.modelActivity();
  }

  #deliverTexts(texts: readonly string[]): boolean {
    const sdk = this.#active?.sdk;
    if (!sdk) return false;
    if (textInjectionKindFor(this.model) === 'realtimeText') sdk.sendRealtimeInput({ text: texts.join('\n') });
    else sdk.sendClientContent({ turns: [{ role: 'user', parts: texts.map((text) => ({ text })) }], turnComplete: true });
    this.#o.logger.debug({ count: texts.length }, 'injected text delivered to the model');
    return true;
  }

  async #sendFrameNow(image: Buffer): Promise<FrameSendResult> {
    const frame = await toModelFrame(image);
    const sdk = this.#active?.sdk;
    if (!sdk) return { status: 'dropped', reason: 'not_connected' };
    sdk.sendRealtimeInput({ video: { data: frame.jpeg.toString('base64'), mimeType: 'image/jpeg' } });
    return { status: 'sent', width: frame.width, height: frame.height, bytes: frame.jpeg.length };
  }

  #setState(state: ConnectionState, reason?: string): void {
    if (state === this.#state && state !== 'error') return;
    this.#state = state;
    this.emit('state', state, reason);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        this.#sleepers.delete(wake);
        this.#o.clock.clearTimeout(timer);
        resolve();
      };
      const timer = this.#o.clock.setTimeout(wake, ms);
      this.#sleepers.add(wake);
    });
  }
}

/** base64 s16le → Int16Array, copying only when the decoded bytes are not 2-byte aligned. */
export function decodePcm(base64: string): Int16Array {
  const bytes = Buffer.from(base64, 'base64');
  const even = bytes.length & ~1;
  if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, even / 2);
  const copy = new Int16Array(even / 2);
  new Uint8Array(copy.buffer).set(bytes.subarray(0, even));
  return copy;
}
