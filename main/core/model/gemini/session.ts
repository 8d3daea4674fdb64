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
import { EventEmitter } from 'node:events';
import type { LiveServerMessage } from '@google/genai';
import type { ConnectionState } from '../../api-types.ts';
import type { ConversationSeed, FrameSendResult, LiveModelEvents, LiveModelSession, LiveModelUsage, TextDelivery, ToolCallResult } from '../../ports.ts';
import { Sleeps, type TimerHandle } from '../clock.ts';
import { toModelFrame } from '../frame-converter.ts';
import { FrameLimiter } from '../frame-limiter.ts';
import { faultCounts } from '../../faults.ts';
import { decodePcm, encodePcm } from '../wire/pcm-codec.ts';
import { AudioHold } from '../audio-hold.ts';
import { GeminiConnection } from './connection.ts';
import { ConnectFailure } from '../wire/connect-failure.ts';
import { classifyFailure, parseDurationMs, textInjectionKindFor } from './setup.ts';
import { TextInjectionQueue } from '../text-injection.ts';
import { pcmRateOf, toModelOutputRate } from '../output-audio.ts';
import { UnconsumedTail } from '../unconsumed-tail.ts';
import { HeldTexts } from '../held-texts.ts';
import { StallWatch } from './stall-watch.ts';
import { SessionContext, type ContextUpdate } from './session-context.ts';
import { TurnUsage } from './turn-usage.ts';
import type { GeminiSessionOptions, GeminiSessionStats, KeptResult } from './session-options.ts';

export const INPUT_AUDIO_MIME = 'audio/pcm;rate=16000';

export type { BackoffOptions, GeminiSessionOptions, GeminiSessionStats } from './session-options.ts';

class FatalSessionError extends Error {}

