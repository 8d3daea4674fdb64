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
import type { BridgeStateEvent, RoomView, SayOutcome, SayVerb } from '../api-types.ts';
import type { FrameSendResult, VoiceTarget } from '../ports.ts';
import type { VoiceHandOff } from '../notify/types.ts';
import type { ModelLink } from './model-link.ts';
import type { LiveContext } from './live-context.ts';
import type { HandOffOptions } from './voice-handoff.ts';
import { assembleCall, type CallParts } from './call-assembly.ts';
import { CallLifecycle } from './call-lifecycle.ts';
import type { PipelineView } from './pipeline.ts';
import { openCallEnds } from './call-open.ts';
import type { CallTurnOptions } from './call-turn.ts';
import type { Patience } from '../contracts/patience.ts';
import type { CallMetrics } from './metrics.ts';
import type { BridgeOptions } from './options.ts';
import type { CutReason } from './reply-cut.ts';
import { buildRoomView } from './room-view.ts';
import { BridgeError, type BridgeControl, type BridgeStatus, type SpokenVerb, type StopOptions } from './types.ts';
import { bindVoiceEvents } from './voice-binding.ts';

export type { BridgeOptions } from './options.ts';

/** A Leave waits at most this long for what was asked to be said (docs/sidecar.md, "GET /say/{id}"). */
export const LEAVE_GRACE_MS = 8000;
const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class Bridge extends EventEmitter<{ state: [BridgeStateEvent] }> implements BridgeControl {
  readonly #o: BridgeOptions;
  readonly #log: Logger;
  /** The call's state: idle, connecting, connected, … (call-lifecycle.ts). */
  readonly #call: CallLifecycle;
  /** The call's parts, built once per bridge and reset per call, so the 20 ms paths never allocate (call-assembly.ts). */
  readonly #c: CallParts;
  readonly metricsStore: CallMetrics;
  /** The call's model session: closed while parked or in an outage, reopened with the call's context. */
  readonly link: ModelLink;
  /** Persona, tools and transcription names: changes reach the call's model mid-call where it allows (live-context.ts). */
  readonly context: LiveContext;
  /** The call's stages as wired, in order (pipeline.ts). */
  readonly pipeline: PipelineView;
  #callId: string | undefined;
  #target: VoiceTarget | undefined;
  #unbindVoice: (() => void) | null = null;
  /** Start attempts so far; stop() during `connecting` bumps it to cancel the attempt in progress. */
  #attempt = 0;
  /** The start attempt in progress (settles after it closed what it opened, on failure). */
  #starting: Promise<void> = Promise.resolve();

  constructor(options: BridgeOptions) {
    super();
    this.#o = options;
    this.#log = options.logger;
    this.#call = new CallLifecycle({ logger: options.logger, notes: options.notes, hub: options.hub, emitter: this });
    this.#c = assembleCall(options, this.#call, {
      stop: (reason) => this.stop(reason),
      fail: (reason) => this.#fail(reason),
      setPatience: (patience) => this.setPatience(patience),
    });
    this.metricsStore = this.#c.metrics;
    this.link = this.#c.link;
    this.context = this.#c.context;
    this.pipeline = this.#c.pipeline;
  }

  status(): BridgeStatus {
    const { state, reason, since } = this.#call;
    return {
      state,
      ...(reason ? { reason } : {}),
      ...(this.#callId ? { callId: this.#callId } : {}),
      since,
      ...(this.#target ? { target: this.#target } : {}),
      connections: { discord: this.#o.voice.state, model: this.#c.states.modelState },
      opus: this.#o.voice.opusLibrary,
      dave: this.#o.voice.daveStatus?.() ?? null,
      levels: this.#c.uiUpdates.levels,
      speaking: [...this.#c.speaking],
    };
  }

  room(): RoomView {
    const { speaking, activity, wake } = this.#c;
    const inChannel = this.#call.live() ? (this.#o.voice.channelMembers?.() ?? []) : [];
    return buildRoomView({
      people: this.#o.room ?? {},
      inChannel,
      speaking,
      ownerOnly: this.#o.tools.ownerOnly(),
      name: (id) => activity.name(id),
      wake: wake.view(),
      patience: this.#o.patience,
    });
  }

  metrics(): Record<string, unknown> {
    this.#c.audio.syncMetrics();
    return {
      ...this.metricsStore.snapshot(),
      playback: this.#c.audio.playbackStats(),
      model_link: this.link.figures(),
    };
  }

  async start(target?: VoiceTarget, call?: CallTurnOptions): Promise<BridgeStatus> {
    const state = this.#call.state;
    if (state === 'connecting' || this.#call.live() || state === 'stopping') {
      throw new BridgeError('already_active', `a call is already ${state}`);
    }
    const refusal = this.#o.startRefusal?.();
    if (refusal) throw new BridgeError('daily_cap_reached', refusal);
    this.#callId = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
    this.#o.notes.startCall(this.#callId);
    this.#c.audio.reset();
    const turn = this.#c.turn;
    turn.begin(call);
    // The call's patience (its own, else the setting) is the floor the learner lengthens per speaker;
    // the first session opens with the longest learnt window of the voices it may hear.
    const room = this.#o.room;
    const opening = this.#o.patience?.beginCall(turn.patience, [
      ...(room?.ownerId ? [room.ownerId] : []),
      ...(room?.allowedSpeakers ?? []),
    ]);
    if (opening !== undefined && opening !== turn.patience) turn.set(opening, null);
    const attempt = ++this.#attempt;
    this.#call.transition('connecting');
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
      () => this.#o.model.connect(this.#c.setup.options(false)),
      () => this.#superseded(attempt),
    );
    if (!opening.ok) {
      if (opening.session)
        await opening.session
          .close()
          .catch((err: unknown) => this.#log.warn({ err }, 'closing the model session failed'));
      await this.#teardown(); // leaves the voice channel
      // stop() during connecting owns the transition to `stopped`; a failure ends in `error`, a
      // refused target in `stopped` (nothing failed: /health must not report a failed call).
      if (!this.#superseded(attempt)) {
        if (opening.wrongTarget) this.#call.transition('stopped', `not joined: ${opening.failure.message}`);
        else this.#call.transition('error', opening.failure.message);
      }
      throw opening.failure;
    }
    try {
      const c = this.#c;
      this.#target = opening.target;
      c.parkTimer.inFlight.reset();
      this.link.adopt(opening.session);
      this.#unbindVoice = bindVoiceEvents(this.#o.voice, c.voiceEvents);
      this.context.changed(); // the room is known now: its names join the transcription vocabulary
      c.encoder.begin(c.audio.playbackSource);
      c.audio.gate.useClassifier(classifier);
      c.audio.start();
      c.wake.start();
      c.ui.start();
      this.#call.transition('connected');
      return this.status();
    } catch (err) {
      await this.#teardown();
      this.#call.transition('error', errorText(err));
      throw err;
    }
  }

  async stop(reason = 'requested', options: StopOptions = {}): Promise<{ stopped: boolean; status: BridgeStatus }> {
    const outcomes = this.#c.outcomes;
    // A Leave lets what waits to be said be spoken first (bounded); the rest is reported dropped at teardown.
    if (options.finishSpeaking && this.#call.live()) await outcomes.settled(outcomes.waiting(), LEAVE_GRACE_MS);
    const state = this.#call.state;
    if (state === 'idle' || state === 'stopped' || state === 'error' || state === 'stopping') {
      return { stopped: false, status: this.status() };
    }
    this.#call.transition('stopping', reason);
    if (state === 'connecting') {
      // Cancel the start in progress; it closes what it opened once both sides settle.
      this.#attempt++;
      await this.#starting;
    } else {
      await this.#teardown();
    }
    this.#call.transition('stopped', reason);
    return { stopped: true, status: this.status() };
  }

  say(
    text: string,
    source = 'sidecar',
    verb: SpokenVerb = 'announce',
    route: SayVerb = verb === 'message' ? 'ask' : 'announce',
  ): string {
    return this.#c.requests.say(text, source, verb, route);
  }

  sayOutcome(id: string): SayOutcome | undefined {
    return this.#c.outcomes.get(id);
  }

  /** Notifier's voice mode (call-requests.ts). */
  speak(text: string, options: HandOffOptions): Promise<VoiceHandOff> {
    return this.#c.requests.speak(text, options);
  }

  /** Mute / push-to-talk: whether the users' audio may reach the model (kept across calls). */
  setUserAudioOpen(open: boolean): void {
    this.#c.audio.setUserAudioOpen(open);
    // Push-to-talk pressed in a parked call: the model wakes while the user starts to speak.
    if (open && this.link.state === 'parked' && !this.#o.wakeRefusal?.()) void this.link.wake('push-to-talk');
  }

  /** Mix a short clip (48 kHz mono) into playback without stopping speech (notification sound). */
  playEffect(clip: Int16Array, gain = 0.5): boolean {
    if (!this.#call.live()) return false;
    this.#c.audio.playEffect(clip, gain);
    return true;
  }

  sendFrame(image: Buffer): Promise<FrameSendResult> {
    return this.#c.requests.sendFrame(image);
  }

  /** The call's patience from now on (a speaker's learnt patience, a change in settings): this session and the next. */
  setPatience(patience: Patience): void {
    this.#c.turn.set(patience, this.link.session);
  }

  /** Stop the model's voice now (barge-in, or "stop talking" from the page/tray): the rest of this reply is dropped. */
  interruptReply(why: CutReason = 'stopped by you'): { interrupted: boolean; played_ms: number } {
    return this.#c.replyCut.cut(why);
  }

  async #fail(reason: string): Promise<void> {
    this.#call.transition('stopping', reason);
    await this.#teardown();
    this.#call.transition('error', reason);
  }

  async #teardown(): Promise<void> {
    const c = this.#c;
    c.follower.callEnded(this.#call.reason ?? 'the call ended');
    c.ui.stop();
    c.audio.stop();
    c.wake.stop();
    this.#unbindVoice?.();
    this.#unbindVoice = null;
    c.parkTimer.stop();
    c.transcripts.flush();
    this.#o.voice.stopPlayback();
    await Promise.allSettled([this.link.close(), this.#o.voice.leave()]);
    c.speaking.clear();
    c.activity.clear();
    c.speakerNotes.turnEnded();
    c.replyCut.turnEnded();
    this.#o.patience?.endCall();
    c.uiUpdates.reset();
    this.#o.notes.endCall();
  }
}
