// Text the model should speak next (/say, voice-mode notifications). On Gemini 3.8 a `clientContent`
// turn with `turnComplete: true` interrupts whatever the model is saying, and text pushed while the
// user talks competes with the user's own turn. So texts wait here until the conversation is idle:
// the model is not generating, the user's voice gate is closed, and no reply to the user's last
// utterance is about to start. Everything waiting is then delivered as ONE turn (two turns would
// make the second interrupt the reply to the first).
import type { Clock, TimerHandle } from './clock.ts';

export interface TextInjectionOptions {
  clock: Clock;
  /** Sends the texts as one turn; false when there is no live connection (they stay queued). */
  deliver: (texts: readonly string[]) => boolean;
  /** After the voice gate closes, how long to wait for the model's reply to begin before speaking. */
  replyWaitMs?: number;
  /** After an injection, how long to wait for its reply before allowing the next one regardless. */
  injectionReplyTimeoutMs?: number;
  maxQueued?: number;
  onOverflow?: (dropped: number) => void;
}

export class TextInjectionQueue {
  readonly #clock: Clock;
  readonly #deliver: (texts: readonly string[]) => boolean;
  readonly #replyWaitMs: number;
  readonly #injectionReplyTimeoutMs: number;
  readonly #maxQueued: number;
  readonly #onOverflow: ((dropped: number) => void) | undefined;
  #queue: string[] = [];
  #modelTurnOpen = false;
  #userSpeaking = false;
  #awaitingReply = false;
  #replyTimer: TimerHandle | null = null;
  #closed = false;
  delivered = 0;

  constructor(options: TextInjectionOptions) {
    this.#clock = options.clock;
    this.#deliver = options.deliver;
    this.#replyWaitMs = options.replyWaitMs ?? 1500;
    this.#injectionReplyTimeoutMs = options.injectionReplyTimeoutMs ?? 8000;
    this.#maxQueued = options.maxQueued ?? 20;
    this.#onOverflow = options.onOverflow;
  }

  get size(): number {
    return this.#queue.length;
  }

  get idle(): boolean {
    return !this.#modelTurnOpen && !this.#userSpeaking && !this.#awaitingReply;
  }

  enqueue(text: string): void {
    if (this.#closed) return;
    this.#queue.push(text);
    if (this.#queue.length > this.#maxQueued) {
      const dropped = this.#queue.length - this.#maxQueued;
      this.#queue.splice(0, dropped);
      this.#onOverflow?.(dropped);
    }
    this.tryFlush();
  }

  /** Hot path (every audio chunk): a boolean store, nothing else. */
  userAudio(): void {
    this.#userSpeaking = true;
  }

  userAudioEnded(): void {
    this.#userSpeaking = false;
    this.#waitForReply(this.#replyWaitMs);
  }

  /** Any model output (audio, transcript, tool call): a reply is in progress. */
  modelActivity(): void {
    this.#modelTurnOpen = true;
    this.#stopWaiting();
  }

  /** turnComplete, or the connection carrying the turn went away. */
  modelTurnEnded(): void {
    this.#modelTurnOpen = false;
    this.tryFlush();
  }

  tryFlush(): void {
    if (this.#closed || this.#queue.length === 0 || !this.idle) return;
    const texts = this.#queue;
    if (!this.#deliver(texts)) return;
    this.#queue = [];
    this.delivered += texts.length;
    this.#waitForReply(this.#injectionReplyTimeoutMs);
  }

  close(): void {
    this.#closed = true;
    this.#stopWaiting();
    this.#queue = [];
  }

  #waitForReply(ms: number): void {
    this.#stopWaiting();
    this.#awaitingReply = true;
    this.#replyTimer = this.#clock.setTimeout(() => {
      this.#replyTimer = null;
      this.#awaitingReply = false;
      this.tryFlush();
    }, ms);
  }

  #stopWaiting(): void {
    this.#clock.clearTimeout(this.#replyTimer);
    this.#replyTimer = null;
    this.#awaitingReply = false;
  }
}
