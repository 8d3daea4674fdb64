// A call's parts, built once per bridge in dependency order: each part is constructed from parts
// built above it (constructor arguments typed as the small interfaces it uses), so no part reads
// one that does not exist yet. Three kinds of edges are not constructor arguments, and all are here:
// - the pipeline: its stages are connected by wireCall from the one ordered list (pipeline.ts);
// - the call's feedback loops, where a later part answers an earlier one (the audio's barge-in
//   verdicts cut the reply, its frames drive the UI updates that read its levels, the wake gate's
//   verdicts name their speakers, the model link's sessions are wired into the call): each is a
//   connect*/serve call below, once (a second connection throws);
// - the ports' events the call follows (tools, the notes' speaker names; the voice port's events
//   are bound per call by the bridge, from CallVoiceEvents).
// docs/architecture.md "One call, frame by frame" follows this order.
import type { CallLifecycle } from './call-lifecycle.ts';
import type { PatienceTarget } from './call-patience.ts';
import { CallAudio } from './call-audio.ts';
import { CallRequests } from './call-requests.ts';
import { EncoderStage, ModelAudioStage, ModelInput } from './call-stages.ts';
import { CallStates } from './call-states.ts';
import { CallTurn } from './call-turn.ts';
import { ReceiveStage } from './input-stages.ts';
import { LiveContext } from './live-context.ts';
import { CallMetrics } from './metrics.ts';
import { CallModelSide } from './model-binding.ts';
import { ModelLink } from './model-link.ts';
import type { BridgeOptions } from './options.ts';
import { ParkTimer } from './park.ts';
import { wireCall, type PipelineView } from './pipeline.ts';
import { ReplyCut } from './reply-cut.ts';
import { ReplyFollower } from './reply-follower.ts';
import { readThroughRoom, SpeakerActivity } from './room.ts';
import { CallPersona, SessionSetup } from './session-setup.ts';
import { SpeakerNotes } from './speaker-notes.ts';
import { SpokenOutcomes } from './spoken-outcomes.ts';
import { TranscriptAggregator } from './transcripts.ts';
import { CallUiUpdates, UiTicker } from './ui-ticker.ts';
import { CallVoiceEvents } from './voice-binding.ts';
import { WakeGate } from './wake-gate.ts';

const UI_UPDATE_MS = 100;

/** What the parts ask of the bridge that owns them: ending the call, and the call's patience. */
export interface CallOwner extends PatienceTarget {
  stop(reason: string): Promise<unknown>;
  /** Discord is gone: the call ends in `error`. */
  fail(reason: string): unknown;
}

export type CallParts = ReturnType<typeof assembleCall>;

/** Builds a call's parts in order and wires them (see the header): four steps, each from the ones before. */
export function assembleCall(o: BridgeOptions, call: CallLifecycle, owner: CallOwner) {
  const base = buildCallBase(o);
  const conversation = buildConversation(o, call, owner, base);
  const sides = buildCallSides(o, call, owner, base, conversation);
  const pipeline = connectCall(o, call, owner, { ...base, ...conversation, ...sides });
  return { ...base, ...conversation, ...sides, pipeline };
}

type CallBase = ReturnType<typeof buildCallBase>;
type Conversation = ReturnType<typeof buildConversation>;
type CallSides = ReturnType<typeof buildCallSides>;

/** What every other part reads: the clock, who speaks, the model link, the wake gate and the call's audio. */
function buildCallBase(o: BridgeOptions) {
  const now = o.now ?? (() => performance.now());
  const voice = o.voice;
  const metrics = new CallMetrics();
  const speaking = new Set<string>();
  const room = readThroughRoom(o.room ?? {}, voice);
  const activity = new SpeakerActivity(room, now);
  // The model half of the call: the parts below send through it and read its session.
  const link = new ModelLink({
    provider: o.model,
    logger: o.logger,
    now,
    wakeRefusal: o.wakeRefusal,
    retry: o.park?.retry,
  });
  const wake = new WakeGate({
    settings: o.wake?.settings ?? { names: [], auto: true, followUpMs: 0 },
    screener: o.wake?.screener ?? null,
    humansInCall: () => voice.channelMembers?.().length ?? 0,
    now,
    logger: o.logger,
  });
  // Mix, resample and gate (and playback, upsample on the way out); the turn a heard utterance is is the service's to end.
  const audio = new CallAudio({ inputChunkMs: o.inputChunkMs ?? 20, holdTurn: wake.serviceHearsSpeech, metrics, now });
  const uiUpdates = new CallUiUpdates({ audio, speaking, hub: o.hub, metrics });
  const ui = new UiTicker({ periodMs: UI_UPDATE_MS, now, updates: uiUpdates });
  const turn = new CallTurn(o.turn, audio.gate);
  return { now, metrics, speaking, room, activity, link, wake, audio, uiUpdates, ui, turn };
}

