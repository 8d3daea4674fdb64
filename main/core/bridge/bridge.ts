// The bridge owns one call: Discord voice in → mixer → 16 kHz → voice gate → model, and model
// speech → 48 kHz playback buffer → Discord. It depends only on the ports (VoiceChannelPort,
// LiveModelProvider), so the fakes, a second provider or another platform plug in unchanged.
//
// States: idle → connecting → connected ⇄ reconnecting → stopping → stopped (→ connecting again),
// connected ⇄ parked (the model closed in a quiet room, model-link.ts; an outage is `reconnecting`
// until the model is back, never the end), and error when a call cannot be set up or Discord is lost.
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { BridgeState, BridgeStateEvent, RoomView, SayOutcome, SayVerb } from '../api-types.ts';
import type { FrameSendResult, LiveModelConnectOptions, LiveModelSession, VoiceTarget } from '../ports.ts';
import type { VoiceHandOff } from '../notify/types.ts';
import { ModelLink } from './model-link.ts';
import { LiveContext } from './live-context.ts';
import { InFlight, ParkTimer } from './park.ts';
import { seededInstruction, transcriptSeed } from './seed.ts';
import type { HandOffOptions } from './voice-handoff.ts';
import { CallRequests } from './call-requests.ts';
import { CallAudio } from './call-audio.ts';
import { EncoderStage, ModelAudioStage, ModelInput } from './call-stages.ts';
import { ReceiveStage } from './input-stages.ts';
import { wireCall, type PipelineView } from './pipeline.ts';
import { openCallEnds } from './call-open.ts';
import { CallStates } from './call-states.ts';
import { CallTurn, type CallTurnOptions } from './call-turn.ts';
import type { Patience } from '../contracts/patience.ts';
import { CallMetrics } from './metrics.ts';
import { bindModelSession } from './model-binding.ts';
import type { BridgeOptions } from './options.ts';
import { ReplyCut, type CutReason } from './reply-cut.ts';
import { ReplyFollower } from './reply-follower.ts';
import { SpokenOutcomes } from './spoken-outcomes.ts';
import { readThroughRoom, SpeakerActivity } from './room.ts';
import { buildRoomView } from './room-view.ts';
import { SpeakerNotes } from './speaker-notes.ts';
import { BridgeError, type BridgeControl, type BridgeStatus, type SpokenVerb, type StopOptions } from './types.ts';
import { TranscriptAggregator } from './transcripts.ts';
import { CallUiUpdates, UiTicker } from './ui-ticker.ts';
import { bindVoiceEvents } from './voice-binding.ts';
import { WakeGate } from './wake-gate.ts';

export type { BridgeOptions } from './options.ts';

