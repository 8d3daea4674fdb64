// The part of a live-model session every provider shares, behind the provider contract
// (`LiveModelSession` in ports.ts): the connection lifecycle (connect, model fallback, back-off,
// reconnect, close), the model in use, texts waiting for an idle moment (text-injection.ts), frames
// at most one a second (frame-limiter.ts), the tool calls in flight, and the turn signals the bridge
// hears (`interrupted`, `turnComplete`) kept in step with the text queue. A provider's session
// extends this and maps only its protocol: how a socket opens, what its messages mean, how audio,
// text, frames and tool results are written on it. docs/architecture.md "Model providers".
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { ConnectionState } from '../../api-types.ts';
import type { FrameSendResult, LiveModelEvents, TextDelivery } from '../../ports.ts';
import type { TimerClock } from '../../contracts/clock.ts';
import { FrameLimiter } from '../frame-limiter.ts';
import { TextInjectionQueue } from '../text-injection.ts';
import type { ConnectFailure } from '../wire/connect-failure.ts';
import type { BackoffOptions, FailureKind, Recovery } from './fallback.ts';
import { SessionLifecycle, type ReconnectOptions } from './lifecycle.ts';

export interface ModelSessionCoreOptions {
  /** Primary model first, then fallbacks in order. */
  models: readonly string[];
  logger: Logger;
  clock: TimerClock;
  backoff: BackoffOptions;
  scrub: (text: string) => string;
  formatInjectedText: (text: string) => string;
  replyWaitMs?: number;
}

/** How a provider opens one socket (the shared fallback loop calls it per attempt). */
export interface ProviderDialer<C> {
  /** The service's name in logs and errors ("Gemini", "OpenAI Realtime", "GPT-Live"). */
  label: string;
  open(model: string): Promise<C>;
  /** Closes a socket that opened after the session was closed. */
  discard(connection: C): void;
  classify(failure: ConnectFailure): FailureKind;
  recover?(failure: ConnectFailure): Recovery;
}

export abstract class ModelSessionCore extends EventEmitter<LiveModelEvents> {
  protected readonly life: SessionLifecycle;
  /** Texts the model speaks next, held until the conversation is idle. */
  protected readonly texts: TextInjectionQueue;
  protected readonly frames: FrameLimiter;
  protected modelIndex = 0;
  readonly #core: ModelSessionCoreOptions;

  protected constructor(core: ModelSessionCoreOptions) {
    super();
    this.#core = core;
    this.life = new SessionLifecycle(core.clock, (state, reason) => this.emit('state', state, reason));
    this.frames = new FrameLimiter({ clock: core.clock, send: (image) => this.sendFrameNow(image) });
    this.texts = new TextInjectionQueue({
      clock: core.clock,
      deliver: (texts) => this.deliverTexts(texts),
      replyWaitMs: core.replyWaitMs,
      onOverflow: (dropped) => core.logger.warn({ dropped }, 'text injection queue full: oldest texts dropped'),
    });
  }

  get state(): ConnectionState {
    return this.life.state;
  }

  get model(): string {
    const { models } = this.#core;
    return models[this.modelIndex] ?? models[0] ?? '';
  }

  /** Opens the first connection (trying fallback models); rejects with a readable reason. */
  start(): Promise<void> {
    return this.life.start(() => this.connect());
  }

  sendText(text: string, delivery?: TextDelivery): void {
    const trimmed = text.trim();
    if (!trimmed) {
      delivery?.onSettled?.({ delivered: false, reason: 'call_ended' });
      return;
    }
    const formatted = delivery?.asMessage ? trimmed : this.#core.formatInjectedText(trimmed);
    this.textQueued(formatted);
    this.texts.enqueue(formatted, delivery);
  }

  /** The texts still waiting for a pause, unsettled, for the next session (this one gave up). */
  takeTexts(): { text: string; delivery: TextDelivery }[] {
    return this.texts.take();
  }

  sendFrame(image: Buffer): Promise<FrameSendResult> {
    return this.frames.submit(image);
  }

  // --- for the provider ---------------------------------------------------------------------

  /** Opens and adopts a connection (first one, or after a close). */
  protected abstract connect(): Promise<void>;

  /** Writes the texts as one turn; false when no socket can take them (they stay queued). */
  protected abstract deliverTexts(texts: readonly string[]): boolean;

  /** Converts and writes one frame (at most one a second reaches here). */
  protected abstract sendFrameNow(image: Buffer): Promise<FrameSendResult>;

  /** A text entered the queue (Gemini remembers it to write it again after a resume). */
  protected textQueued(_text: string): void {}

  /** Opens a socket from the current model on, with fallback and back-off; the model in use follows. */
  protected async dial<C>(dialer: ProviderDialer<C>, options: { startIndex?: number } = {}): Promise<C> {
    const { connection, index } = await this.life.open(
      {
        label: dialer.label,
        models: this.#core.models,
        startIndex: options.startIndex ?? this.modelIndex,
        backoff: this.#core.backoff,
        logger: this.#core.logger,
        scrub: this.#core.scrub,
        open: (model) => dialer.open(model),
        classify: (failure) => dialer.classify(failure),
        recover: dialer.recover ? (failure) => dialer.recover!(failure) : undefined,
      },
      (connection) => dialer.discard(connection),
    );
    this.modelIndex = index;
    return connection;
  }

  /** After an unexpected close: one reconnect at a time, announced unless planned. */
  protected reconnectWith(reason: string, survived: () => string, options?: ReconnectOptions): Promise<void> {
    return this.life.reconnect(reason, () => this.connect(), survived, options);
  }

  /** After a socket closed unexpectedly: the reason the call shows is its close code and reason. */
  protected reconnectAfterClose(code: number, reason: string, survived: () => string): Promise<void> {
    return this.reconnectWith(`connection closed (${code}${reason ? `: ${reason}` : ''})`, survived);
  }

  /** The model said or did something: the text queue waits for its turn to end. */
  protected modelActivity(): void {
    this.texts.modelActivity();
  }

  /**
   * The model's turn is over (finished, cut by the user, or its socket gone): the bridge hears
   * `interrupted` (when cut) then `turnComplete`, and the text queue may speak.
   */
  protected endTurn(options: { interrupted?: boolean; releaseTexts?: boolean } = {}): void {
    if (options.interrupted) this.emit('interrupted');
    this.emit('turnComplete');
    if (options.releaseTexts ?? true) this.texts.modelTurnEnded();
  }

  /** Stops what the core runs (text queue, frame limiter, back-off sleeps); false when already closed. */
  protected closeCore(): boolean {
    if (!this.life.close()) return false;
    this.frames.close();
    this.texts.close();
    return true;
  }
}
