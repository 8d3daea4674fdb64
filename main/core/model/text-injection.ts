// Text the model should speak next (/say, voice-mode notifications). On Gemini 3.8 a `clientContent`
// turn with `turnComplete: true` interrupts whatever the model is saying, and text pushed while the
// user talks competes with the user's own turn. So texts wait here until the conversation is idle:
// the model is not generating, the user's voice gate is closed, and no reply to the user's last
// utterance is about to start. Everything waiting is then delivered as ONE turn (two turns would
// make the second interrupt the reply to the first).
//
// Each text may carry a settle callback and a deadline: it settles `delivered` when it is handed to
// the model (written on the live session), or dropped with a reason (`queue_full`, `call_ended`,
// `timeout`, `refused`) — and a dropped text is removed, so it is never spoken after its sender moved on.
// A text may also ask to be confirmed at the idle moment (`beforeHandOver`, the scheduler's claim):
// the flush then waits for those answers (a file write, milliseconds), drops what was refused and
// hands over the rest, so nothing is claimed while it only waits for a pause.
import type { TextDelivery, TextDropReason, TextOutcome } from '../ports.ts';
import type { TimerClock, TimerHandle } from '../contracts/clock.ts';

interface QueuedText {
  text: string;
  onSettled: ((outcome: TextOutcome) => void) | undefined;
  deadline: TimerHandle | null;
  /** When the deadline drops it (clock ms), or null: what is left of it goes with the text when taken. */
  dueAt: number | null;
  /** Still to be confirmed before it is handed over (cleared once confirmed). */
  beforeHandOver: (() => Promise<boolean>) | undefined;
}

export interface TextInjectionOptions {
  clock: TimerClock;
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
  readonly #clock: TimerClock;
  readonly #deliver: (texts: readonly string[]) => boolean;
  readonly #replyWaitMs: number;
  readonly #injectionReplyTimeoutMs: number;
  readonly #maxQueued: number;
  readonly #onOverflow: ((dropped: number) => void) | undefined;
  #queue: QueuedText[] = [];
  #modelTurnOpen = false;
  #userSpeaking = false;
  #awaitingReply = false;
  #replyTimer: TimerHandle | null = null;
  #closed = false;
  /** Confirmations asked at an idle moment and not yet answered: no flush meanwhile. */
  #confirming = false;
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

  enqueue(text: string, delivery: TextDelivery = {}): void {
    const item: QueuedText = {
      text,
      onSettled: delivery.onSettled,
      deadline: null,
      dueAt: delivery.deadlineMs === undefined ? null : this.#clock.now() + delivery.deadlineMs,
      beforeHandOver: delivery.beforeHandOver,
    };
    if (this.#closed) return settle(item, { delivered: false, reason: 'call_ended' });
    if (delivery.deadlineMs !== undefined) {
      item.deadline = this.#clock.setTimeout(() => {
        item.deadline = null;
        const at = this.#queue.indexOf(item);
        if (at < 0) return;
        this.#queue.splice(at, 1);
        settle(item, { delivered: false, reason: 'timeout' });
      }, delivery.deadlineMs);
    }
    this.#queue.push(item);
    if (this.#queue.length > this.#maxQueued) {
      const dropped = this.#queue.splice(0, this.#queue.length - this.#maxQueued);
      for (const old of dropped) this.#drop(old, 'queue_full');
      this.#onOverflow?.(dropped.length);
    }
    this.tryFlush();
  }

  /**
   * Texts already delivered on a socket that ended before the service confirmed them (held-texts.ts):
   * they go first in the next delivery; their senders were told `delivered` once already.
   */
  requeue(texts: readonly string[]): void {
    if (this.#closed || texts.length === 0) return;
    this.#queue.unshift(
      ...texts.map((text) => ({ text, onSettled: undefined, deadline: null, dueAt: null, beforeHandOver: undefined })),
    );
    // Their reply was awaited on the socket that ended: it will not come.
    this.#stopWaiting();
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

  /**
   * Speech no service has answered was just sent again, with its end, on a new socket: its reply is
   * about to start, as after the user's own end of speech, so texts wait for it. Written with it, a
   * text became the turn the service answered and the user's question went unanswered (the fake
   * Gemini takes one turn end while one is pending; a Realtime response already under way refuses
   * a second), as the short day soak's /say "dropped (no reply within 30 s)" after the outage (#55).
   */
  replyExpected(): void {
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
    if (this.#closed || this.#confirming || this.#queue.length === 0 || !this.idle) return;
    if (this.#queue.some((item) => item.beforeHandOver)) {
      void this.#confirm();
      return;
    }
    const items = this.#queue;
    if (!this.#deliver(items.map((i) => i.text))) return;
    this.#queue = [];
    this.delivered += items.length;
    for (const item of items) {
      this.#clock.clearTimeout(item.deadline);
      settle(item, { delivered: true });
    }
    this.#waitForReply(this.#injectionReplyTimeoutMs);
  }

  /**
   * Ask every text that wants it whether it may go now; drop the refused ones, then flush if the
   * conversation is still idle (if not, the confirmed texts wait for the next pause, still confirmed).
   */
  async #confirm(): Promise<void> {
    this.#confirming = true;
    const asked = this.#queue.filter((item) => item.beforeHandOver);
    const answers = await Promise.all(asked.map((item) => item.beforeHandOver!().catch(() => false)));
    this.#confirming = false;
    asked.forEach((item, i) => {
      item.beforeHandOver = undefined;
      const at = this.#queue.indexOf(item);
      if (answers[i] || at < 0) return; // confirmed, or already dropped (deadline, overflow, close)
      this.#queue.splice(at, 1);
      this.#drop(item, 'refused');
    });
    this.tryFlush();
  }

  /**
   * The session gives up while the call stays: the texts still waiting leave it unsettled, each with
   * its sender's callbacks and what is left of its deadline, for the session opened when the model
   * is back. Later texts are refused (`call_ended`): the call's link holds them meanwhile.
   */
  take(): { text: string; delivery: TextDelivery }[] {
    this.#closed = true;
    this.#stopWaiting();
    const items = this.#queue;
    this.#queue = [];
    const now = this.#clock.now();
    return items.map((item) => {
      this.#clock.clearTimeout(item.deadline);
      // Already formatted for the model: sent as it is the second time.
      const delivery: TextDelivery = { asMessage: true };
      if (item.onSettled) delivery.onSettled = item.onSettled;
      if (item.beforeHandOver) delivery.beforeHandOver = item.beforeHandOver;
      if (item.dueAt !== null) delivery.deadlineMs = Math.max(0, item.dueAt - now);
      return { text: item.text, delivery };
    });
  }

  /** The call ended: everything still waiting is dropped (`call_ended`) and later texts too. */
  close(): void {
    this.#closed = true;
    this.#stopWaiting();
    const items = this.#queue;
    this.#queue = [];
    for (const item of items) this.#drop(item, 'call_ended');
  }

  #drop(item: QueuedText, reason: TextDropReason): void {
    this.#clock.clearTimeout(item.deadline);
    settle(item, { delivered: false, reason });
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

function settle(item: QueuedText, outcome: TextOutcome): void {
  const onSettled = item.onSettled;
  item.onSettled = undefined;
  onSettled?.(outcome);
}