export class GeminiLiveSession extends EventEmitter<LiveModelEvents> implements LiveModelSession {
  readonly #o: GeminiSessionOptions;
  #state: ConnectionState = 'disconnected';
  #modelIndex = 0;
  #active: GeminiConnection | null = null;
  #draining = new Set<GeminiConnection>();
  #handle: string | null = null;
  readonly #usage = new TurnUsage();
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
  readonly #sleeps: Sleeps;
  #nextConnectionId = 1;
  #lastOpenResumed = false;
  /** The next socket may send `setup` only once this settles (the replaced socket has closed). */
  #nextSetupGate: Promise<void> | null = null;
  /** The service refused a second socket of this session: rotate by close-then-resume. */
  #overlapRefused = false;
  /** `interrupted` arrived and its `turnComplete` has not (playback is muted until then). */
  #interruptPending = false;
  readonly #stall: StallWatch;
  /** Sent audio the service has not confirmed consuming (transparent resumption). */
  readonly #tail: UnconsumedTail;
  /** The latest handle came with `lastConsumedClientMessageIndex`: a resume replays #tail. */
  #tailIndexed = false;
  /** The socket whose message numbers the tail's entries carry. */
  #tailOwner: GeminiConnection | null = null;
  #transparent: boolean;
  readonly #context: SessionContext;
  /** Texts written on a socket and not yet covered by its handle: written again if it ends first. */
  readonly #heldTexts = new HeldTexts<GeminiConnection>();
  /** The model reported `interactionStatus: IN_PROGRESS` (extended thinking): not idle yet. */
  #modelWorking = false;
  /** Unexpected closes in a row of sockets that lived less than `stableMs`. */
  #quickDeaths = 0;
  readonly #hold: AudioHold;
  /**
   * Every chunk sent since the model last answered or issued a resumable handle: what a resumed
   * session has not heard. Replayed on the next socket when a socket ends before the reply began.
   */
  readonly #unanswered: AudioHold;
  #replayUnanswered = false;
  /** Which socket asked each tool call in flight, and the call's identity for a re-ask. */
  readonly #toolOrigins = new Map<string, { connection: GeminiConnection; key: string }>();
  /**
   * Results of calls whose socket ended before the answer, or before a resumable handle covered
   * the answer (by name+args): replayed when the call is asked again, otherwise injected as text.
   */
  readonly #orphanResults = new Map<string, KeptResult>();
  /** Results answered on a socket that has not issued a resumable handle since (a resume would lose them). */
  #unacked: { connection: GeminiConnection; key: string; result: ToolCallResult }[] = [];
  /**
   * A tool call was asked on the active socket and no resumable handle came after it: the user's
   * question stays in `#unanswered` (a resume from an older handle has not heard it).
   */
  #keepUnanswered = false;
  /** The resumed socket on which kept calls may be asked again, and its give-up timer. */
  #reaskWindow: GeminiConnection | null = null;
  #reaskTimer: TimerHandle | null = null;
  /** The model on the current socket did not ask the kept calls again: results go as text. */
  #reaskGivenUp = false;
  /** A call asked again while its first run is still going: first id → the new socket's id. */
  readonly #reaskedRunning = new Map<string, { id: string; connection: GeminiConnection }>();
  /** Kept results waiting for their (re-asking) socket to finish setup. */
  #replies: { connection: GeminiConnection; response: { id: string; name: string; response: Record<string, unknown> } }[] = [];
  readonly #frames: FrameLimiter;
  readonly #texts: TextInjectionQueue;
  readonly #stats = {
    connectionAttempts: 0,
    resumed: 0,
    reconnects: 0,
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
    super();
    this.#o = options;
    this.#hold = new AudioHold(options.holdAudioMs);
    this.#unanswered = new AudioHold(options.holdAudioMs);
    this.#sleeps = new Sleeps(options.clock);
    this.#tail = new UnconsumedTail(options.replayTailMs ?? 30_000);
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
      midTurn: () => this.#turnOpen && this.#turnConnection === this.#active && this.#toolsInFlight.size === 0,
      onStall: (silentMs, awaited) => this.#onStall(silentMs, awaited),
    });
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

  usage(): LiveModelUsage {
    return this.#usage.total;
  }

  /** The latest handle, if issued after the model's last activity (a parked call resumes from it). */
  resumeHandle = (): string | null => (this.#handleFresh ? this.#handle : null);

  get stats(): GeminiSessionStats {
    return {
      ...this.#stats,
      audioChunksDropped: this.#stats.audioChunksDropped + Math.ceil(this.#hold.droppedSamples / 320),
      audioChunksHeld: this.#hold.heldChunks,
      textsDelivered: this.#texts.delivered, textsQueued: this.#texts.size, frames: { ...this.#frames.stats },
      replayedMs: Math.round(this.#tail.replayedSamples / 16) };
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
    if (this.#closed) return;
    this.#texts.userAudio();
    const sdk = this.#active?.sdk;
    this.#unanswered.push(pcm16kMono);
    // Held while no socket is ready, and behind earlier held audio so the order stays.
    if (!sdk || !this.#hold.isEmpty) this.#hold.push(pcm16kMono);
    else this.#sendPcm(this.#active!, sdk, pcm16kMono);
  }

  /** Every chunk written is numbered and kept until the service confirms it (transparent resumption). */
  #sendPcm(connection: GeminiConnection, sdk: NonNullable<GeminiConnection['sdk']>, pcm: Int16Array): void {
    this.#tail.audio(pcm, connection.nextMessageIndex);
    sendPcm(sdk, pcm);
  }

  #sendStreamEnd(connection: GeminiConnection, sdk: NonNullable<GeminiConnection['sdk']>): void {
    this.#tail.end(connection.nextMessageIndex);
    sdk.sendRealtimeInput({ audioStreamEnd: true });
  }

  endAudioInput(): void {
    const sdk = this.#active?.sdk;
    this.#unanswered.end();
    if (!sdk || !this.#hold.isEmpty) this.#hold.end();
    else {
      this.#sendStreamEnd(this.#active!, sdk);
      if (!this.#unanswered.isEmpty) this.#stall.awaitReply();
    }
    this.#texts.userAudioEnded();
  }

  sendText(text: string, delivery?: TextDelivery): void {
    const trimmed = text.trim();
    if (trimmed) {
      const text = delivery?.asMessage ? trimmed : this.#o.formatInjectedText(trimmed);
      this.#heldTexts.expect(text);
      this.#texts.enqueue(text, delivery);
    }
    else delivery?.onSettled?.({ delivered: false, reason: 'call_ended' });
  }

  sendFrame(image: Buffer): Promise<FrameSendResult> {
    return this.#frames.submit(image);
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
    this.#toolsInFlight.delete(result.id);
    const origin = this.#toolOrigins.get(result.id);
    this.#toolOrigins.delete(result.id);
    const reasked = this.#reaskedRunning.get(result.id);
    this.#reaskedRunning.delete(result.id);
    // Answered on the socket that asked: a resumed session may never have seen this call id.
    const asker = origin?.connection.sdk;
    if (origin && asker) {
      asker.sendToolResponse({ functionResponses: [{ id: result.id, name: result.name, response: result.response }] });
      // Until a resumable handle from that socket covers it, a resume would lose this answer.
      this.#unacked.push({ connection: origin.connection, key: origin.key, result });
    } else if (origin && reasked?.connection.sdk) {
      this.#toolsInFlight.delete(reasked.id);
      this.#stats.toolResultsReplayed++;
      reasked.connection.sdk.sendToolResponse({ functionResponses: [{ id: reasked.id, name: result.name, response: result.response }] });
      this.#unacked.push({ connection: reasked.connection, key: origin.key, result });
    } else if (origin) {
      // The asking socket is gone: keep the result for the same call asked again after the resume.
      this.#keep(origin.key, result);
      this.#o.logger.info({ tool: result.name, callId: result.id }, 'tool result kept: the socket that asked has closed');
    } else {
      this.#o.logger.warn({ tool: result.name, callId: result.id }, 'tool result for an unknown call dropped');
    }
    this.#maybeSwitch();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#o.clock.clearTimeout(this.#goAwayTimer);
    this.#stall.stop();
    this.#context.close();
    this.#o.clock.clearTimeout(this.#reaskTimer);
    this.#hold.clear();
    this.#sleeps.wakeAll();
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
    this.#tail.clear();
    this.#tailIndexed = false;
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
          // A resume refused as invalid (1007/1008, whatever the text: after the 58:00 session
          // deadline 3.8 answers a plain 1007, discuss thread 186392): the conversation cannot be
          // resumed, so a fresh session at once, seeded with the call so far.
          if ((kind === 'handle' || kind === 'model') && this.#handle && !handleRetried) {
            logger.warn({ code: failure.code }, 'resumption refused: starting a fresh session seeded with the call so far');
            this.#handle = null;
            handleRetried = true;
            continue;
          }
          if (kind === 'model' && this.#transparent && failure.code === 1007) {
            // Documented for 3.8 only: a service that refuses the field gets setups without it.
            logger.warn('setup with transparent resumption refused: retrying without it');
            this.#transparent = false;
            attempt--;
            continue;
          }
          if (kind === 'model' || kind === 'handle') {
            failures.push(`${model}: ${failure.message}`);
            break;
          }
          if (attempt >= backoff.maxAttempts) throw new FatalSessionError(`Gemini unreachable after ${attempt} attempts (${failure.message})`);
          await this.#sleeps.sleep(Math.min(backoff.maxMs, backoff.initialMs * 2 ** (attempt - 1)));
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
    this.#stall.reset();
    // What the user said while no socket was ready goes first, in order.
    const sdk = connection.sdk;
    // Transparent resume: exactly what the service did not consume is sent again, then what was held.
    const transparentReplay = Boolean(sdk && this.#lastOpenResumed && this.#tailIndexed && !this.#tail.isEmpty);
    if (transparentReplay && sdk) {
      const samples = this.#tail.replay(
        (pcm) => this.#sendPcm(connection, sdk, pcm),
        () => this.#sendStreamEnd(connection, sdk),
      );
      this.#o.logger.info({ connection: connection.id, replayedMs: Math.round(samples / 16) }, 'unconsumed user audio sent again after a transparent resume');
    }
    else this.#tail.clear();
    this.#tailOwner = connection;
    const replay = !transparentReplay && this.#replayUnanswered && !this.#unanswered.isEmpty;
    this.#replayUnanswered = false;
    if (sdk && (replay || !this.#hold.isEmpty)) {
      // After a resume the service knows the conversation as of the handle: an utterance it has not
      // answered is sent again whole (it includes what was held); otherwise just the held audio.
      const source = replay ? this.#unanswered : this.#hold;
      let ended = false;
      const chunks = source.size;
      source.drain(
        (pcm) => this.#sendPcm(connection, sdk, pcm),
        () => {
          this.#sendStreamEnd(connection, sdk);
          ended = true;
        },
      );
      if (replay) {
        this.#hold.clear();
        this.#unanswered.restoreLast();
      }
      if (ended) this.#stall.awaitReply();
      this.#o.logger.info({ connection: connection.id, chunks, replay }, replay ? 'unanswered user audio sent again after the resume' : 'held user audio sent after the resume');
    }
    this.#sendReplies();
    this.#openReaskWindow(connection);
    this.#texts.tryFlush();
  }

  #sendReplies(): void {
    this.#replies = this.#replies.filter(({ connection, response }) => {
      const sdk = connection.sdk;
      if (sdk) sdk.sendToolResponse({ functionResponses: [response] });
      return !sdk && !this.#closed;
    });
  }

  /**
   * A socket ended (closed by either side, or replaced): whatever turn it carried is over. The
   * bridge hears `turnComplete`, which lifts a barge-in mute and writes the transcript, so the first
   * reply on the next socket is heard. Calls it asked that are still running are remembered by
   * identity, so the same call asked again after the resume gets their result.
   */
  #endSocketTurn(connection: GeminiConnection): void {
    if (connection === this.#active || this.#active === null) {
      this.#replayUnanswered = !this.#unanswered.isEmpty;
      this.#keepUnanswered = false;
    }
    // Answers no resumable handle covered: the resumed session may ask again, or needs them as text.
    const unacked = this.#unacked.filter((u) => u.connection === connection);
    if (unacked.length > 0) {
      this.#unacked = this.#unacked.filter((u) => u.connection !== connection);
      for (const { key, result } of unacked) this.#keep(key, result);
      this.#o.logger.info({ connection: connection.id, results: unacked.length }, 'tool results no handle covered kept for the resumed session');
    }
    // Text delivered on this socket but not covered by a handle: the next socket needs it again.
    for (const kept of this.#orphanResults.values()) {
      if (kept.state === 'injected' && kept.on === connection) {
        kept.state = 'kept';
        kept.on = null;
      }
    }
    if (this.#reaskWindow === connection) this.#closeReaskWindow();
    this.#modelWorking = false;
    const texts = this.#heldTexts.lost(connection);
    if (texts.length > 0 && !this.#closed) {
      this.#o.logger.info({ connection: connection.id, texts: texts.length }, 'texts written on a socket that ended before a handle covered them: delivered again on the next');
      this.#heldTexts.expectAgain(texts);
      this.#texts.requeue(texts);
    }
    if (this.#turnConnection === connection && (this.#turnOpen || this.#interruptPending) && !this.#closed) {
      this.#turnOpen = false;
      this.#interruptPending = false;
      this.#turnConnection = null;
      this.#texts.modelTurnEnded();
      this.emit('turnComplete');
    }
    for (const [id, origin] of this.#toolOrigins) if (origin.connection === connection) this.#toolsInFlight.delete(id);
  }

  #onClose(code: number, reason: string, connection: GeminiConnection): void {
    this.#endSocketTurn(connection);
    if (this.#draining.delete(connection) || this.#closed || connection.closedByUs) return;
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
  async #reconnect(reason: string, options: { announce: boolean }): Promise<void> {
    if (this.#reconnecting || this.#closed) return;
    this.#reconnecting = true;
    this.#stats.reconnects++;
    if (options.announce) this.#setState('reconnecting', reason);
    try {
      // Sockets that die right after setup would otherwise be redialled in a tight loop.
      if (this.#quickDeaths > 0) {
        const { initialMs, maxMs } = this.#o.backoff;
        await this.#sleeps.sleep(Math.min(maxMs, initialMs * 2 ** (this.#quickDeaths - 1)));
      }
      this.#adopt(await this.#openWithFallback());
      if (!this.#closed) this.#setState('connected', this.#lastOpenResumed ? 'resumed' : 'new conversation (could not resume)');
    } catch (err) {
      if (!this.#closed) this.#setState('error', err instanceof Error ? err.message : String(err));
    } finally {
      this.#reconnecting = false;
    }
  }

  /**
   * Ends `old` ourselves and resumes on a new socket at once (one socket per session): input is
   * held from this moment until the new socket is up. The service counts the old socket until its
   * close handshake is done, so the new socket dials at once (TCP/TLS/WebSocket handshake in
   * parallel with the close) but sends its `setup` only after the old socket has closed.
   */
  async #replace(old: GeminiConnection, reason: string, options: { announce: boolean }): Promise<void> {
    if (this.#closed) return;
    if (this.#active === old) this.#active = null;
    this.#stall.stop();
    this.#endSocketTurn(old);
    this.#nextSetupGate = Promise.race([old.closed, this.#sleeps.sleep(2000)]);
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
    if (connection === this.#active && !this.#switching && !this.#reconnecting) void this.#replace(connection, `malformed message (${reason})`, { announce: true });
  }

  #onStall(silentMs: number, awaited: boolean): void {
    const connection = this.#active;
    if (!connection || this.#switching || this.#reconnecting) return;
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
    if (this.#context.renewDue && !this.#switching && !this.#reconnecting && this.#idleForSwitch()) return this.#renew();
    if (this.#goAwayDeadline === null || this.#switching) return;
    if (this.#idleForSwitch()) void this.#switchOver('idle');
  }

  #idleForSwitch(): boolean {
    return !this.#turnOpen && !this.#interruptPending && !this.#modelWorking && this.#toolsInFlight.size === 0 && this.#handleFresh && this.#active !== null;
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
    if (this.#switching || this.#closed || !old || this.#goAwayDeadline === null) return;
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
      const reason = err instanceof Error ? err.message : String(err);
      if (this.#active === old && old.isOpen && !this.#closed) {
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
      if (!this.#active && !this.#closed && !this.#reconnecting) void this.#reconnect('connection closed during switch-over', { announce: true });
    }
  }

  // --- output ------------------------------------------------------------------------------

  #onMessage(message: LiveServerMessage, connection: GeminiConnection): void {
    if (this.#closed) return;
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
        this.emit('turnComplete');
        if (!this.#modelWorking) this.#texts.modelTurnEnded();
        // The model answered (the replayed question) without asking the kept calls again.
        if (connection === this.#reaskWindow) this.#giveUpReask('the model answered without asking again');
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
      for (const call of calls) this.#onToolCall(connection, call.id ?? '', call.name ?? '', call.args ?? {});
    }
    const cancelled = message.toolCallCancellation?.ids;
    if (cancelled && cancelled.length > 0) {
      for (const id of cancelled) {
        this.#toolsInFlight.delete(id);
        this.#toolOrigins.delete(id);
      }
      this.emit('toolCallCancelled', [...cancelled]);
    }
    const update = message.sessionResumptionUpdate;
    // Not only the active socket: the SDK delivers messages that arrive with setupComplete before
    // connect() returns, i.e. before the new connection is adopted. Only a replaced one is ignored.
    if (update && !this.#draining.has(connection) && !connection.closedByUs) {
      if (update.resumable && update.newHandle) {
        this.#handle = update.newHandle;
        // Transparent resumption: the handle's state includes client messages up to this index.
        const index = update.lastConsumedClientMessageIndex;
        this.#tailIndexed = index !== undefined;
        if (index !== undefined && connection === this.#tailOwner) this.#tail.consumed(Number(index));
        this.#heldTexts.covered(connection, index === undefined ? undefined : Number(index));
        // A handle covers what the service consumed so far: nothing before it needs replaying.
        this.#unacked = this.#unacked.filter((u) => u.connection !== connection);
        if (connection === this.#active) {
          this.#unanswered.clear();
          this.#keepUnanswered = false;
          for (const [key, kept] of this.#orphanResults) if (kept.state === 'injected' && kept.on === connection) this.#orphanResults.delete(key);
        }
        this.#handleFresh = !this.#turnOpen && this.#toolsInFlight.size === 0;
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
    if (connection === this.#active && !this.#keepUnanswered) this.#unanswered.clear();
    // Output after `interrupted` with no turnComplete between: the service moved on to a new turn.
    // The interrupted one ends here, or the bridge would keep this reply muted as part of it.
    if (this.#interruptPending) {
      this.#interruptPending = false;
      this.#turnOpen = false;
      this.emit('turnComplete');
    }
    const wasOpen = this.#turnOpen;
    // The reply began: the utterance it answers is not sent again after a resume (it would be answered twice).
    if (!wasOpen && connection === this.#active && !this.#keepUnanswered) this.#tail.clear();
    this.#turnOpen = true;
    this.#turnConnection = connection;
    this.#handleFresh = false;
    this.#texts.modelActivity();
    if (connection === this.#active) this.#stall.modelActivity(wasOpen);
    else this.#stall.replyBegan();
  }

  /**
   * A call asked again after a resume (same name and arguments as one whose socket ended) is not
   * run twice: it gets the kept result, or the result of the run still going.
   */
  #onToolCall(connection: GeminiConnection, id: string, name: string, args: Record<string, unknown>): void {
    const key = `${name}\u0000${JSON.stringify(args)}`;
    const kept = this.#orphanResults.get(key);
    if (kept) {
      this.#orphanResults.delete(key);
      this.#stats.toolResultsReplayed++;
      this.#o.logger.info({ tool: name, callId: id }, 'tool call asked again after a resume: answered with the kept result');
      // Calls that arrive with setupComplete come before the socket is adopted: answer on adoption.
      this.#replies.push({ connection, response: { id, name, response: kept.result.response } });
      this.#unacked.push({ connection, key, result: kept.result });
      this.#sendReplies();
      return;
    }
    for (const [firstId, origin] of this.#toolOrigins) {
      if (origin.key === key && !origin.connection.isOpen && !this.#reaskedRunning.has(firstId)) {
        this.#reaskedRunning.set(firstId, { id, connection });
        this.#toolsInFlight.add(id);
        return;
      }
    }
    this.#toolsInFlight.add(id);
    this.#toolOrigins.set(id, { connection, key });
    this.emit('toolCall', { id, name, args });
  }

  /** Keeps a result for the resumed session; once the model has not asked again, it goes as text. */
  #keep(key: string, result: ToolCallResult): void {
    const kept: KeptResult = { result, state: 'kept', on: null };
    this.#orphanResults.set(key, kept);
    const active = this.#active;
    if (!active?.isOpen) return; // the next socket's adoption opens the window
    if (this.#reaskGivenUp) this.#injectKept(key, kept);
    // e.g. a socket drained after a deadline switch-over ended before a handle covered its answer.
    else if (this.#reaskWindow === null) this.#openReaskWindow(active);
  }

  /** Kept results (or calls still running whose socket ended) the resumed session may ask for again. */
  #reaskPending(): boolean {
    for (const kept of this.#orphanResults.values()) if (kept.state === 'kept') return true;
    for (const [id, origin] of this.#toolOrigins) if (!origin.connection.isOpen && !this.#reaskedRunning.has(id)) return true;
    return false;
  }

  /**
   * After a resume with kept results: the model may ask the same calls again (it heard the question
   * again, or the service re-asks). If it answers without asking (turnComplete), or says nothing for
   * `reaskWaitMs`, the results are given to it as text. Until a resumable handle covers that text, a
   * call asked again still gets the kept result: the tool never runs twice.
   */
  #openReaskWindow(connection: GeminiConnection): void {
    this.#closeReaskWindow();
    this.#reaskGivenUp = false;
    if (!this.#reaskPending()) return;
    this.#reaskWindow = connection;
    this.#armReaskTimer();
  }

  #armReaskTimer(): void {
    this.#o.clock.clearTimeout(this.#reaskTimer);
    this.#reaskTimer = this.#o.clock.setTimeout(() => {
      this.#reaskTimer = null;
      if (this.#reaskWindow === null || this.#closed) return;
      // The model is answering: its turnComplete decides. A model silent this long gets the results
      // now (with the question, if it was replayed); a call it still asks again gets the kept result.
      if (this.#turnOpen && this.#turnConnection === this.#reaskWindow) this.#armReaskTimer();
      else this.#giveUpReask('the model did not ask again');
    }, this.#o.reaskWaitMs ?? 1500);
  }

  #closeReaskWindow(): void {
    this.#o.clock.clearTimeout(this.#reaskTimer);
    this.#reaskTimer = null;
    this.#reaskWindow = null;
  }

  #giveUpReask(why: string): void {
    if (this.#reaskWindow === null) return;
    this.#closeReaskWindow();
    this.#reaskGivenUp = true;
    for (const [key, kept] of this.#orphanResults) if (kept.state === 'kept') this.#injectKept(key, kept);
    this.#o.logger.info({ why }, 'kept tool results not asked for again: given to the model as text');
  }

  /** The result reaches the model as injected text (the path each model accepts mid-session). */
  #injectKept(key: string, kept: KeptResult): void {
    kept.state = 'queued';
    const [name = '', args = '{}'] = key.split('\u0000');
    const text =
      `The connection dropped while you were using the tool ${name} with the arguments ${args}. ` +
      `Its result: ${JSON.stringify(kept.result.response)}. Use it to answer the user now; do not call the tool again for this.`;
    this.#texts.enqueue(text, {
      onSettled: (outcome) => {
        if (this.#orphanResults.get(key) !== kept) return;
        if (outcome.delivered && this.#active) {
          kept.state = 'injected';
          kept.on = this.#active;
        } else this.#orphanResults.delete(key);
      },
    });
  }

  #deliverTexts(texts: readonly string[]): boolean {
    const active = this.#active;
    const sdk = active?.sdk;
    if (!active || !sdk) return false;
    this.#heldTexts.written(active, active.nextMessageIndex, texts);
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

}

function sendPcm(sdk: NonNullable<GeminiConnection['sdk']>, pcm: Int16Array): void {
  sdk.sendRealtimeInput({ audio: { data: encodePcm(pcm), mimeType: INPUT_AUDIO_MIME } });
}

export { decodePcm };