/** The conversation on top: the speakers' notes, the persona and live context, the reply and the call's requests. */
function buildConversation(o: BridgeOptions, call: CallLifecycle, owner: CallOwner, base: CallBase) {
  const { now, metrics, speaking, room, activity, link, wake, audio, turn } = base;
  const voice = o.voice;
  const speakerNotes = new SpeakerNotes({ room: o.room, activity, notes: o.notes, link, wake, now });
  const persona = new CallPersona({ systemInstruction: o.systemInstruction, tools: o.tools, speakerNotes });
  const context = new LiveContext({
    persona,
    link,
    wakeNames: o.wake?.settings.names ?? [],
    speakerIds: () => [...(room.allowedSpeakers ?? []), ...(voice.channelMembers?.() ?? [])],
    displayName: room.displayName,
    note: (text) => o.notes.append({ kind: 'note', text }),
    logger: o.logger,
  });
  const setup = new SessionSetup({
    persona,
    notes: o.notes,
    activity,
    audio,
    context,
    turn,
    pendingContext: o.pendingContext,
  });
  const transcripts = new TranscriptAggregator((kind, text, speaker) => o.notes.append({ kind, text, speaker }));
  const parkTimer = new ParkTimer({ afterMs: () => (o.park?.afterS() ?? 60) * 1000, now, holds: o.park?.holds, link });
  const outcomes = new SpokenOutcomes({
    publish: (outcome) => o.hub.publish({ type: 'say', data: outcome }),
    note: (text) => o.notes.append({ kind: 'note', text }),
  });
  const follower = new ReplyFollower({ outcomes, audio, speaking, activity });
  const replyCut = new ReplyCut({
    audio,
    metrics,
    activity,
    speakerNotes,
    transcripts,
    voice,
    link,
    call,
    wake,
    follower,
  });
  const inFlight = parkTimer.inFlight;
  const requests = new CallRequests({
    link,
    inFlight,
    notes: o.notes,
    metrics,
    call,
    wakeRefusal: o.wakeRefusal,
    outcomes,
    follower,
  });
  const states = new CallStates({ call, owner, metrics, link, voice, parkTimer });
  return {
    speakerNotes,
    persona,
    context,
    setup,
    transcripts,
    parkTimer,
    outcomes,
    follower,
    replyCut,
    inFlight,
    requests,
    states,
  };
}

/** The call's two sides: the model's (tools, transcripts, its audio) and Discord's (the voice port's events, the encoder). */
function buildCallSides(o: BridgeOptions, call: CallLifecycle, owner: CallOwner, base: CallBase, talk: Conversation) {
  const { speaking, activity, wake, audio, ui } = base;
  const { inFlight, transcripts, parkTimer, replyCut, speakerNotes, states, context, setup, follower } = talk;
  const { tools, notes, logger, onInputTranscript, patience, voice } = o;
  const modelAudio = new ModelAudioStage();
  const modelSide = new CallModelSide({
    tools,
    notes,
    logger,
    activity,
    inFlight,
    transcripts,
    onInputTranscript,
    wake,
    parkTimer,
    audio,
    modelAudio,
    voice,
    replyCut,
    speakerNotes,
    states,
    patience,
    context,
    setup,
    follower,
  });
  const receive = new ReceiveStage();
  const voiceEvents = new CallVoiceEvents({
    receive,
    speaking,
    activity,
    audio,
    room: o.room,
    patience,
    speakerNotes,
    ui,
    states,
    wake,
    context,
    owner,
    leaveWhenOwnerLeaves: o.leaveWhenOwnerLeaves ?? true,
  });
  const encoder = new EncoderStage(voice, call);
  return { modelAudio, modelSide, receive, voiceEvents, encoder };
}

/** The ports' events the call follows, its feedback loops (each connected once), and the pipeline from its one list. */
function connectCall(o: BridgeOptions, call: CallLifecycle, owner: CallOwner, p: CallBase & Conversation & CallSides) {
  o.tools.onChange(() => p.context.changed());
  o.notes.nameSpeakers((id) => p.activity.name(id));
  o.patience?.bind({ target: () => (call.live() ? owner : null), name: (id) => p.activity.name(id) });
  p.wake.connectVerdicts(p.speakerNotes);
  p.audio.connectActivity(p.ui);
  p.audio.connectBargeIn(p.replyCut);
  p.link.serve(p.modelSide);
  // pipeline.ts: CALL_INPUT, CALL_OUTPUT.
  const pipeline: PipelineView = wireCall(
    {
      receive: p.receive.stage,
      mix: p.audio.mix,
      resample: p.audio.resample.stage,
      gate: p.audio.gate.stage,
      wake: p.wake.stage,
      model: new ModelInput(p.link, p.inFlight, p.activity, p.metrics).stage,
    },
    {
      'model-audio': p.modelAudio.stage,
      playback: p.audio.playback,
      upsample: p.audio.upsample.stage,
      encode: p.encoder.stage,
    },
  );
  return pipeline;
}
