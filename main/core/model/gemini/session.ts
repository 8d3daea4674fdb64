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
import type { ConversationSeed, FrameSendResult, LiveModelSession, LiveModelUsage, ToolCallResult } from '../../ports.ts';
import type { TimerHandle } from '../clock.ts';
import { toModelFrame } from '../frame-converter.ts';
import { faultCounts } from '../../faults.ts';
import { backoffDelayMs, type FailureKind, type Recovery } from '../session-core/fallback.ts';
import { ModelSessionCore } from '../session-core/model-session.ts';
import type { ConnectFailure } from '../wire/connect-failure.ts';
import { decodePcm } from '../wire/pcm-codec.ts';
import { GeminiAudioInput } from './audio-input.ts';
import { GeminiConnection } from './connection.ts';
import { classifyFailure, parseDurationMs, textInjectionKindFor } from './setup.ts';
import { pcmRateOf, toModelOutputRate } from '../output-audio.ts';
import { HeldTexts } from '../held-texts.ts';
import { StallWatch } from './stall-watch.ts';
import { SessionContext, type ContextUpdate } from './session-context.ts';
import { GeminiToolReplay } from './tool-replay.ts';
import { TurnUsage } from './turn-usage.ts';
import type { GeminiSessionOptions, GeminiSessionStats } from './session-options.ts';

export { INPUT_AUDIO_MIME } from './audio-input.ts';

export type { BackoffOptions, GeminiSessionOptions, GeminiSessionStats } from './session-options.ts';

