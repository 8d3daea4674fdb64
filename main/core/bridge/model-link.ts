// The model half of a call, apart from the bridge's state machine: one live model session at a
// time, which can be closed while the call itself (Discord voice, DAVE, the sidecar, the scheduler)
// stays up, and opened again with the call's context:
// - parked: closed on purpose while the room is quiet (park.ts decides when), reopened by a wake;
// - down: the provider gave up reconnecting (an outage longer than its own retries, ~34 s): a new
//   session is tried with capped back-off for as long as the call lasts, never ending the call.
// While no session is ready (parked, waking, down), what the call sends is held here (speech
// chunks, the end of an utterance, texts; speech bounded by `holdMs`) and handed to the next
// session in order, so the words that woke it, or were said in an outage, are heard. The speech is
// the unheard-speech store under its 'until a session is up' policy (audio/unheard-speech.ts); the
// texts are a short list beside it, each placed by the number of the speech entry it came before:
// a text is never evicted, never cut like a pause, and carries its delivery (a deadline, a settle
// callback), none of which belongs in a ring of samples.
//
// Sessions are driven only through the provider contract (ports.ts): close(), and connect() with a
// system instruction that carries the call's recent transcript (the re-seed; see seed.ts). A wake
// resumes the parked session by its handle while the handle is valid (Gemini), so the model keeps
// the whole conversation; a refused handle makes the provider open a fresh session with that seed.
import type { Logger } from 'pino';
import type {
  LiveModelConnectOptions,
  LiveModelProvider,
  LiveModelSession,
  LiveModelUsage,
  TextDelivery,
} from '../ports.ts';
import { UnheardSpeech, untilSessionUp } from '../audio/index.ts';
import { sumLiveUsage } from '../usage/live-usage.ts';

export type ModelLinkState = 'open' | 'parked' | 'waking' | 'down' | 'closed';

/**
 * The call the link serves. The link is built before the parts that use it (they send through it
 * and read its session), so the call is given to it once, after them (`serve`, call-assembly.ts).
 */
export interface ModelLinkCall {
  /** Options for a session opened mid-call: persona + the call's recent transcript, tools. */
  sessionOptions(): LiveModelConnectOptions;
  /** Wire a new session into the call (its events, the tool dispatcher); returns the unwiring. */
  bind(session: LiveModelSession): () => void;
  /** The link's state changed (the bridge maps it to its own: parked, reconnecting, connected). */
  linkChanged(state: ModelLinkState, reason?: string): void;
}

export interface ModelLinkOptions {
  provider: LiveModelProvider;
  logger: Logger;
  /** Monotonic ms clock. */
  now: () => number;
  /** Back-off between attempts to reopen after an outage: doubling from `initialMs`, capped at `maxMs`. */
  retry?: { initialMs: number; maxMs: number } | undefined;
  /** Speech held while no session is ready, at most this many ms of 16 kHz audio (oldest dropped). */
  holdMs?: number;
  /** Asked before a wake: a reason to stay parked (the daily cost cap), or null. */
  wakeRefusal?: () => string | null;
  /** A wake happened: its cause and how long until the session was ready (cost and latency figures). */
  onWake?: (wake: { cause: string; readyMs: number }) => void;
}

const DEFAULT_RETRY = { initialMs: 1000, maxMs: 30_000 };
const DEFAULT_HOLD_MS = 30_000;
/**
 * How long after a park its resumption handle is used. Gemini keeps a handle valid for 2 h after
 * the session ended (ai.google.dev Live API "Session management": "resumption tokens are valid for
 * 2 hrs after the last session termination"); 5 min of margin. Past it, or when the service refuses
 * the handle anyway (the 58:00 session deadline), a fresh seeded session opens.
 */
