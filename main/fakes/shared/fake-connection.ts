// One client socket as every model fake sees it, whatever the protocol: how it closes and who closed
// it, timers that die with it, raw frames and drops for fault tests, "wait until this holds", and
// the service's timing: a reply to a turn starts `firstAudioAfterTurnEndMs` after the turn ended and
// is paced faster than real time (timing.ts). Each fake's connection maps only its protocol on it.
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import {
  PacedReply,
  wordsOf,
  type PacedReplySteps,
  type ReplyTiming,
  type SocketTimers,
  type Timer,
} from './paced-reply.ts';
import { paceFor, type FakeTiming } from './timing.ts';
import { waitUntil, watchEvents } from './ws-server.ts';

/** WebSocket close reasons are at most 123 bytes (RFC 6455 §5.5); cut on a UTF-8 boundary. */
export function cutCloseReason(reason: string): string {
  const bytes = Buffer.from(reason, 'utf8');
  if (bytes.length <= 123) return reason;
  let end = 123;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** What a reply script may say about its audio and pace (every fake's script has these). */
export interface PacedScript {
  pcm?: Int16Array;
  toneMs?: number;
  transcript?: string;
  /** Audio per message, ms (default the fake's chunkMs). */
  chunkMs?: number;
  /** Wall time between messages, ms (default chunkMs / the service's delivery factor). */
  paceMs?: number;
  /** Before the first audio, ms (default: what is left of the first-audio latency after a pending turn end; else 0). */
  delayMs?: number;
}

// The event map is the subclass's; every connection reports its close.
export abstract class FakeConnection<E extends Record<keyof E, unknown[]> & { close: unknown[] }>
  extends EventEmitter<E>
  implements SocketTimers
{
  readonly index: number;
  /** Request headers of the upgrade (user-agent, x-goog-api-client …). */
  readonly headers: Record<string, string | string[] | undefined>;
  closeCode: number | null = null;
  closeReason = '';
  closedBy: 'server' | 'client' | null = null;
  /** The delay this socket's session setup was scheduled with (null: no setup yet). */
  setupDelayMs: number | null = null;
  /** Every reply's modelled timing, in order (first-audio delay after the turn end, pace). */
  readonly replyTimings: ReplyTiming[] = [];
  protected readonly socket: WebSocket;
  protected readonly timing: FakeTiming;
  readonly #timers = new Set<Timer>();
  /** The model's tool calls still waiting for the client's answer, by call id. */
  readonly #toolWaiters = new Map<string, (answer: unknown) => void>();
  readonly #name: string;
  readonly #trafficEvent: keyof E & string;
  #turnEndedAt: number | null = null;

  constructor(
    socket: WebSocket,
    init: {
      index: number;
      headers: Record<string, string | string[] | undefined>;
      name: string;
      trafficEvent: keyof E & string;
    },
    timing: FakeTiming,
  ) {
    super();
    this.socket = socket;
    this.timing = timing;
    this.index = init.index;
    this.headers = init.headers;
    this.#name = init.name;
    this.#trafficEvent = init.trafficEvent;
    socket.on('close', (code, reason) => {
      if (this.closeCode === null) {
        this.closeCode = code;
        this.closeReason = reason.toString();
        this.closedBy ??= 'client';
      }
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
      this.socketClosed(code, this.closeReason);
    });
  }

  /** The socket closed (either side): stop the reply in progress and tell listeners. */
  protected abstract socketClosed(code: number, reason: string): void;

  get isOpen(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /** A timer that dies with this socket. */
  later(fn: () => void, ms: number): Timer {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
    return timer;
  }

  clearLater(timer: Timer): void {
    clearTimeout(timer);
    this.#timers.delete(timer);
  }

  /** Bytes exactly as given, bypassing JSON (malformed, binary or oversized frames for fault tests). */
  sendRaw(data: string | Buffer): void {
    if (this.isOpen) this.socket.send(data);
  }

  /** Close with a code and reason; the reason is cut to the 123 bytes a close frame holds. */
  close(code = 1011, reason = 'Internal server error'): void {
    const cut = cutCloseReason(reason);
    if (this.closeCode === null && this.isOpen) {
      this.closeCode = code;
      this.closeReason = cut;
      this.closedBy = 'server';
    }
    this.socket.close(code, cut);
  }

  /** Drop the TCP connection without a close frame (client sees 1006). */
  drop(): void {
    if (this.closeCode === null) {
      this.closeCode = 1006;
      this.closedBy = 'server';
    }
    this.socket.terminate();
  }

  /** Resolves when `predicate` holds, re-checked after every client message and at the close. */
  waitFor(predicate: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    return waitUntil(
      watchEvents<E>(this, [this.#trafficEvent, 'close']),
      predicate,
      timeoutMs,
      () => `${this.#name} connection ${this.index}: timed out waiting for ${what}`,
    );
  }

  /** Resolves with the client's answer to the model's tool call `callId`; rejects after `timeoutMs`. */
  protected awaitToolAnswer<T>(callId: string, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = this.later(
        () =>
          reject(
            new Error(
              `${this.#name} connection ${this.index}: no answer to tool call ${callId} within ${timeoutMs} ms`,
            ),
          ),
        timeoutMs,
      );
      this.#toolWaiters.set(callId, (answer) => {
        this.clearLater(timer);
        this.#toolWaiters.delete(callId);
        resolve(answer as T);
      });
    });
  }

  /** The model is waiting for the answer to `callId`. */
  protected awaitsToolAnswer(callId: string): boolean {
    return this.#toolWaiters.has(callId);
  }

  /** The client answered `callId` (nothing happens when the model was not waiting for it). */
  protected toolAnswered(callId: string, answer: unknown): void {
    this.#toolWaiters.get(callId)?.(answer);
  }

  /** The model stops waiting for `callId` (the service cancelled it); the scripted wait then times out. */
  protected forgetToolCall(callId: string): void {
    this.#toolWaiters.delete(callId);
  }

  /**
   * The service's end of a user turn (the event the fake acts on): the next reply's first audio
   * comes `firstAudioAfterTurnEndMs` after it. A turn end already pending and not yet due is kept.
   */
  protected markTurnEnd(): void {
    const now = Date.now();
    if (this.#turnEndedAt === null || now - this.#turnEndedAt >= this.timing.firstAudioAfterTurnEndMs)
      this.#turnEndedAt = now;
  }

  /** A reply of `script` at `rate`, paced and delayed as the service would, mapped by `steps`. */
  protected pacedReply<O>(
    script: PacedScript,
    rate: number,
    pcm: Int16Array,
    steps: PacedReplySteps<O>,
    minChunks = 0,
  ): PacedReply<O> {
    const now = Date.now();
    const turnEndedAt = this.#turnEndedAt;
    this.#turnEndedAt = null;
    const chunkMs = script.chunkMs ?? this.timing.chunkMs;
    const paceMs = script.paceMs ?? paceFor(this.timing, chunkMs);
    const firstAudioDelayMs =
      script.delayMs ??
      (turnEndedAt === null ? 0 : Math.max(0, turnEndedAt + this.timing.firstAudioAfterTurnEndMs - now));
    const timing: ReplyTiming = { turnEndedAt, startedAt: now, firstAudioDelayMs, firstAudioAt: null, chunkMs, paceMs };
    this.replyTimings.push(timing);
    if (this.replyTimings.length > 1000) this.replyTimings.splice(0, 500);
    const plan = {
      pcm,
      samplesPerChunk: Math.max(1, Math.round((rate * chunkMs) / 1000)),
      paceMs,
      delayMs: firstAudioDelayMs,
      words: wordsOf(script.transcript),
      minChunks,
    };
    return new PacedReply(this, plan, steps, timing);
  }
}
