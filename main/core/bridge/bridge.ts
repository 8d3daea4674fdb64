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
import type { BridgeState, BridgeStateEvent, ConnectionState, RoomView } from '../api-types.ts';
import type { EventHub } from '../event-hub.ts';
import { attachToolDispatcher } from '../model/tool-dispatcher.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import type { FrameSendResult, LiveModelConnectOptions, LiveModelProvider, LiveModelSession, SpeechScreener, VoiceChannelPort, VoiceTarget } from '../ports.ts';
import type { VoiceHandOff } from '../notify/types.ts';
import { ModelLink, type ModelLinkState } from './model-link.ts';
import { LiveContext } from './live-context.ts';
import { InFlight, ParkTimer } from './park.ts';
import { seededInstruction, transcriptSeed } from './seed.ts';
import { handOffText, type HandOffOptions } from './voice-handoff.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { CallAudio } from './call-audio.ts';
import { CallMetrics } from './metrics.ts';
import { SpeakerActivity, type RoomPeople } from './room.ts';
import { buildRoomView } from './room-view.ts';
import { BridgeError, VoiceTargetError, type BridgeControl, type BridgeStatus, type SpokenVerb } from './types.ts';
import { TranscriptAggregator } from './transcripts.ts';
import { CallUiUpdates, UiTicker } from './ui-ticker.ts';
import { WakeGate, type WakeSettings } from './wake-gate.ts';

export interface BridgeOptions {
  voice: VoiceChannelPort;
  model: LiveModelProvider;
  tools: ToolRegistry;
  notes: NotesLog;
  hub: EventHub;
  logger: Logger;
  /** The persona; a function is read again at each call (a saved persona file applies without a restart). */
  systemInstruction?: string | (() => string | undefined);
  inputChunkMs?: number;
  leaveWhenOwnerLeaves?: boolean;
  /** Asked before each call starts: a reason to refuse it (e.g. the daily cost cap), or null. */
  startRefusal?: () => string | null;
  /** Awaited before joining (the bot's login, which runs in the background from start-up). */
  ready?: () => Promise<void>;
  /** Monotonic ms clock for latency metrics. */
  now?: () => number;
  /** Who the owner and the allowed speakers are, and their display names (tool authority, attribution). */
  room?: RoomPeople;
  /** Each input transcription fragment as it arrives (notes get whole utterances only at turn end). */
  onInputTranscript?: (text: string, speaker: string | undefined) => void;
  /** Wake names (docs/architecture.md "Several people in one call"); absent = never gated. */
  wake?: { settings: WakeSettings; screener: SpeechScreener | null };
  /** Quiet seconds after which the model is parked (0 never; docs/usage.md), and the outage retry back-off. */
  /** `holds`: work outside the bridge that waits on the call (an agent's question to the owner) keeps it from parking. */
  park?: { afterS: () => number; retry?: { initialMs: number; maxMs: number }; holds?: () => string | null };
  /** Asked before a parked call wakes: a reason to stay parked (the daily cost cap), or null. */
  wakeRefusal?: () => string | null;
  /** Reminders due soon, as short text, for a fresh session that continues the call (ports.ts `pendingContext`). */
  pendingContext?: () => string | undefined;
}