export class GeminiLiveSession extends ModelSessionCore implements LiveModelSession {
  readonly #o: GeminiSessionOptions;
  #active: GeminiConnection | null = null;
  #draining = new Set<GeminiConnection>();
  #handle: string | null = null;
  readonly #usage = new TurnUsage();
  /** The latest handle was issued after the last model activity (safe to resume from). */
  #handleFresh = false;
  #turnOpen = false;
  /** The socket whose model turn is open: if it closes mid-turn, that turn is over. */
  #turnConnection: GeminiConnection | null = null;
  #goAwayDeadline: number | null = null;
  #goAwayTimer: TimerHandle | null = null;
  #switching = false;
  #nextConnectionId = 1;
  #lastOpenResumed = false;
  /** The next socket may send `setup` only once this settles (the replaced socket has closed). */
  #nextSetupGate: Promise<void> | null = null;
  /** The service refused a second socket of this session: rotate by close-then-resume. */
  #overlapRefused = false;
  /** `interrupted` arrived and its `turnComplete` has not (playback is muted until then). */
  #interruptPending = false;
  readonly #stall: StallWatch;
  #transparent: boolean;
  readonly #context: SessionContext;
  /** Texts written on a socket and not yet covered by its handle: written again if it ends first. */
  readonly #heldTexts = new HeldTexts<GeminiConnection>();
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
  readonly #stats = {
    connectionAttempts: 0,
    resumed: 0,
    switchOvers: 0,
    audioChunksDropped: 0,
    overlapsRefused: 0,
    stalls: 0,
    malformedMessages: 0,
    toolResultsReplayed: 0,
    deadlines: 0,
    freshSessions: 0,
    renewals: 0,
    wrongShapeMessages: 0,
  };

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
      replyingOn: (connection) => this.#turnOpen && this.#turnConnection === connection,
      enqueueText: (text, delivery) => this.texts.enqueue(text, delivery),
      runCall: (call) => this.emit('toolCall', call),
      replayed: () => this.#stats.toolResultsReplayed++,
    });
    this.#transparent = options.transparentResumption ?? true;
    this.#handle = options.resumeHandle ?? null;
    this.#context = new SessionContext({
      ...options,
      renewAfterMs: options.sessionRenewAfterMs === undefined ? 55 * 60_000 : options.sessionRenewAfterMs,
      onRenewDue: () => this.#maybeSwitch(),
    });
    this.#stall = new StallWatch({
      clock: options.clock,
      stallMs: options.stallMs,
      midTurn: () => this.#turnOpen && this.#turnConnection === this.#active && this.#tools.inFlight === 0,
      onStall: (silentMs, awaited) => this.#onStall(silentMs, awaited),
    });
  }

  usage(): LiveModelUsage {
    return this.#usage.total;
  }

  /** The latest handle, if issued after the model's last activity (a parked call resumes from it). */
  resumeHandle = (): string | null => (this.#handleFresh ? this.#handle : null);

  get stats(): GeminiSessionStats {
    return {
      ...this.#stats,
      reconnects: this.life.reconnects,
      audioChunksDropped: this.#stats.audioChunksDropped + Math.ceil(this.#audio.droppedSamples / 320),
      audioChunksHeld: this.#audio.heldChunks,
      textsDelivered: this.texts.delivered, textsQueued: this.texts.size, frames: { ...this.frames.stats },
      replayedMs: Math.round(this.#audio.replayedSamples / 16) };
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

  protected override textQueued(text: string): void {
    this.#heldTexts.expect(text);
  }

  addContext(text: string): boolean {
    const sdk = this.#active?.sdk;
    // 3.8: clientContent without turnComplete "waits for more" (no reply, no interruption). The 3.1
    // models take text only as realtimeInput.text, which the model answers: nothing is sent there.
    if (!sdk || textInjectionKindFor(this.model) !== 'clientContent') return false;
    sdk.sendClientContent({ turns: [{ role: 'user', parts: [{ text }] }], turnComplete: false });
    return true;
  }

  sendToolResult(result: ToolCallResult): void {
    this.#tools.answer(result);
    this.#maybeSwitch();
  }

  async close(): Promise<void> {
    if (!this.closeCore()) return;
    this.#o.clock.clearTimeout(this.#goAwayTimer);
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

  async #openOne(model: string): Promise<GeminiConnection> {
    this.#stats.connectionAttempts++;
    const handle = this.#handle;
    const setupGate = this.#nextSetupGate ?? undefined;
    this.#nextSetupGate = null;
    // A fresh session mid-call continues the conversation: persona + the call so far + what is pending.
    const { config, seeded } = this.#context.configFor(handle);
    const connection = await GeminiConnection.open(
      this.#o.client,
      this.#nextConnectionId++,
      model,
      config,
      {
        onMessage: (m, c) => this.#onMessage(m, c),
        onClose: (code, reason, c) => this.#onClose(code, reason, c),
        onBadMessage: (reason, fatal, c) => this.#onBadMessage(reason, fatal, c),
      },
      this.#o.scrub,
      setupGate,
      this.#transparent,
    );
    connection.openedAt = this.#o.clock.now();
    if (handle) this.#stats.resumed++;
    else this.#sessionBegan(seeded);
    this.#lastOpenResumed = Boolean(handle);
    this.#o.logger.info({ model, connection: connection.id, resumed: Boolean(handle), seeded }, 'gemini live connected');
    return connection;
  }

  /** A new service session (not a resume): seeded when it continues the call; its deadline clock starts. */
  #sessionBegan(seeded: boolean): void {
    if (seeded) this.#stats.freshSessions++;
    this.#audio.sessionBegan();
    this.#context.sessionBegan();
  }

  /** The call so far, for a fresh session (ours after a refused resume, or one the bridge opens). */
  conversationSeed(): ConversationSeed {
    return this.#context.seed();
  }

  /** Persona and tools mid-call where the model allows it; always from the next socket (session-context.ts). */
  updateContext(update: ContextUpdate): boolean {
    return this.#context.update(update, this.#active?.sdk ?? null, this.model);
  }

  /**
   * Tries the current model, then the fallbacks (session-core/fallback.ts). A resume refused as
   * invalid (1007/1008, whatever the text: after the 58:00 session deadline 3.8 answers a plain
   * 1007, discuss thread 186392) cannot be resumed: a fresh session at once, seeded with the call
   * so far. A setup refusing transparent resumption (documented for 3.8 only) is retried without it.
   */
  #dial(): Promise<GeminiConnection> {
    let handleRetried = false;
    return this.dial({
      label: 'Gemini',
      open: (model) => this.#openOne(model),
      discard: (connection) => connection.close(),
      classify: (failure): FailureKind => {
        const kind = classifyFailure(failure.code, failure.reason);
        return kind === 'handle' ? 'model' : kind;
      },
      recover: (failure: ConnectFailure): Recovery => {
        const kind = classifyFailure(failure.code, failure.reason);
        if ((kind === 'handle' || kind === 'model') && this.#handle && !handleRetried) {
          this.#o.logger.warn({ code: failure.code }, 'resumption refused: starting a fresh session seeded with the call so far');
          this.#handle = null;
          handleRetried = true;
          return 'retry';
        }
        if (kind === 'model' && this.#transparent && failure.code === 1007) {
          this.#o.logger.warn('setup with transparent resumption refused: retrying without it');
          this.#transparent = false;
          return 'retry-uncounted';
        }
        return undefined;
      },
    });
  }

  #adopt(connection: GeminiConnection): void {
    if (this.life.closed) {
      connection.close();
      return;
    }
    this.#active = connection;
    this.#goAwayDeadline = null;
    this.#o.clock.clearTimeout(this.#goAwayTimer);
    this.#goAwayTimer = null;
    this.#stall.reset();
    // What the user said while no socket was ready goes first, in order.
    if (this.#audio.adopt(connection, this.#lastOpenResumed, this.#o.logger)) this.#stall.awaitReply();
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
    const texts = this.#heldTexts.lost(connection);
    if (texts.length > 0 && !this.life.closed) {
      this.#o.logger.info({ connection: connection.id, texts: texts.length }, 'texts written on a socket that ended before a handle covered them: delivered again on the next');
      this.#heldTexts.expectAgain(texts);
      this.texts.requeue(texts);
    }
    if (this.#turnConnection === connection && (this.#turnOpen || this.#interruptPending) && !this.life.closed) {
      this.#turnOpen = false;
      this.#interruptPending = false;
      this.#turnConnection = null;
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
    const sessionDeadline = this.#goAwayDeadline === null && code === 1011 && /deadline expired/i.test(reason);
    if (sessionDeadline) this.#stats.deadlines++;
    const planned = this.#goAwayDeadline !== null || sessionDeadline;
    const lived = this.#o.clock.now() - connection.openedAt;
    this.#quickDeaths = planned ? 0 : lived < this.#o.stableMs ? this.#quickDeaths + 1 : 0;
    this.#o.logger.warn({ code, reason, connection: connection.id, livedMs: Math.round(lived), planned }, 'gemini live connection closed');
    // Mid switch-over the next socket is already being dialled: let #switchOver adopt it.
    if (this.#switching) return;
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
    return this.life.reconnect(reason, connect, () => (this.#lastOpenResumed ? 'resumed' : 'new conversation (could not resume)'), options);
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
    this.#nextSetupGate = Promise.race([old.closed, this.life.sleep(2000)]);
    old.close();
    await this.#reconnect(reason, options);
    // Unused when a reconnect was already under way (its socket dialled before this close).
    this.#nextSetupGate = null;
  }

  #onBadMessage(reason: string, fatal: boolean, connection: GeminiConnection): void {
    faultCounts.malformed_model_messages++;
    if (!fatal) {
      // JSON of the wrong shape (server-message.ts): dropped before the session reads it; the socket is fine.
      if (++this.#stats.wrongShapeMessages === 1) this.#o.logger.warn({ reason, connection: connection.id }, 'wrong-shaped message from the model service dropped (logged once per call, counted in /health)');
      return;
    }
    this.#stats.malformedMessages++;
    if (this.#stats.malformedMessages === 1) {
      this.#o.logger.warn({ reason, connection: connection.id }, 'malformed message from the model service dropped; resuming on a new socket (logged once per call, counted in /health)');
    }
    if (connection === this.#active && !this.#switching && !this.life.reconnecting) void this.#replace(connection, `malformed message (${reason})`, { announce: true });
  }

  #onStall(silentMs: number, awaited: boolean): void {
    const connection = this.#active;
    if (!connection || this.#switching || this.life.reconnecting) return;
    this.#stats.stalls++;
    this.#o.logger.warn({ connection: connection.id, silentMs: Math.round(silentMs), awaited }, 'gemini live stalled mid-turn: resuming on a new socket');
    void this.#replace(connection, `model stalled (${Math.round(silentMs)} ms without data)`, { announce: true });
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
    if (this.#context.renewDue && !this.#switching && !this.life.reconnecting && this.#idleForSwitch()) return this.#renew();
    if (this.#goAwayDeadline === null || this.#switching) return;
    if (this.#idleForSwitch()) void this.#switchOver('idle');
  }

  #idleForSwitch(): boolean {
    return !this.#turnOpen && !this.#interruptPending && !this.#modelWorking && this.#tools.inFlight === 0 && this.#handleFresh && this.#active !== null;
  }

  /** Before the session deadline, at an idle point: a fresh seeded session (a resume keeps the deadline). */
  #renew(): void {
    const old = this.#active!;
    this.#context.renewDue = false;
    this.#stats.renewals++;
    this.#handle = null;
    this.#o.logger.info({ from: old.id }, 'gemini live session renewed before its deadline (fresh session, seeded)');
    void this.#replace(old, 'session renewal before its deadline', { announce: false });
  }

  async #switchOver(trigger: 'idle' | 'deadline'): Promise<void> {
    const old = this.#active;
    if (this.#switching || this.life.closed || !old || this.#goAwayDeadline === null) return;
    this.#switching = true;
    this.#o.clock.clearTimeout(this.#goAwayTimer);
    this.#goAwayTimer = null;
    if (this.#overlapRefused) {
      this.#switching = false;
      this.#stats.switchOvers++;
      this.#o.logger.info({ from: old.id, trigger }, 'gemini live rotation: closing the old socket, then resuming');
      await this.#replace(old, `rotation (${trigger})`, { announce: false });
      return;
    }
    try {
      const next = await this.#openOne(this.model);
      if (this.life.closed) {
        next.close();
        return;
      }
      if (this.#active !== old && this.#active !== null) {
        next.close();
        return;
      }
      // From here on every input goes to `next`; the old socket may still finish its output.
      if (this.#active === old) this.#draining.add(old);
      else this.life.set('connected', 'resumed');
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
      const reason = err instanceof Error ? err.message : String(err);
      if (this.#active === old && old.isOpen && !this.life.closed) {
        // The service allows one socket per session: close the old one now (we are at an idle
        // point or at the deadline) and resume at once; later rotations skip the overlap attempt.
        this.#overlapRefused = true;
        this.#stats.overlapsRefused++;
        this.#o.logger.info({ reason, from: old.id, trigger }, 'overlapped resume refused: closing the old socket, then resuming');
        this.#switching = false;
        this.#stats.switchOvers++;
        await this.#replace(old, `rotation (${trigger})`, { announce: false });
        return;
      }
      this.#o.logger.warn({ reason }, 'gemini switch-over failed; will reconnect on close');
    } finally {
      this.#switching = false;
      if (!this.#active && !this.life.closed && !this.life.reconnecting) void this.#reconnect('connection closed during switch-over', { announce: true });
    }
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
    const content = cutOff ? undefined : message.serverContent;
    if (content) {
      const parts = content.modelTurn?.parts;
      if (parts) {
        for (const part of parts) {
          const inline = part.inlineData;
          if (inline?.data && inline.mimeType?.startsWith('audio/pcm')) {
            this.#modelActivity(connection);
            // The rate comes from the MIME type (audio/pcm;rate=24000), never assumed.
            const rate = pcmRateOf(inline.mimeType);
            if (rate === null) {
              this.#o.logger.warn({ mimeType: inline.mimeType }, 'model audio with an unusable rate dropped');
            } else {
              const pcm = toModelOutputRate(decodePcm(inline.data), rate);
              if (connection === this.#active) this.#stall.audio(pcm.length);
              this.emit('audio', pcm);
            }
          }
        }
      }
      if (content.inputTranscription?.text) {
        this.#context.transcript.add('user', content.inputTranscription.text);
        this.emit('inputTranscript', content.inputTranscription.text);
      }
      if (content.outputTranscription?.text) {
        this.#modelActivity(connection);
        this.#context.transcript.add('model', content.outputTranscription.text);
        this.emit('outputTranscript', content.outputTranscription.text);
      }
      if (content.generationComplete && connection === this.#active) this.#stall.generationComplete();
      if (content.interrupted) {
        this.#interruptPending = true;
        this.#turnConnection = connection;
        this.emit('interrupted');
      }
      if (content.turnComplete) {
        this.#usage.turnEnded();
        this.#turnOpen = false;
        this.#interruptPending = false;
        this.#stall.stop();
        // The extended-thinking model: turnComplete with interactionStatus IN_PROGRESS is not idle
        // (a NON_BLOCKING call still runs, more output follows); only IDLE frees the queue.
        this.#modelWorking = content.interactionStatus === 'IN_PROGRESS';
        this.#context.transcript.turnEnded();
        this.endTurn({ releaseTexts: !this.#modelWorking });
        // The model answered (the replayed question) without asking the kept calls again.
        this.#tools.turnEnded(connection);
      }
    }
    if (message.usageMetadata) this.#usage.count(message.usageMetadata, connection.id, this.#o.logger);
    const calls = message.toolCall?.functionCalls;
    if (calls) {
      // A call from a socket we closed still runs, and its result is kept for the resumed session
      // (#keep), but its turn has ended: marking the socket active again would reopen that turn
      // (texts held back, then a second turnComplete when the socket's close arrives) or take over
      // the turn of a reply already under way on the new socket and end it at that close.
      if (!cutOff) {
        // The question that led to this call is not safe until a resumable handle comes after it.
        if (connection === this.#active) this.#keepUnanswered = true;
        this.#modelActivity(connection);
      }
      for (const call of calls) this.#tools.asked(connection, call.id ?? '', call.name ?? '', call.args ?? {});
    }
    const cancelled = message.toolCallCancellation?.ids;
    if (cancelled && cancelled.length > 0) {
      this.#tools.cancelled(cancelled);
      this.emit('toolCallCancelled', [...cancelled]);
    }
    const update = message.sessionResumptionUpdate;
    // Not only the active socket: the SDK delivers messages that arrive with setupComplete before
    // connect() returns, i.e. before the new connection is adopted. Only a replaced one is ignored.
    if (update && !this.#draining.has(connection) && !connection.closedByUs) {
      if (update.resumable && update.newHandle) {
        this.#handle = update.newHandle;
        // Transparent resumption: the handle's state includes client messages up to this index.
        const raw = update.lastConsumedClientMessageIndex;
        const index = raw === undefined ? undefined : Number(raw);
        this.#audio.handle(connection, index);
        this.#heldTexts.covered(connection, index);
        // A handle covers what the service consumed so far: nothing before it needs replaying.
        this.#tools.covered(connection, connection === this.#active);
        if (connection === this.#active) {
          this.#audio.answered();
          this.#keepUnanswered = false;
        }
        this.#handleFresh = !this.#turnOpen && this.#tools.inFlight === 0;
        this.#maybeSwitch();
      } else {
        this.#handleFresh = false;
      }
    }
    if (message.goAway) this.#onGoAway(connection, parseDurationMs(message.goAway.timeLeft) ?? 10_000);
  }

  #modelActivity(connection: GeminiConnection): void {
    this.#usage.activity();
    // The model answers: what it was answering no longer needs replaying (unless it asked a tool:
    // then only a resumable handle after the call makes the question safe).
    if (connection === this.#active && !this.#keepUnanswered) this.#audio.answered();
    // Output after `interrupted` with no turnComplete between: the service moved on to a new turn.
    // The interrupted one ends here, or the bridge would keep this reply muted as part of it.
    if (this.#interruptPending) {
      this.#interruptPending = false;
      this.#turnOpen = false;
      this.emit('turnComplete');
    }
    const wasOpen = this.#turnOpen;
    // The reply began: the utterance it answers is not sent again after a resume (it would be answered twice).
    if (!wasOpen && connection === this.#active && !this.#keepUnanswered) this.#audio.replyBegan();
    this.#turnOpen = true;
    this.#turnConnection = connection;
    this.#handleFresh = false;
    this.modelActivity();
    if (connection === this.#active) this.#stall.modelActivity(wasOpen);
    else this.#stall.replyBegan();
  }

  protected deliverTexts(texts: readonly string[]): boolean {
    const active = this.#active;
    const sdk = active?.sdk;
    if (!active || !sdk) return false;
    this.#heldTexts.written(active, active.nextMessageIndex, texts);
    if (textInjectionKindFor(this.model) === 'realtimeText') sdk.sendRealtimeInput({ text: texts.join('\n') });
    else sdk.sendClientContent({ turns: [{ role: 'user', parts: texts.map((text) => ({ text })) }], turnComplete: true });
    this.#o.logger.debug({ count: texts.length }, 'injected text delivered to the model');
    return true;
  }

  protected async sendFrameNow(image: Buffer): Promise<FrameSendResult> {
    const frame = await toModelFrame(image);
    const sdk = this.#active?.sdk;
    if (!sdk) return { status: 'dropped', reason: 'not_connected' };
    sdk.sendRealtimeInput({ video: { data: frame.jpeg.toString('base64'), mimeType: 'image/jpeg' } });
    return { status: 'sent', width: frame.width, height: frame.height, bytes: frame.jpeg.length };
  }
}

export { decodePcm };