const UI_UPDATE_MS = 100;
/** A Leave waits at most this long for what was asked to be said (docs/sidecar.md, "GET /say/{id}"). */
export const LEAVE_GRACE_MS = 8000;
const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class Bridge extends EventEmitter<{ state: [BridgeStateEvent] }> implements BridgeControl {
  readonly #o: BridgeOptions;
  readonly #log: Logger;
  /** The call's patience and silence cap (call-turn.ts). */
  readonly #turn: CallTurn;
  readonly metricsStore = new CallMetrics();

  #state: BridgeState = 'idle';
  #reason: string | undefined;
  #since = Date.now() / 1000;
  #callId: string | undefined;
  #target: VoiceTarget | undefined;
  /** The call's model session: closed while parked or in an outage, reopened with the call's context. */
  readonly link: ModelLink;
  /** Persona, tools and transcription names: changes reach the call's model mid-call where it allows (live-context.ts). */
  readonly context: LiveContext;
  readonly #parkTimer: ParkTimer;
  readonly #inFlight: InFlight;
  readonly #states: CallStates;
  readonly #ui: UiTicker;
  readonly #uiUpdates: CallUiUpdates;
  #unbindVoice: (() => void) | null = null;
  /** Start attempts so far; stop() during `connecting` bumps it to cancel the attempt in progress. */
  #attempt = 0;
  /** The start attempt in progress (settles after it closed what it opened, on failure). */
  #starting: Promise<void> = Promise.resolve();
  /** Built once per bridge and reset per call, so the 20 ms paths never allocate. */
  readonly #audio: CallAudio;
  readonly #speaking = new Set<string>();
  readonly #transcripts: TranscriptAggregator;
  readonly #activity: SpeakerActivity;
  readonly #speakerNotes: SpeakerNotes;
  readonly #requests: CallRequests;
  readonly #replyCut: ReplyCut;
  readonly #wake: WakeGate;
  /** What became of each request to speak, across calls (GET /say/{id}), and what follows the replies. */
  readonly #outcomes: SpokenOutcomes;
  readonly #follower: ReplyFollower;
  /** The pipeline's stages that are the bridge's own (the rest are CallAudio's and the wake gate's). */
  readonly #receive = new ReceiveStage();
  readonly #modelAudio = new ModelAudioStage();
  readonly #encoder: EncoderStage;
  /** The call's stages as wired, in order (pipeline.ts). */
  readonly pipeline: PipelineView;

  constructor(options: BridgeOptions) {
    super();
    this.#o = options;
    this.#log = options.logger;
    const now = options.now ?? (() => performance.now());
    this.#states = new CallStates({
      state: () => this.#state,
      live: () => this.#callLive(),
      transition: (state, reason) => this.#transition(state, reason),
      fail: (reason) => void this.#fail(reason),
      metrics: this.metricsStore,
      link: () => this.link,
      voiceState: () => this.#o.voice.state,
      parkTimer: () => this.#parkTimer,
    });
    this.#uiUpdates = new CallUiUpdates({
      readLevels: () => this.#audio.readLevels(),
      speaking: this.#speaking,
      publishLevels: (levels) => this.#o.hub.publish({ type: 'levels', data: { ...levels, speaking: [...this.#speaking] } }),
      publishMetrics: () => {
        this.#audio.syncMetrics();
        this.#o.hub.publish({ type: 'metrics', data: this.metricsStore.snapshot() });
      },
    });
    this.#ui = new UiTicker({ periodMs: UI_UPDATE_MS, now, tick: () => this.#uiUpdates.tick() });
    const inputChunkMs = options.inputChunkMs ?? 20;
    this.#wake = new WakeGate({
      settings: options.wake?.settings ?? { names: [], auto: true, followUpMs: 0 },
      screener: options.wake?.screener ?? null,
      chunkSamples: (16 * inputChunkMs) | 0,
      humansInCall: () => options.voice.channelMembers?.().length ?? 0,
      now,
      logger: options.logger,
    });
    this.#audio = new CallAudio({
      inputChunkMs,
      // An utterance the model hears is the service's turn to end (voice-gate.ts); one the wake-name gate withholds ends at the gate's hangover.
      holdTurn: () => !this.#wake.withholding,
      metrics: this.metricsStore,
      now,
      // Nothing runs per tick in a quiet call: the UI updates, the input clock and the player (its
      // 20 ms clock, Opus encoding, encryption, UDP) all stop when there is no audio, and restart
      // with the next packet, reply or sound effect (the playback stage starts and stops the encoder).
      onActivity: () => this.#ui.start(),
      onFrame: (at) => this.#ui.frame(at),
    });
    this.#turn = new CallTurn(() => options.turn?.() ?? {}, (ms) => this.#audio.gate.setTurnCap(ms));
    const voice = options.voice;
    const room = readThroughRoom(options.room ?? {}, voice);
    this.#activity = new SpeakerActivity(room, options.now ?? (() => performance.now()));
    this.#speakerNotes = new SpeakerNotes({ room: options.room, activity: this.#activity, notes: options.notes, session: () => this.link.session, withholding: () => this.#wake.withholding, now });
    this.#wake.connectVerdicts(this.#speakerNotes);
    this.context = new LiveContext({
      current: () => this.#connectOptions(false),
      session: () => this.link.session,
      wakeNames: options.wake?.settings.names ?? [],
      speakerIds: () => [...(room.allowedSpeakers ?? []), ...(voice.channelMembers?.() ?? [])],
      displayName: room.displayName,
      note: (text) => options.notes.append({ kind: 'note', text }),
      logger: this.#log,
    });
    options.tools.onChange(() => this.context.changed());
    options.notes.nameSpeakers((id) => this.#activity.name(id));
    this.#transcripts = new TranscriptAggregator((kind, text, speaker) => options.notes.append({ kind, text, speaker }));
    this.#inFlight = new InFlight(() => this.#parkTimer.touch());
    this.#parkTimer = new ParkTimer({ afterMs: () => (options.park?.afterS() ?? 60) * 1000, now, busy: () => this.#inFlight.busy() ?? options.park?.holds?.() ?? null, park: (why) => void this.link.park(why) });
    this.link = new ModelLink({
      provider: options.model,
      connectOptions: () => this.#connectOptions(true),
      bind: (session) => this.#bindModel(session),
      onChange: (state, reason) => this.#states.linkChanged(state, reason),
      logger: this.#log,
      now,
      wakeRefusal: options.wakeRefusal,
      retry: options.park?.retry,
    });
    this.#outcomes = new SpokenOutcomes({
      publish: (outcome) => options.hub.publish({ type: 'say', data: outcome }),
      note: (text) => options.notes.append({ kind: 'note', text }),
    });
    this.#follower = new ReplyFollower({ outcomes: this.#outcomes, playback: () => this.#audio.playbackStats() });
    this.#replyCut = new ReplyCut({
      audio: this.#audio,
      metrics: this.metricsStore,
      activity: this.#activity,
      speakerNotes: this.#speakerNotes,
      transcripts: this.#transcripts,
      sendFadeNow: () => voice.pokePlayback?.(true),
      session: () => this.link.session,
      connected: () => this.#state === 'connected',
      withholding: () => this.#wake.withholding,
      onCut: (why, playedMs) => this.#followCut(why, playedMs),
    });
    this.#requests = new CallRequests({
      link: this.link,
      inFlight: this.#inFlight,
      notes: options.notes,
      metrics: this.metricsStore,
      live: () => this.#callLive(),
      connected: () => this.#state === 'connected',
      wakeRefusal: options.wakeRefusal,
      outcomes: this.#outcomes,
      follower: this.#follower,
      endReason: () => this.#reason,
    });
    this.#encoder = new EncoderStage(voice, () => this.#state);
    options.patience?.bind({ target: () => (this.#callLive() ? this : null), name: (id) => this.#activity.name(id) });
    const audio = this.#audio;
    audio.connectBargeIn(this.#replyCut);
    this.pipeline = wireCall(
      { receive: this.#receive.stage, mix: audio.mix, resample: audio.resample.stage, gate: audio.gate.stage, wake: this.#wake.stage, model: new ModelInput(this.link, this.#inFlight, this.#activity, this.metricsStore).stage },
      { 'model-audio': this.#modelAudio.stage, playback: audio.playback, encode: this.#encoder.stage },
    );
  }

  status(): BridgeStatus {
    return {
      state: this.#state,
      ...(this.#reason ? { reason: this.#reason } : {}),
      ...(this.#callId ? { callId: this.#callId } : {}),
      since: this.#since,
      ...(this.#target ? { target: this.#target } : {}),
      connections: { discord: this.#o.voice.state, model: this.#states.modelState },
      opus: this.#o.voice.opusLibrary,
      dave: this.#o.voice.daveStatus?.() ?? null,
      levels: this.#uiUpdates.levels,
      speaking: [...this.#speaking],
    };
  }

  room(): RoomView {
    const inChannel = this.#callLive() ? (this.#o.voice.channelMembers?.() ?? []) : [];
    return buildRoomView({ people: this.#o.room ?? {}, inChannel, speaking: this.#speaking, ownerOnly: this.#o.tools.ownerOnly(), name: (id) => this.#activity.name(id), wake: this.#wake.view(), patience: this.#o.patience });
  }

  metrics(): Record<string, unknown> {
    this.#audio.syncMetrics();
    return { ...this.metricsStore.snapshot(), playback: this.#audio.playbackStats(), model_link: this.link.figures() };
  }

  async start(target?: VoiceTarget, call?: CallTurnOptions): Promise<BridgeStatus> {
    if (this.#state === 'connecting' || this.#callLive() || this.#state === 'stopping') {
      throw new BridgeError('already_active', `a call is already ${this.#state}`);
    }
    const refusal = this.#o.startRefusal?.();
    if (refusal) throw new BridgeError('daily_cap_reached', refusal);
    this.#callId = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
    this.#o.notes.startCall(this.#callId);
    this.#audio.reset();
    this.#turn.begin(call);
    // The call's patience (its own, else the setting) is the floor the learner lengthens per speaker;
    // the first session opens with the longest learnt window of the voices it may hear.
    const room = this.#o.room;
    const opening = this.#o.patience?.beginCall(this.#turn.patience, [...(room?.ownerId ? [room.ownerId] : []), ...(room?.allowedSpeakers ?? [])]);
    if (opening !== undefined && opening !== this.#turn.patience) this.#turn.set(opening, null);
    const attempt = ++this.#attempt;
    this.#transition('connecting');
    const starting = this.#connect(attempt, target);
    this.#starting = starting.then(
      () => undefined,
      () => undefined,
    );
    return starting;
  }

  /** True when stop() (or a newer start) has replaced the start attempt `attempt`. */
  #superseded(attempt: number): boolean {
    return attempt !== this.#attempt;
  }

  async #connect(attempt: number, target?: VoiceTarget): Promise<BridgeStatus> {
    // The voice check (the `sileroVad` setting) is read at each call; loaded once, it answers at once.
    const classifier = (await this.#o.voiceCheck?.()) ?? null;
    const opening = await openCallEnds(
      () => Promise.resolve(this.#o.ready?.()).then(() => this.#o.voice.join(target)),
      () => this.#o.model.connect(this.#connectOptions(false)),
      () => this.#superseded(attempt),
    );
    if (!opening.ok) {
      if (opening.session) await opening.session.close().catch((err: unknown) => this.#log.warn({ err }, 'closing the model session failed'));
      await this.#teardown(); // leaves the voice channel
      // stop() during connecting owns the transition to `stopped`; a failure ends in `error`, a
      // refused target in `stopped` (nothing failed: /health must not report a failed call).
      if (!this.#superseded(attempt)) {
        if (opening.wrongTarget) this.#transition('stopped', `not joined: ${opening.failure.message}`);
        else this.#transition('error', opening.failure.message);
      }
      throw opening.failure;
    }
    try {
      this.#target = opening.target;
      this.#inFlight.reset();
      this.link.adopt(opening.session);
      this.#bindVoice();
      this.context.changed(); // the room is known now: its names join the transcription vocabulary
      this.#encoder.begin(this.#audio.playbackSource);
      this.#audio.gate.useClassifier(classifier);
      this.#audio.start();
      this.#wake.start();
      this.#ui.start();
      this.#transition('connected');
      return this.status();
    } catch (err) {
      await this.#teardown();
      this.#transition('error', errorText(err));
      throw err;
    }
  }

  async stop(reason = 'requested', options: StopOptions = {}): Promise<{ stopped: boolean; status: BridgeStatus }> {
    // A Leave lets what waits to be said be spoken first (bounded); the rest is reported dropped at teardown.
    if (options.finishSpeaking && this.#callLive()) await this.#outcomes.settled(this.#outcomes.waiting(), LEAVE_GRACE_MS);
    if (this.#state === 'idle' || this.#state === 'stopped' || this.#state === 'error' || this.#state === 'stopping') {
      return { stopped: false, status: this.status() };
    }
    const wasConnecting = this.#state === 'connecting';
    this.#transition('stopping', reason);
    if (wasConnecting) {
      // Cancel the start in progress; it closes what it opened once both sides settle.
      this.#attempt++;
      await this.#starting;
    } else {
      await this.#teardown();
    }
    this.#transition('stopped', reason);
    return { stopped: true, status: this.status() };
  }

  say(text: string, source = 'sidecar', verb: SpokenVerb = 'announce', route: SayVerb = verb === 'message' ? 'ask' : 'announce'): string {
    return this.#requests.say(text, source, verb, route);
  }

  sayOutcome(id: string): SayOutcome | undefined {
    return this.#outcomes.get(id);
  }

  /** A cut reply's outcome names who cut it: the people talking over it, or the stop button. */
  #followCut(why: CutReason, playedMs: number): void {
    if (why === 'stopped by you') return this.#follower.cut(playedMs, 'Stop talking', 'stopped with Stop talking');
    const names = [...this.#speaking].map((id) => this.#activity.name(id));
    this.#follower.cut(playedMs, names.length ? names.join(' and ') : null, names.length ? `${names.join(' and ')} spoke` : 'the model service cut the reply off');
  }

  /** Notifier's voice mode (call-requests.ts). */
  speak(text: string, options: HandOffOptions): Promise<VoiceHandOff> {
    return this.#requests.speak(text, options);
  }

  /** Mute / push-to-talk: whether the users' audio may reach the model (kept across calls). */
  setUserAudioOpen(open: boolean): void {
    this.#audio.setUserAudioOpen(open);
    // Push-to-talk pressed in a parked call: the model wakes while the user starts to speak.
    if (open && this.link.state === 'parked' && !this.#o.wakeRefusal?.()) void this.link.wake('push-to-talk');
  }

  /** Mix a short clip (48 kHz mono) into playback without stopping speech (notification sound). */
  playEffect(clip: Int16Array, gain = 0.5): boolean {
    if (!this.#callLive()) return false;
    this.#audio.playEffect(clip, gain);
    return true;
  }

  sendFrame(image: Buffer): Promise<FrameSendResult> {
    return this.#requests.sendFrame(image);
  }

  /** The call's patience from now on (a speaker's learnt patience, a change in settings): this session and the next. */
  setPatience(patience: Patience): void {
    this.#turn.set(patience, this.link.session);
  }

  /** A session opened mid-call (`reopen`) starts with the call's recent transcript (seed.ts). */
  #connectOptions(reopen: boolean): LiveModelConnectOptions {
    const persona = this.#speakerNotes.persona(typeof this.#o.systemInstruction === 'function' ? this.#o.systemInstruction() : this.#o.systemInstruction);
    const seed = reopen ? transcriptSeed(this.#o.notes.currentCallNotes(200)?.notes ?? [], (id) => this.#activity.name(id)) : '';
    return { tools: this.#o.tools.declarations(), systemInstruction: seededInstruction(persona, seed), playedMs: () => this.#audio.playbackStats().turnPlayedMs, vocabulary: this.context.vocabulary(), pendingContext: this.#o.pendingContext, patience: this.#turn.patience };
  }

  /** Connected, reconnecting or parked inside a call that is still going (the model link holds input meanwhile). */
  #callLive(): boolean {
    return this.#state === 'connected' || this.#state === 'reconnecting' || this.#state === 'parked';
  }

  // ------------------------------------------------------------------------------------------
  // Wiring

  #bindVoice(): void {
    this.#unbindVoice = bindVoiceEvents(this.#o.voice, {
      pcm: this.#receive.pcm,
      speakingStart: (id) => {
        this.#speaking.add(id);
        this.#activity.start(id);
        // Only a voice the model hears has turns for the service to end (not while muted, not opted out).
        if (this.#audio.userAudioOpen && !this.#o.room?.optedOut?.(id)) this.#o.patience?.speechStarted(id, this.#audio.replyPlaying);
        // Muted: the model is not told who talks either (it hears nothing of it).
        if (this.#audio.userAudioOpen) this.#speakerNotes.announce(id);
        this.#ui.start();
      },
      speakingEnd: (id) => {
        this.#speaking.delete(id);
        this.#activity.end(id);
        this.#o.patience?.speechEnded(id);
      },
      state: (state, reason) => this.#states.voiceChanged(state, reason),
      ownerLeft: () => {
        if (this.#o.leaveWhenOwnerLeaves ?? true) void this.stop('the owner left the voice channel');
      },
      membersChanged: () => {
        this.#wake.refresh();
        this.context.changed();
      },
    });
  }

  /** Wires a session into the call; returns the unwiring (the link closes sessions while the call goes on). */
  #bindModel(model: LiveModelSession): () => void {
    this.#states.modelState = model.state;
    const unbind = bindModelSession(model, {
      tools: this.#o.tools,
      notes: this.#o.notes,
      logger: this.#log,
      activity: this.#activity,
      inFlight: this.#inFlight,
      transcripts: this.#transcripts,
      onInputTranscript: this.#o.onInputTranscript,
      botSpoke: () => {
        this.#wake.botSpoke();
        this.#parkTimer.touch();
      },
      audio: this.#audio,
      modelAudio: this.#modelAudio,
      pokePlayback: () => this.#o.voice.pokePlayback?.(),
      replyCut: this.#replyCut,
      speakerNotes: this.#speakerNotes,
      state: (state, reason) => this.#states.modelChanged(state, reason),
      opened: () => this.context.opened(),
      replyStarted: () => this.#o.patience?.replyStarted(),
      closed: () => this.context.closed(),
    });
    // After the binding's own listeners (the playback has the chunk, the turn is ended): the spoken outcomes.
    model.on('audio', (pcm) => this.#follower.modelAudio(pcm.length));
    model.on('outputTranscript', (text) => this.#follower.outputTranscript(text));
    model.on('turnComplete', () => this.#follower.turnComplete());
    model.on('interrupted', () => this.#follower.serviceInterrupted());
    return () => {
      unbind();
      this.#follower.sessionClosed();
      this.#states.modelState = 'disconnected';
    };
  }

  /** Stop the model's voice now (barge-in, or "stop talking" from the page/tray): the rest of this reply is dropped. */
  interruptReply(why: CutReason = 'stopped by you'): { interrupted: boolean; played_ms: number } {
    return this.#replyCut.cut(why);
  }

  async #fail(reason: string): Promise<void> {
    this.#transition('stopping', reason);
    await this.#teardown();
    this.#transition('error', reason);
  }

  async #teardown(): Promise<void> {
    this.#follower.callEnded(this.#reason ?? 'the call ended');
    this.#ui.stop();
    this.#audio.stop();
    this.#wake.stop();
    this.#unbindVoice?.();
    this.#unbindVoice = null;
    this.#parkTimer.stop();
    this.#transcripts.flush();
    this.#o.voice.stopPlayback();
    await Promise.allSettled([this.link.close(), this.#o.voice.leave()]);
    this.#speaking.clear();
    this.#activity.clear();
    this.#speakerNotes.turnEnded();
    this.#replyCut.turnEnded();
    this.#o.patience?.endCall();
    this.#uiUpdates.reset();
    this.#o.notes.endCall();
  }

  #transition(state: BridgeState, reason?: string): void {
    const previous = this.#state;
    if (previous === state && reason === this.#reason) return;
    this.#state = state;
    this.#reason = reason;
    this.#since = Date.now() / 1000;
    const event: BridgeStateEvent = { state, previous, ts: this.#since, ...(reason ? { reason } : {}) };
    this.#log.info({ state, previous, reason }, 'bridge state');
    this.#o.notes.append({ kind: 'state', text: reason ? `${state}: ${reason}` : state });
    this.#o.hub.publish({ type: 'state', data: event });
    this.emit('state', event);
  }
}