const RESUME_VALID_MS = 115 * 60_000;
/** A held utterance the model does not answer (noise, a cough) holds the next ones back at most this long. */
const HAND_OVER_WAIT_MS = 10_000;
/** A text held for the next session, before the speech entry numbered `before` (UnheardSpeech.nextSeq). */
interface HeldText {
  before: number;
  text: string;
  delivery?: TextDelivery;
}

export class ModelLink {
  readonly #o: ModelLinkOptions;
  #session: LiveModelSession | null = null;
  #unbind: (() => void) | null = null;
  #state: ModelLinkState = 'closed';
  /** Speech and its ends held while no session is ready (or behind a hand-over); the texts beside it. */
  readonly #held: UnheardSpeech;
  readonly #heldTexts: HeldText[] = [];
  /** The open attempt in progress (a wake or an outage retry), so two causes share one. */
  #opening: Promise<void> | null = null;
  #retryTimer: NodeJS.Timeout | null = null;
  #retryDelayMs: number;
  #downSince: number | null = null;
  /** Usage of the call's sessions already closed (a parked call's cost is the sum). */
  #closedUsage: LiveModelUsage = {};
  /** ms a session was open, for the sessions already closed, and when the open one opened. */
  #connectedMs = 0;
  #openedAt: number | null = null;
  #parks = 0;
  #wakes = 0;
  /** Wake → session ready, ms, for the last 100 wakes of the call. */
  #wakeReadyMs: number[] = [];
  /** 16 kHz samples of speech the call sent to the model (held ones included). */
  #speechSamples = 0;
  /** The hold's evicted samples when this call began (held speech that gave way to newer is counted from there). */
  #heldDroppedBase = 0;
  /** Bumped by close(): an open attempt of an ended call drops what it opened. */
  #generation = 0;
  /** The parked session's resumption handle and when it was parked, for the next wake. */
  #resume: { handle: string; parkedAt: number } | null = null;
  /**
   * Held utterances are handed to a new session one per model turn: the next goes when the model
   * has answered the one before (or after HAND_OVER_WAIT_MS). Meanwhile what the call sends queues
   * behind them. Written back to back, the service took the second utterance as a barge-in on its
   * answer to the first, and the day soak lost one word of each such pair (issue #55).
   */
  #handOver: { timer: NodeJS.Timeout; off: () => void } | null = null;

  #call: ModelLinkCall | null = null;

  constructor(options: ModelLinkOptions) {
    this.#o = options;
    this.#retryDelayMs = options.retry?.initialMs ?? DEFAULT_RETRY.initialMs;
    this.#held = new UnheardSpeech(untilSessionUp(options.holdMs ?? DEFAULT_HOLD_MS));
  }

