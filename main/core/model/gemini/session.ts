// One conversation with Gemini Live, which may span several WebSockets and several service
// sessions (docs/gemini.md "Resumption, goAway and reconnects" tells the whole story):
// - a socket's end (goAway, a close, a stall) is bridged by resuming with the latest handle; the
//   turn it carried ends explicitly; user audio is held meanwhile and what the resumed session has
//   not heard is sent again (exactly, with transparent resumption: unconsumed-tail.ts);
// - a refused resume (the 58:00 session deadline) or a renewal before it opens a fresh session
//   seeded with the call so far (session-context.ts);
// - tool calls are answered on the socket that asked; a result a resume would lose is kept, given to
//   the same call asked again or as text, never run twice; texts a resume would lose are written
//   again (held-texts.ts);
// - reconnects back off after quick deaths; a rejected key stops at once (`error`), an unknown
//   model moves to the next fallback model.
import type { LiveServerMessage } from '@google/genai';
import type { Patience } from '../../contracts/patience.ts';
import type {
  ConversationSeed,
  FrameSendResult,
  LiveModelSession,
  LiveModelUsage,
  ToolCallResult,
} from '../../ports.ts';
import { backoffDelayMs } from '../session-core/fallback.ts';
import { ModelSessionCore } from '../session-core/model-session.ts';
import { ModelTurn } from '../session-core/model-turn.ts';
import { decodePcm } from '../wire/pcm-codec.ts';
import { GeminiAudioInput } from './audio-input.ts';
import type { GeminiConnection } from './connection.ts';
import { GeminiDialer } from './dialer.ts';
import { parseDurationMs } from './setup.ts';
import { writeContext, writeFrame, writeTexts } from './writes.ts';
import { HeldTexts } from '../held-texts.ts';
import { StallWatch } from './stall-watch.ts';
import { SessionContext, type ContextUpdate } from './session-context.ts';
import { GoAwaySwitch } from './switch-over.ts';
import { GeminiToolReplay } from './tool-replay.ts';
import { TurnUsage } from './turn-usage.ts';
import { GeminiModelOutput } from './model-output.ts';
import { newSessionCounters, type GeminiSessionOptions, type GeminiSessionStats } from './session-options.ts';

export { INPUT_AUDIO_MIME } from './audio-input.ts';

export type { BackoffOptions, GeminiSessionOptions, GeminiSessionStats } from './session-options.ts';

export class GeminiLiveSession extends ModelSessionCore implements LiveModelSession {
  readonly #o: GeminiSessionOptions;
  #active: GeminiConnection | null = null;
  #draining = new Set<GeminiConnection>();
  readonly #usage = new TurnUsage();
  /** The latest handle was issued after the last model activity (safe to resume from). */
  #handleFresh = false;
  /** The model's turn and the socket carrying it: if it closes mid-turn, that turn is over. */
  readonly #turn = new ModelTurn<GeminiConnection>();
  readonly #switch: GoAwaySwitch;
  readonly #dialer: GeminiDialer;
  readonly #stall: StallWatch;
  readonly #context: SessionContext;
  /** Texts written on a socket and not yet covered by its handle: written again if it ends first. */
  readonly #heldTexts = new HeldTexts<GeminiConnection>();
  /** Texts handed back after their socket ended, at the queue's head: written again, not watched again. */
  #textsAgain = 0;
  /** The model reported `interactionStatus: IN_PROGRESS` (extended thinking): not idle yet. */
  #modelWorking = false;
  /** Unexpected closes in a row of sockets that lived less than `stableMs`. */
  #quickDeaths = 0;
  /**
   * A tool call was asked on the active socket and no resumable handle came after it: the user's
   * question stays unanswered (a resume from an older handle has not heard it).
   */
  #keepUnanswered = false;
  /** User audio: live, held, and kept for a resume. */
  readonly #audio: GeminiAudioInput;
  readonly #tools: GeminiToolReplay;
  /** What the model says and asks on a socket (model-output.ts); this file reads the control messages. */
  readonly #output: GeminiModelOutput;
  readonly #stats = newSessionCounters();