const UI_UPDATE_MS = 100;
/** Told to the model in a call with several allowed speakers, with the per-turn notes it explains. */
const SPEAKER_NOTES_RULE =
  'Several people can talk in this call. A line like "[Speaking now: NAME]" tells you who is talking; it is not said by anyone. ' +
  'Never read it aloud and do not answer it by itself; use the name when it helps.';

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class Bridge extends EventEmitter<{ state: [BridgeStateEvent] }> implements BridgeControl {
  readonly #o: BridgeOptions;
  readonly #log: Logger;
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
  #modelState: ConnectionState = 'disconnected';
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
  /** The speaker the model was last told about in this turn (named again only when it changes). */
  #announced: string | undefined;
  readonly #wake: WakeGate;
  readonly #now: () => number;

  constructor(options: BridgeOptions) {
    super();
    this.#o = options;
    this.#log = options.logger;
    const now = options.now ?? (() => performance.now());
    this.#now = now;
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
      forward: (chunk) => {
        this.#inFlight.inputOpened();
        this.link.sendAudio(chunk);
        this.metricsStore.bytesToModel += chunk.byteLength;
      },
      endInput: () => {
        this.#inFlight.inputEnded();
        this.link.endAudioInput();
      },
      onAccepted: (startedAt) => this.#announceAccepted(startedAt),
      onDropped: (startedAt, why) => this.#noteNotForBot(startedAt, why),
      logger: options.logger,
    });
    this.#audio = new CallAudio({
      inputChunkMs,
      metrics: this.metricsStore,
      onSpeech: (chunk) => this.#wake.speech(chunk),
      onSpeechEnd: () => this.#wake.end(),
      now,
      // Nothing runs per tick in a quiet call: the UI updates, the input clock and the player (its
      // 20 ms clock, Opus encoding, encryption, UDP) all stop when there is no audio, and restart
      // with the next packet, reply or sound effect.
      onActivity: () => this.#ui.start(),
      onFrame: (at) => this.#ui.frame(at),
      // Called from inside the player's cycle: stop it after that cycle, not in the middle of it.
      onOutputIdle: () => setImmediate(() => {
        if ((this.#state === 'connected' || this.#state === 'parked') && !this.#audio.outputActive) this.#o.voice.stopPlayback();
      }),
      onOutputResume: () => {
        if (this.#callLive()) this.#o.voice.startPlayback(this.#audio.playbackSource);
      },
    });
    const voice = options.voice;
    const people = options.room ?? {};
    const room: RoomPeople = {
      ownerId: people.ownerId,
      // Read through, not copied: allowed speakers saved in Settings apply mid-call.
      get allowedSpeakers() {
        return people.allowedSpeakers;
      },
      displayName: people.displayName ?? (voice.displayName ? (id) => voice.displayName?.(id) : undefined),
    };
    this.#activity = new SpeakerActivity(room, options.now ?? (() => performance.now()));
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
      onChange: (state, reason) => this.#onLinkState(state, reason),
      logger: this.#log,
      now,
      wakeRefusal: options.wakeRefusal,
      retry: options.park?.retry,
    });
  }

  status(): BridgeStatus {
    return {
      state: this.#state,
      ...(this.#reason ? { reason: this.#reason } : {}),
      ...(this.#callId ? { callId: this.#callId } : {}),
      since: this.#since,
      ...(this.#target ? { target: this.#target } : {}),
      connections: { discord: this.#o.voice.state, model: this.#modelState },
      opus: this.#o.voice.opusLibrary,
      dave: this.#o.voice.daveStatus?.() ?? null,
      levels: this.#uiUpdates.levels,
      speaking: [...this.#speaking],
    };
  }

  room(): RoomView {
    const inChannel = this.#callLive() ? (this.#o.voice.channelMembers?.() ?? []) : [];
    return buildRoomView({ people: this.#o.room ?? {}, inChannel, speaking: this.#speaking, ownerOnly: this.#o.tools.ownerOnly(), name: (id) => this.#activity.name(id), wake: this.#wake.view() });
  }

  metrics(): Record<string, unknown> {
    this.#audio.syncMetrics();
    return { ...this.metricsStore.snapshot(), playback: this.#audio.playbackStats(), model_link: this.link.figures() };
  }

  async start(target?: VoiceTarget): Promise<BridgeStatus> {
    if (this.#state === 'connecting' || this.#callLive() || this.#state === 'stopping') {
      throw new BridgeError('already_active', `a call is already ${this.#state}`);
    }
    const refusal = this.#o.startRefusal?.();
    if (refusal) throw new BridgeError('daily_cap_reached', refusal);
    this.#callId = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
    this.#o.notes.startCall(this.#callId);
    this.#audio.reset();
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
    const joining = Promise.resolve(this.#o.ready?.()).then(() => this.#o.voice.join(target));
    const connecting = this.#o.model.connect(this.#connectOptions(false));
    // Both run at once. When one fails (or stop() comes first) the other may still be opening: wait
    // for BOTH to settle and close whatever opened, or a model session opened after a failed join
    // would stay live (and billing) with nobody to close it. The voice port is one connection, so
    // leaving before its join settles could also race a later call's join.
    const [joined, session] = await Promise.allSettled([joining, connecting]);
    // A wrong target (VoiceTargetError) is the caller's mistake: passed on as is, for a 4xx.
    const wrongTarget = joined.status === 'rejected' && joined.reason instanceof VoiceTargetError ? joined.reason : null;
    const failure =
      wrongTarget ??
      (joined.status === 'rejected'
        ? new BridgeError('join_failed', `could not join voice: ${errorText(joined.reason)}`)
        : session.status === 'rejected'
          ? new BridgeError('model_failed', `could not connect to the model: ${errorText(session.reason)}`)
          : this.#superseded(attempt)
            ? new BridgeError('cancelled', 'the call was stopped while it was connecting')
            : null);
    if (failure || joined.status === 'rejected' || session.status === 'rejected') {
      if (session.status === 'fulfilled') await session.value.close().catch((err: unknown) => this.#log.warn({ err }, 'closing the model session failed'));
      await this.#teardown(); // leaves the voice channel

      // stop() during connecting owns the transition to `stopped`; a failure ends in `error`, a
      // refused target in `stopped` (nothing failed: /health must not report a failed call).
      if (!this.#superseded(attempt)) {
        if (wrongTarget) this.#transition('stopped', `not joined: ${wrongTarget.message}`);
        else this.#transition('error', failure!.message);
      }
      throw failure;
    }
    try {
      this.#target = joined.value;
      this.#inFlight.reset();
      this.link.adopt(session.value);
      this.#bindVoice();
      this.context.changed(); // the room is known now: its names join the transcription vocabulary
      this.#o.voice.startPlayback(this.#audio.playbackSource);
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

  async stop(reason = 'requested'): Promise<{ stopped: boolean; status: BridgeStatus }> {
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

  /** Held while the call reconnects (the model session queues it) or is parked (it wakes the model). */
  say(text: string, source = 'sidecar', verb: SpokenVerb = 'announce'): void {
    if (!this.#callLive()) throw new BridgeError('no_call', 'no live call to speak in');
    const refusal = this.link.state === 'parked' ? this.#o.wakeRefusal?.() : null;
    if (refusal) throw new BridgeError('daily_cap_reached', refusal);
    this.link.sendText(text, this.#inFlight.text(verb === 'message' ? { asMessage: true } : {}, 120_000));
    // One note per request, with what was sent (never the announce wording) and which verb it was.
    this.#o.notes.append({ kind: 'say', text, speaker: `${source} · ${verb}` });
  }

  /**
   * Notifier's voice mode. Resolves `delivered` when the text was handed to the model (written on
   * the live session as its next turn), or why it was dropped: no live call, the call ended while
   * it waited, the queue overflowed, or no idle moment came within `withinMs`. During a reconnect
   * the text waits in the session's queue like any other.
   */
  speak(text: string, options: HandOffOptions): Promise<VoiceHandOff> {
    if (!this.#callLive() || (this.link.state === 'parked' && this.#o.wakeRefusal?.())) return Promise.resolve({ delivered: false, reason: 'no live call' });
    return handOffText((t, delivery) => this.link.sendText(t, this.#inFlight.text(delivery, options.withinMs + 5000)), text, options);
  }

  /** Mute / push-to-talk: whether the users' audio may reach the model (kept across calls). */
  setUserAudioOpen(open: boolean): void {
    this.#audio.setUserAudioOpen(open);
    // Push-to-talk pressed in a parked call: the model wakes while the user starts to speak.
    if (open && this.link.state === 'parked' && !this.#o.wakeRefusal?.()) void this.link.wake('push-to-talk');
  }

  /** Mix a short clip (48 kHz stereo) into playback without stopping speech (notification sound). */
  playEffect(clip: Int16Array, gain = 0.5): boolean {
    if (!this.#callLive()) return false;
    this.#audio.playEffect(clip, gain);
    return true;
  }

  async sendFrame(image: Buffer): Promise<FrameSendResult> {
    if (this.#state === 'parked') await this.link.wake('frame');
    const model = this.link.session;
    if (!model || this.#state !== 'connected') throw new BridgeError('no_call', 'no live call to send the frame to');
    const result = await model.sendFrame(image);
    if (result.status === 'sent') {
      this.metricsStore.framesSent += 1;
      this.#o.notes.append({ kind: 'frame', text: `image ${result.width}×${result.height} sent to the model` });
    } else {
      this.metricsStore.framesDropped += 1;
    }
    return result;
  }

  #severalSpeakers(): boolean {
    return (this.#o.room?.allowedSpeakers?.length ?? 0) > 1;
  }

  /** A session opened mid-call (`reopen`) starts with the call's recent transcript (seed.ts). */
  #connectOptions(reopen: boolean): LiveModelConnectOptions {
    let persona = typeof this.#o.systemInstruction === 'function' ? this.#o.systemInstruction() : this.#o.systemInstruction;
    if (this.#severalSpeakers()) persona = persona ? `${persona}\n\n${SPEAKER_NOTES_RULE}` : SPEAKER_NOTES_RULE;
    const seed = reopen ? transcriptSeed(this.#o.notes.currentCallNotes(200)?.notes ?? [], (id) => this.#activity.name(id)) : '';
    return { tools: this.#o.tools.declarations(), systemInstruction: seededInstruction(persona, seed), playedMs: () => this.#audio.playbackStats().turnPlayedMs, vocabulary: this.context.vocabulary(), pendingContext: this.#o.pendingContext };
  }

  /**
   * At each turn, before its audio, the model is told who speaks (and again when someone else
   * starts), as context that neither starts nor interrupts a reply (provider's `addContext`).
   */
  #announceSpeaker(id: string): void {
    // Speech that may be kept from the model (wake names) is named once it is let through (#announceAccepted).
    if (!this.#severalSpeakers() || id === this.#announced || this.#wake.withholding) return;
    if (this.link.session?.addContext?.(`[Speaking now: ${this.#activity.name(id)}]`)) this.#announced = id;
  }

  /** A screened utterance was let through: name its speaker(s) before its held audio reaches the model. */
  #announceAccepted(startedAt: number): void {
    for (const id of this.#activity.activeDuring(startedAt, this.#now())) this.#announceSpeaker(id);
  }

  /** The notes say an utterance was kept from the model, and whose (never its words). */
  #noteNotForBot(startedAt: number, why: string): void {
    const ids = this.#activity.activeDuring(startedAt, this.#now());
    const who = ids.length > 0 ? ids.map((id) => this.#activity.name(id)).join(' and ') : 'someone';
    this.#o.notes.append({ kind: 'note', text: `not for the bot: ${who} spoke, but ${why}`, ...(ids.length === 1 ? { speaker: ids[0] } : {}) });
  }

  /** Connected, reconnecting or parked inside a call that is still going (the model link holds input meanwhile). */
  #callLive(): boolean {
    return this.#state === 'connected' || this.#state === 'reconnecting' || this.#state === 'parked';
  }

  // ------------------------------------------------------------------------------------------
  // Wiring

  #bindVoice(): void {
    const voice = this.#o.voice;
    const onPcm = (speakerId: string, frame: Int16Array) => this.#audio.pushSpeakerFrame(speakerId, frame);
    const onStart = (id: string) => {
      this.#speaking.add(id);
      this.#activity.start(id);
      // Muted: the model is not told who talks either (it hears nothing of it).
      if (this.#audio.userAudioOpen) this.#announceSpeaker(id);
      this.#ui.start();
    };
    const onEnd = (id: string) => {
      this.#speaking.delete(id);
      this.#activity.end(id);
    };
    const onState = (state: ConnectionState, reason?: string) => this.#onVoiceState(state, reason);
    const onOwnerLeft = () => {
      if (this.#o.leaveWhenOwnerLeaves ?? true) void this.stop('the owner left the voice channel');
    };
    const onMembers = () => {
      this.#wake.refresh();
      this.context.changed();
    };
    voice.on('pcm', onPcm);
    voice.on('speakingStart', onStart);
    voice.on('speakingEnd', onEnd);
    voice.on('state', onState);
    voice.on('ownerLeft', onOwnerLeft);
    voice.on('membersChanged', onMembers);
    this.#unbindVoice = () => {
      voice.off('membersChanged', onMembers);
      voice.off('pcm', onPcm);
      voice.off('speakingStart', onStart);
      voice.off('speakingEnd', onEnd);
      voice.off('state', onState);
      voice.off('ownerLeft', onOwnerLeft);
    };
  }

  /** Wires a session into the call; returns the unwiring (the link closes sessions while the call goes on). */
  #bindModel(model: LiveModelSession): () => void {
    this.#modelState = model.state;
    const dispatcher = attachToolDispatcher(model, this.#o.tools, {
      logger: this.#log,
      // Read when the call arrives: the voices of the turn it answers decide what it may do.
      heard: () => this.#activity.heardThisTurn(),
      onSettled: ({ call, outcome, replied, heard }) => {
        this.#inFlight.toolSettled();
        const refused = !outcome.ok && (outcome.error.code === 'owner_only' || outcome.error.code === 'not_allowed');
        const text = refused
          ? `${call.name}: refused (${outcome.error.code}), asked by ${heard?.names.join(' and ') ?? 'nobody heard'}`
          : `${call.name}: ${!replied ? 'cancelled' : outcome.ok ? 'ok' : `error (${outcome.error.code})`}`;
        this.#o.notes.append({ kind: 'tool_call', text, ...(heard && heard.ids.length === 1 ? { speaker: heard.ids[0] } : {}) });
      },
    });
    model.on('toolCall', () => this.#inFlight.toolStarted());
    model.on('audio', (pcm) => {
      this.#wake.botSpoke();
      this.#parkTimer.touch();
      const playerRunning = this.#audio.outputActive;
      // A stopped player restarts inside pushModelAudio and sends its first packet at once. A running
      // one sends its next packet on this chunk's wake-up if that slot has begun (playback.ts), so a
      // reply's first frame is not held for the slot's end and, while chunks flow, the player's own
      // timer rarely has to wake the process.
      this.#audio.pushModelAudio(pcm);
      if (playerRunning) this.#o.voice.pokePlayback?.();
    });
    model.on('interrupted', () => this.interruptReply('interrupted'));
    model.on('turnComplete', () => {
      this.#wake.botSpoke();
      this.#parkTimer.touch();
      this.#activity.turnBoundary();
      this.#announced = undefined;
      this.#audio.turnComplete();
      this.#transcripts.flush();
    });
    model.on('inputTranscript', (text) => {
      const speakers = this.#activity.speakersOfFragment();
      this.#transcripts.input(text, speakers);
      // Approval checks want one voice: words said over each other, or late while another talks, are nobody's alone.
      this.#o.onInputTranscript?.(text, this.#activity.soleSpeaker(speakers));
    });
    model.on('outputTranscript', (text) => this.#transcripts.output(text));
    model.on('state', (state, reason) => this.#onModelState(state, reason));
    this.context.opened();
    return () => {
      this.context.closed();
      dispatcher.detach();
      for (const event of ['audio', 'interrupted', 'turnComplete', 'inputTranscript', 'outputTranscript', 'state', 'toolCall'] as const) model.removeAllListeners(event);
      this.#inFlight.reset();
      this.#modelState = 'disconnected';
    };
  }

  /** Stop the model's voice now (barge-in, or "stop talking" from the page/tray): the rest of this reply is dropped. */
  interruptReply(why: 'interrupted' | 'stopped by you' = 'stopped by you'): { interrupted: boolean; played_ms: number } {
    // A barge-in is always honoured (as before); the user's button only in a live call.
    if (why === 'stopped by you' && this.#state !== 'connected') return { interrupted: false, played_ms: 0 };
    this.#activity.cutOff(); // the cut-off request stays open: its voices keep counting (room.ts)
    this.#announced = undefined;
    const playedMs = this.#audio.interrupt();
    // The fade frame goes out now, not at the next slot (the current one may have gone out early).
    this.#o.voice.pokePlayback?.(true);
    this.#transcripts.flush(`(${why} after ${Math.round(playedMs)} ms)`);
    return { interrupted: true, played_ms: Math.round(playedMs) };
  }

  #onVoiceState(state: ConnectionState, reason?: string): void {
    if (!this.#callLive()) return;
    if (state === 'reconnecting') {
      this.metricsStore.reconnects += 1;
      this.#transition('reconnecting', `discord: ${reason ?? 'voice connection lost'}`);
    } else if (state === 'connected' && (this.#modelState === 'connected' || this.link.state === 'parked')) {
      this.#onLinkState(this.link.state);
    } else if (state === 'error' || state === 'disconnected') {
      void this.#fail(`discord: ${reason ?? 'voice connection ended'}`);
    }
  }

  #onModelState(state: ConnectionState, reason?: string): void {
    this.#modelState = state;
    if (this.#state !== 'connected' && this.#state !== 'reconnecting') return;
    if (state === 'reconnecting') {
      this.metricsStore.reconnects += 1;
      this.#transition('reconnecting', `model: ${reason ?? 'connection lost'}`);
    } else if (state === 'connected' && this.#o.voice.state === 'connected') {
      this.#transition('connected');
    } else if (state === 'error' || state === 'disconnected') {
      // An outage longer than the session's own retries: the call stays, the link keeps trying.
      this.link.lost(reason ?? 'connection ended');
    }
  }

  /** The model link parked, woke, lost or reopened the session: the call's state says so. */
  #onLinkState(state: ModelLinkState, reason?: string): void {
    if (state === 'open') this.#parkTimer.start();
    else this.#parkTimer.stop();
    if (!this.#callLive()) return;
    if (state === 'parked') this.#transition('parked', reason);
    else if (state === 'waking') this.#transition('reconnecting', `waking the model (${reason ?? 'wake'})`);
    else if (state === 'down') this.#transition('reconnecting', reason);
    else if (state === 'open' && this.#o.voice.state === 'connected' && this.#modelState === 'connected') this.#transition('connected');
  }

  async #fail(reason: string): Promise<void> {
    this.#transition('stopping', reason);
    await this.#teardown();
    this.#transition('error', reason);
  }

  async #teardown(): Promise<void> {
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
    this.#announced = undefined;
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