  /** The call this link serves (once: a second call is a wiring mistake). */
  serve(call: ModelLinkCall): void {
    if (this.#call !== null) throw new Error('the model link already serves a call');
    this.#call = call;
  }

  get #served(): ModelLinkCall {
    if (this.#call === null) throw new Error('the model link serves no call yet');
    return this.#call;
  }

  get state(): ModelLinkState {
    return this.#state;
  }

  /** The session carrying the call now, or null (parked, waking, down, or no call). */
  get session(): LiveModelSession | null {
    return this.#session;
  }

  /** The call's first session (opened by the bridge together with the Discord join). */
  adopt(session: LiveModelSession): void {
    this.#generation++;
    this.#closedUsage = {};
    this.#connectedMs = 0;
    this.#parks = 0;
    this.#wakes = 0;
    this.#speechSamples = 0;
    this.#heldDroppedBase = this.#held.evictedSamples;
    this.#wakeReadyMs = [];
    this.#resume = null;
    this.#attach(session);
  }

  /** 16 kHz speech for the model: sent now, or held (and the model woken) while no session is up. */
  sendAudio(pcm: Int16Array): void {
    this.#speechSamples += pcm.length;
    if (this.#session && !this.#handOver) {
      this.#session.sendAudio(pcm);
      return;
    }
    if (this.#state === 'closed') return;
    // Held in an outage too (the day soak lost every word said while the model was unreachable,
    // issue #55): the session that opens when it is back hears the last `holdMs` of it, in order
    // with its ends, and answers late rather than never. Older speech gives way (counted); a
    // paced pause past 1 s is not kept (the policy).
    if (!this.#held.push(pcm)) return;
    // A wake opens a parked call; in an outage the retries (#scheduleRetry) are already under way.
    if (this.#state !== 'down') void this.wake('speech');
  }

  endAudioInput(): void {
    if (this.#session && !this.#handOver) this.#session.endAudioInput();
    // Held after held speech only: an end with no speech before it tells a session nothing.
    else if (this.#state !== 'closed') this.#held.end();
  }

  /** Text for the model's next turn: sent now, or held for the session a wake opens. */
  sendText(text: string, delivery?: TextDelivery): void {
    if (this.#session && !this.#handOver) {
      this.#session.sendText(text, delivery);
      return;
    }
    if (this.#state === 'closed') {
      delivery?.onSettled?.({ delivered: false, reason: 'call_ended' });
      return;
    }
    this.#holdText({ before: this.#held.nextSeq, text, ...(delivery ? { delivery } : {}) }, 'last');
    void this.wake('text');
  }

  /** A text held for the next session; one with a deadline no session took in time is dropped. */
  #holdText(item: HeldText, where: 'first' | 'last'): void {
    const { delivery } = item;
    if (where === 'first') this.#heldTexts.unshift(item);
    else this.#heldTexts.push(item);
    // A text with a deadline that no session took in time (an outage) is dropped, as the session's
    // own queue would drop it: the notifier then delivers it elsewhere, never twice.
    if (delivery?.deadlineMs !== undefined) {
      setTimeout(() => {
        const at = this.#heldTexts.indexOf(item);
        if (at < 0) return;
        this.#heldTexts.splice(at, 1);
        delivery.onSettled?.({ delivered: false, reason: 'timeout' });
      }, delivery.deadlineMs).unref();
    }
  }

  /** Close the session while the call stays up. Held input (there should be none) stays held. */
  async park(reason: string): Promise<void> {
    if (this.#state !== 'open' || !this.#session) return;
    this.#parks++;
    const handle = this.#session.resumeHandle?.() ?? null;
    this.#resume = handle ? { handle, parkedAt: this.#o.now() } : null;
    this.#setState('parked', reason);
    await this.#detach();
  }

  /** Reopen a parked call (speech, push-to-talk, a text): resolves when the session is up. */
  wake(cause: string): Promise<void> {
    if (this.#state !== 'parked' && this.#state !== 'waking') return this.#opening ?? Promise.resolve();
    if (this.#opening) return this.#opening;
    const refusal = this.#o.wakeRefusal?.();
    if (refusal) {
      // Stays parked: what would have woken it is dropped, not kept for a later day.
      this.#dropHeld('refused');
      return Promise.resolve();
    }
    const started = this.#o.now();
    this.#wakes++;
    this.#setState('waking', cause);
    const generation = this.#generation;
    this.#opening = this.#open(generation, this.#takeResumeHandle()).then(
      () => {
        this.#opening = null;
        if (generation !== this.#generation) return;
        const readyMs = this.#o.now() - started;
        this.#wakeReadyMs.push(Math.round(readyMs));
        if (this.#wakeReadyMs.length > 100) this.#wakeReadyMs.shift();
        this.#o.onWake?.({ cause, readyMs });
      },
      (err: unknown) => {
        this.#opening = null;
        if (generation === this.#generation)
          this.#lost(`could not reopen the model: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
    return this.#opening;
  }

  /**
   * The session gave up (its own reconnects exhausted) or ended under the call: the call stays,
   * and a new session is tried with capped back-off until one opens or the call ends.
   */
  lost(reason: string): void {
    this.#lost(reason);
  }

  /** The call ended: close the session, forget what was held, stop retrying. */
  async close(): Promise<void> {
    this.#generation++;
    this.#clearRetry();
    this.#setState('closed');
    this.#resume = null;
    this.#stopHandOver();
    this.#dropHeld('call_ended');
    await this.#detach();
  }

  /** Usage of every session of this call (parks and outages open several). */
  usage(): LiveModelUsage {
    return sumLiveUsage(this.#closedUsage, this.#session?.usage?.());
  }

  /** What the call's model connection cost in time, and how often it was parked and woken. */
  figures(): {
    connectedSeconds: number;
    speechSeconds: number;
    heldSpeechDroppedSeconds: number;
    parks: number;
    wakes: number;
    wakeReadyMs: number[];
    downSince: number | null;
  } {
    const open = this.#openedAt === null ? 0 : this.#o.now() - this.#openedAt;
    return {
      connectedSeconds: (this.#connectedMs + open) / 1000,
      speechSeconds: this.#speechSamples / 16_000,
      heldSpeechDroppedSeconds: (this.#held.evictedSamples - this.#heldDroppedBase) / 16_000,
      parks: this.#parks,
      wakes: this.#wakes,
      wakeReadyMs: [...this.#wakeReadyMs],
      downSince: this.#downSince,
    };
  }

  /** The parked session's handle while it is valid (used once), else null: a fresh seeded session. */
  #takeResumeHandle(): string | null {
    const resume = this.#resume;
    this.#resume = null;
    return resume && this.#o.now() - resume.parkedAt < RESUME_VALID_MS ? resume.handle : null;
  }

  #attach(session: LiveModelSession): void {
    this.#session = session;
    this.#openedAt = this.#o.now();
    this.#unbind = this.#served.bind(session);
    this.#retryDelayMs = this.#o.retry?.initialMs ?? DEFAULT_RETRY.initialMs;
    this.#downSince = null;
    this.#setState('open');
    this.#flushHeld(session);
  }

  async #detach(): Promise<void> {
    const session = this.#session;
    if (!session) return;
    // What is still held waits for the next session.
    this.#stopHandOver();
    this.#session = null;
    this.#unbind?.();
    this.#unbind = null;
    this.#closedUsage = sumLiveUsage(this.#closedUsage, session.usage?.());
    if (this.#openedAt !== null) this.#connectedMs += this.#o.now() - this.#openedAt;
    this.#openedAt = null;
    await session.close().catch((err: unknown) => this.#o.logger.warn({ err }, 'closing the model session failed'));
  }

  async #open(generation: number, resumeHandle: string | null = null): Promise<void> {
    // The seeded instruction goes along with the handle: it is what a refused resume opens with.
    const options = this.#served.sessionOptions();
    const session = await this.#o.provider.connect(resumeHandle ? { ...options, resumeHandle } : options);
    if (generation !== this.#generation || this.#state === 'closed') {
      await session.close().catch(() => undefined);
      return;
    }
    this.#attach(session);
  }

  #lost(reason: string): void {
    if (this.#state === 'closed') return;
    this.#downSince ??= Date.now();
    this.#takeUnanswered();
    this.#takeTexts();
    void this.#detach();
    const maxS = Math.round((this.#o.retry?.maxMs ?? DEFAULT_RETRY.maxMs) / 1000);
    this.#setState(
      'down',
      `model unreachable since ${new Date(this.#downSince).toISOString()} (${reason}); retrying (at most ${maxS} s apart) until it is back, the call stays`,
    );
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (this.#retryTimer || this.#state !== 'down') return;
    const delay = this.#retryDelayMs;
    this.#retryDelayMs = Math.min(delay * 2, this.#o.retry?.maxMs ?? DEFAULT_RETRY.maxMs);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      if (this.#state !== 'down' || this.#opening) return;
      const generation = this.#generation;
      this.#o.logger.info('trying the model again after an outage');
      this.#opening = this.#open(generation).then(
        () => {
          this.#opening = null;
        },
        (err: unknown) => {
          this.#opening = null;
          if (generation !== this.#generation) return;
          this.#o.logger.warn(
            { err: err instanceof Error ? err.message : String(err) },
            'the model is still unreachable',
          );
          this.#scheduleRetry();
        },
      );
    }, delay);
  }

  #clearRetry(): void {
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
  }

  /**
   * What waited for a session, in the order it came: the first words, their end, texts. An
   * utterance with more held speech after it is answered before the next is sent (#handOver).
   */
  #flushHeld(session: LiveModelSession): void {
    this.#stopHandOver();
    this.#held.replay(
      (pcm, seq) => {
        this.#flushTexts(session, seq);
        session.sendAudio(pcm);
      },
      (seq) => {
        this.#flushTexts(session, seq);
        session.endAudioInput();
      },
      'an utterance',
    );
    // Stopped after an utterance with more held speech behind it: the rest waits for the answer.
    if (!this.#held.hasSpeech) {
      this.#flushTexts(session, Infinity);
      return;
    }
    const next = (): void => {
      if (this.#session === session) this.#flushHeld(session);
    };
    // The answer is a turn that ends whole. One the service cut is not: the utterance's own later
    // words (a second speaker, a pause the service took for a turn's end) cut the reply to its first
    // part, and advancing on that cut turn's end sent the next utterance into the reply to this
    // one, cutting it before a word, and so on down the queue (the day soak's outage: short run 14).
    let cut = false;
    const onCut = (): void => void (cut = true);
    const onTurnEnd = (): void => {
      if (!cut) return next();
      cut = false;
    };
    session.on('interrupted', onCut);
    session.on('turnComplete', onTurnEnd);
    this.#handOver = {
      timer: setTimeout(next, HAND_OVER_WAIT_MS),
      off: () => {
        session.off('interrupted', onCut);
        session.off('turnComplete', onTurnEnd);
      },
    };
  }

  /** The held texts that came before speech entry `seq`, to the session. */
  #flushTexts(session: LiveModelSession, seq: number): void {
    while (this.#heldTexts.length > 0 && this.#heldTexts[0]!.before <= seq) {
      const { text, delivery } = this.#heldTexts.shift()!;
      session.sendText(text, delivery);
    }
  }

  #stopHandOver(): void {
    if (!this.#handOver) return;
    clearTimeout(this.#handOver.timer);
    this.#handOver.off();
    this.#handOver = null;
  }

  /**
   * The session that gave up still holds what the user said while it retried (and what a silent
   * socket never answered): held here ahead of anything newer, for the session opened when the
   * model is back. Without it those words went with the session (the day soak, issue #55).
   */
  #takeUnanswered(): void {
    const taken = this.#session?.takeUnanswered?.() ?? [];
    if (taken.length > 0) this.#held.prepend(taken);
  }

  /**
   * And the texts it still held for a pause (a /say in an outage): they go to the next session
   * ahead of newer ones, each with its sender's callbacks. Without it they were dropped as "the call
   * ended" though the call went on (the day soak's CLI, issue #55).
   */
  #takeTexts(): void {
    const taken = this.#session?.takeTexts?.() ?? [];
    // Before the first text already held, so the list stays in the order it flushes (#flushTexts).
    const before = Math.min(this.#held.nextSeq, this.#heldTexts[0]?.before ?? Infinity);
    for (const { text, delivery } of taken.reverse()) this.#holdText({ before, text, delivery }, 'first');
  }

  #dropHeld(reason: 'refused' | 'call_ended'): void {
    this.#held.clear();
    for (const { delivery } of this.#heldTexts.splice(0)) delivery?.onSettled?.({ delivered: false, reason });
  }

  #setState(state: ModelLinkState, reason?: string): void {
    if (this.#state === state && state !== 'down') return;
    this.#state = state;
    this.#served.linkChanged(state, reason);
  }
}