  constructor(options: GeminiSessionOptions) {
    super(options);
    this.#o = options;
    this.#audio = new GeminiAudioInput(options.holdAudioMs, options.replayTailMs ?? 30_000);
    this.#tools = new GeminiToolReplay({
      clock: options.clock,
      logger: options.logger,
      reaskWaitMs: options.reaskWaitMs ?? 1500,
      active: () => this.#active,
      closed: () => this.life.closed,
      replyingOn: (connection) => this.#turn.openOn(connection),
      enqueueText: (text, delivery) => this.texts.enqueue(text, delivery),
      runCall: (call) => this.emit('toolCall', call),
      replayed: () => this.#stats.toolResultsReplayed++,
    });
    this.#switch = this.#newSwitch(options);
    this.#dialer = new GeminiDialer(
      {
        ...options,
        handlers: {
          onMessage: (m, c) => this.#onMessage(m, c),
          onClose: (code, reason, c) => this.#onClose(code, reason, c),
          onBadMessage: (reason, fatal, c) => this.#switch.badMessage(reason, fatal, c),
        },
        configFor: (handle) => this.#context.configFor(handle),
        sessionBegan: (seeded) => this.#sessionBegan(seeded),
        counted: (counter) => this.#stats[counter]++,
      },
      options.resumeHandle ?? null,
      options.transparentResumption ?? true,
    );
    this.#context = new SessionContext({
      ...options,
      renewAfterMs: options.sessionRenewAfterMs === undefined ? 55 * 60_000 : options.sessionRenewAfterMs,
      onRenewDue: () => this.#maybeSwitch(),
    });
    this.#stall = new StallWatch({
      clock: options.clock,
      stallMs: options.stallMs,
      midTurn: () => this.#active !== null && this.#turn.openOn(this.#active) && this.#tools.inFlight === 0,
      onStall: (silentMs, awaited) => this.#switch.stalled(silentMs, awaited),
    });
    this.#output = new GeminiModelOutput({
      logger: options.logger,
      events: this,
      turn: this.#turn,
      usage: this.#usage,
      stall: this.#stall,
      context: this.#context,
      tools: this.#tools,
      active: () => this.#active,
      modelActivity: (connection) => this.#modelActivity(connection),
      toolAsked: (connection) => {
        // The question that led to this call is not safe until a resumable handle comes after it.
        if (connection === this.#active) this.#keepUnanswered = true;
        this.#modelActivity(connection);
      },
      turnCompleted: (working) => {
        this.#modelWorking = working;
        this.endTurn({ releaseTexts: !working });
      },
    });
  }

  /** The goAway switch-over and its view of this session (switch-over.ts). */
  #newSwitch(options: GeminiSessionOptions): GoAwaySwitch {
    return new GoAwaySwitch({
      clock: options.clock,
      logger: options.logger,
      switchMarginMs: options.switchMarginMs,
      drainMs: options.drainMs,
      active: () => this.#active,
      closed: () => this.life.closed,
      reconnecting: () => this.life.reconnecting,
      idle: () => this.#idleForSwitch(),
      openNext: () => this.#dialer.open(this.model),
      adopt: (old, next) => {
        if (this.#active === old) this.#draining.add(old);
        else this.life.set('connected', 'resumed');
        this.#adopt(next);
      },
      release: (old) => {
        if (this.#draining.delete(old)) old.close();
      },
      replace: (old, reason, announce) => this.#replace(old, reason, { announce }),
      reconnect: (reason) => void this.#reconnect(reason, { announce: true }),
      counted: (counter) => ++this.#stats[counter],
    });
  }

  usage(): LiveModelUsage {
    return this.#usage.total;
  }

  /** The latest handle, if issued after the model's last activity (a parked call resumes from it). */
  resumeHandle = (): string | null => (this.#handleFresh ? this.#dialer.handle : null);

  get stats(): GeminiSessionStats {
    return {
      ...this.#stats,
      reconnects: this.life.reconnects,
      audioChunksDropped: this.#stats.audioChunksDropped + Math.ceil(this.#audio.droppedSamples / 320),
      audioChunksHeld: this.#audio.heldChunks,
      textsDelivered: this.texts.delivered,
      textsQueued: this.texts.size,
      frames: { ...this.frames.stats },
      replayedMs: Math.round(this.#audio.replayedSamples / 16),
    };
  }

  protected async connect(): Promise<void> {
    this.#adopt(await this.#dial());
  }

  // --- input -------------------------------------------------------------------------------

  sendAudio(pcm16kMono: Int16Array): void {
    if (this.life.closed) return;
    this.texts.userAudio();
    this.#audio.send(this.#active, pcm16kMono);
  }

  endAudioInput(): void {
    if (this.#audio.end(this.#active)) this.#stall.awaitReply();
    this.texts.userAudioEnded();
  }

  /** Activity detection is set only in a setup: the new patience applies from the next resume or socket. */
  setPatience(patience: Patience): void {
    this.#context.patience = patience;
  }

  protected override textQueued(text: string): void {
    this.#heldTexts.expect(text);
  }

  addContext(text: string): boolean {
    const sdk = this.#active?.sdk;
    return sdk ? writeContext(sdk, this.model, text) : false;
  }

  sendToolResult(result: ToolCallResult): void {
    this.#tools.answer(result);
    this.#maybeSwitch();
  }

  async close(): Promise<void> {
    if (!this.closeCore()) return;
    this.#switch.close();
    this.#stall.stop();
    this.#context.close();
    this.#tools.close();
    this.#audio.clear();
    this.#active?.close();
    for (const connection of this.#draining) connection.close();
    this.#active = null;
    this.#draining.clear();
    this.life.set('disconnected', 'closed');
  }

  // --- connections -------------------------------------------------------------------------

  /** A new service session (not a resume): seeded when it continues the call; its deadline clock starts. */
  #sessionBegan(seeded: boolean): void {
    if (seeded) this.#stats.freshSessions++;
    this.#audio.sessionBegan();
    this.#context.sessionBegan();
  }

  /** The user's speech no service answered, for the session the bridge opens when this one gave up. */
  takeUnanswered(): (Int16Array | null)[] {
    return this.#audio.takeUnanswered();
  }

  /** The call so far, for a fresh session (ours after a refused resume, or one the bridge opens). */
  conversationSeed(): ConversationSeed {
    return this.#context.seed();
  }

  /** Persona and tools mid-call where the model allows it; always from the next socket (session-context.ts). */
  updateContext(update: ContextUpdate): boolean {
    return this.#context.update(update, this.#active?.sdk ?? null, this.model);
  }

  /** Tries the current model, then the fallbacks (session-core/fallback.ts, dialer.ts). */
  #dial(): Promise<GeminiConnection> {
    return this.dial(this.#dialer.round());
  }

  #adopt(connection: GeminiConnection): void {
    if (this.life.closed) {
      connection.close();
      return;
    }
    this.#active = connection;
    this.#switch.reset();
    this.#stall.reset();
    // What the user said while no socket was ready goes first, in order.
    if (this.#audio.adopt(connection, this.#dialer.lastOpenResumed, this.#o.logger)) {
      this.#stall.awaitReply();
      this.texts.replyExpected();
    }
    this.#tools.adopted(connection);
    this.texts.tryFlush();
  }

  /**
   * A socket ended (closed by either side, or replaced): whatever turn it carried is over. The
   * bridge hears `turnComplete`, which lifts a barge-in mute and writes the transcript, so the first
   * reply on the next socket is heard. Calls it asked that are still running are remembered by
   * identity, so the same call asked again after the resume gets their result.
   */
  #endSocketTurn(connection: GeminiConnection): void {
    if (connection === this.#active || this.#active === null) {
      this.#audio.socketEnded();
      this.#keepUnanswered = false;
    }
    this.#tools.socketEnded(connection);
    this.#modelWorking = false;
    const { again: texts, answered } = this.#heldTexts.lost(connection);
    if (answered > 0)
      this.#o.logger.info(
        { connection: connection.id, texts: answered },
        'texts the model had begun answering on a socket that ended: not written again (they would be said twice)',
      );
    if (texts.length > 0 && !this.life.closed) {
      this.#o.logger.info(
        { connection: connection.id, texts: texts.length },
        'texts written on a socket that ended before a handle covered them: delivered again on the next',
      );
      this.#heldTexts.expectAgain(texts);
      this.#textsAgain += texts.length;
      this.texts.requeue(texts);
    }
    if (!this.life.closed && this.#turn.socketEnded(connection)) {
      this.texts.modelTurnEnded();
      this.emit('turnComplete');
    }
    this.#tools.forgetInFlightOf(connection);
  }

  #onClose(code: number, reason: string, connection: GeminiConnection): void {
    this.#endSocketTurn(connection);
    if (this.#draining.delete(connection) || this.life.closed || connection.closedByUs) return;
    if (connection !== this.#active) return;
    this.#active = null;
    this.#stall.stop();
    // The session deadline (58:00 on 3.8): 1011 "Deadline expired" with no goAway. Planned, like a goAway's.
    const sessionDeadline = !this.#switch.announced && code === 1011 && /deadline expired/i.test(reason);
    if (sessionDeadline) this.#stats.deadlines++;
    const planned = this.#switch.announced || sessionDeadline;
    const lived = this.#o.clock.now() - connection.openedAt;
    this.#quickDeaths = planned ? 0 : lived < this.#o.stableMs ? this.#quickDeaths + 1 : 0;
    this.#o.logger.warn(
      { code, reason, connection: connection.id, livedMs: Math.round(lived), planned },
      'gemini live connection closed',
    );
    // Mid switch-over the next socket is already being dialled: let the switch-over (switch-over.ts) adopt it.
    if (this.#switch.switching) return;
    const why = `connection closed (${code}${reason ? `: ${reason}` : ''})`;
    void this.#reconnect(why, { announce: !planned });
  }

  /**
   * Opens the next socket (resuming) and adopts it. `announce: false` for a planned rotation: the
   * call does not go through `reconnecting`, input is held meanwhile.
   */
  #reconnect(reason: string, options: { announce: boolean }): Promise<void> {
    const connect = async (): Promise<void> => {
      // Sockets that die right after setup would otherwise be redialled in a tight loop.
      if (this.#quickDeaths > 0) await this.life.sleep(backoffDelayMs(this.#o.backoff, this.#quickDeaths));
      this.#adopt(await this.#dial());
    };
    return this.life.reconnect(
      reason,
      connect,
      () => (this.#dialer.lastOpenResumed ? 'resumed' : 'new conversation (could not resume)'),
      options,
    );
  }

  /**
   * Ends `old` ourselves and resumes on a new socket at once (one socket per session): input is
   * held from this moment until the new socket is up. The service counts the old socket until its
   * close handshake is done, so the new socket dials at once (TCP/TLS/WebSocket handshake in
   * parallel with the close) but sends its `setup` only after the old socket has closed.
   */
  async #replace(old: GeminiConnection, reason: string, options: { announce: boolean }): Promise<void> {
    if (this.life.closed) return;
    if (this.#active === old) this.#active = null;
    this.#stall.stop();
    this.#endSocketTurn(old);
    this.#dialer.setupAfter(Promise.race([old.closed, this.life.sleep(2000)]));
    old.close();
    await this.#reconnect(reason, options);
    // Unused when a reconnect was already under way (its socket dialled before this close).
    this.#dialer.setupAfter(null);
  }

  // --- goAway switch-over ------------------------------------------------------------------

  /** Switch as soon as nothing would be lost: no reply or tool call in flight, handle up to date. */
  #maybeSwitch(): void {
    if (this.#context.renewDue && !this.#switch.switching && !this.life.reconnecting && this.#idleForSwitch())
      return this.#renew();
    this.#switch.maybe();
  }

  #idleForSwitch(): boolean {
    return (
      !this.#turn.open &&
      !this.#turn.interruptPending &&
      !this.#modelWorking &&
      this.#tools.inFlight === 0 &&
      this.#handleFresh &&
      this.#active !== null
    );
  }

  /** Before the session deadline, at an idle point: a fresh seeded session (a resume keeps the deadline). */
  #renew(): void {
    const old = this.#active!;
    this.#context.renewDue = false;
    this.#stats.renewals++;
    this.#dialer.handle = null;
    this.#o.logger.info({ from: old.id }, 'gemini live session renewed before its deadline (fresh session, seeded)');
    void this.#replace(old, 'session renewal before its deadline', { announce: false });
  }

  // --- output ------------------------------------------------------------------------------

  #onMessage(message: LiveServerMessage, connection: GeminiConnection): void {
    if (this.life.closed) return;
    if (connection === this.#active) this.#stall.serverMessage();
    // A socket we ended ourselves (replaced, or released after draining) still delivers what the
    // service sent before it saw our close. Its turn has been ended (or ends with its close), so
    // that output belongs to a cut turn: it is dropped, or it would reopen the turn (a blip of
    // audio after the cut, and a second turnComplete when the socket closes). Usage still counts.
    const cutOff = connection.closedByUs && !this.#draining.has(connection);
    this.#output.read(message, connection, cutOff);
    const update = message.sessionResumptionUpdate;
    // Not only the active socket: the SDK delivers messages that arrive with setupComplete before
    // connect() returns, i.e. before the new connection is adopted. Only a replaced one is ignored.
    if (update && !this.#draining.has(connection) && !connection.closedByUs) {
      if (update.resumable && update.newHandle) {
        this.#dialer.handle = update.newHandle;
        // Transparent resumption: the handle's state includes client messages up to this index.
        const raw = update.lastConsumedClientMessageIndex;
        const index = raw === undefined ? undefined : Number(raw);
        this.#audio.handle(connection, index);
        this.#heldTexts.covered(connection, index);
        // A handle covers what the service consumed so far: a resume from it need not replay that.
        this.#tools.covered(connection, connection === this.#active);
        if (connection === this.#active) {
          this.#audio.covered();
          this.#keepUnanswered = false;
        }
        this.#handleFresh = !this.#turn.open && this.#tools.inFlight === 0;
        this.#maybeSwitch();
      } else {
        this.#handleFresh = false;
      }
    }
    if (message.goAway) {
      this.#switch.goAway(connection, parseDurationMs(message.goAway.timeLeft) ?? 10_000);
      this.#maybeSwitch();
    }
  }

  #modelActivity(connection: GeminiConnection): void {
    this.#usage.activity();
    // The model answers: what it was answering no longer needs replaying (unless it asked a tool:
    // then only a resumable handle after the call makes the question safe).
    if (connection === this.#active && !this.#keepUnanswered) this.#audio.answered();
    // Output after `interrupted` with no turnComplete between: the service moved on to a new turn.
    // The interrupted one ends here, or the bridge would keep this reply muted as part of it.
    const { wasOpen, endedCut } = this.#turn.output(connection);
    if (endedCut) this.emit('turnComplete');
    // The reply began: the utterance it answers is not sent again after a resume (it would be answered twice).
    if (!wasOpen && connection === this.#active && !this.#keepUnanswered) this.#audio.replyBegan();
    // Nor the texts written before it: the user is hearing the model's answer to them.
    if (!this.#keepUnanswered) this.#heldTexts.replyBegan(connection);
    this.#handleFresh = false;
    this.modelActivity();
    // The model's first output of a turn: the service has ended the user's.
    if (!wasOpen) this.emit('userTurnEnded');
    if (connection === this.#active) this.#stall.modelActivity(wasOpen);
    else this.#stall.replyBegan();
  }

  protected deliverTexts(texts: readonly string[]): boolean {
    const active = this.#active;
    const sdk = active?.sdk;
    if (!active || !sdk) return false;
    this.#heldTexts.written(active, active.nextMessageIndex, texts);
    writeTexts(sdk, this.model, texts);
    // A text turn owes a reply as a finished utterance does: a socket that stays silent after it has
    // stalled, and the resume writes the text again (held-texts.ts). Unwatched, the day soak's /ask
    // on a socket that went silent between turns waited 30 s and was dropped (e03aac2, #55). A text
    // written again is not watched again: a model that never answers costs one resume, not a loop.
    if (texts.length > this.#textsAgain) this.#stall.awaitReply();
    this.#textsAgain = 0;
    this.#o.logger.debug({ count: texts.length }, 'injected text delivered to the model');
    return true;
  }

  protected sendFrameNow(image: Buffer): Promise<FrameSendResult> {
    return writeFrame(image, () => this.#active?.sdk ?? null);
  }
}

export { decodePcm };
