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

/** Builds a call's parts in order and wires them (see the header). */
// eslint-disable-next-line max-lines-per-function -- 162 lines; split by the call pipeline's rewrite (issue #51 item 1), which owns this file
export function assembleCall(o: BridgeOptions, call: CallLifecycle, owner: CallOwner) {
  const now = o.now ?? (() => performance.now());
  const voice = o.voice;
  const inputChunkMs = o.inputChunkMs ?? 20;
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
  const audio = new CallAudio({ inputChunkMs, holdTurn: wake.serviceHearsSpeech, metrics, now });
  const uiUpdates = new CallUiUpdates({ audio, speaking, hub: o.hub, metrics });
  const ui = new UiTicker({ periodMs: UI_UPDATE_MS, now, updates: uiUpdates });
  const turn = new CallTurn(o.turn, audio.gate);
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
  const { tools, notes, logger, onInputTranscript, patience } = o;
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
  const leaveWhenOwnerLeaves = o.leaveWhenOwnerLeaves ?? true;
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
    leaveWhenOwnerLeaves,
  });
  const encoder = new EncoderStage(voice, call);

  // The ports' events the call follows.
  o.tools.onChange(() => context.changed());
  o.notes.nameSpeakers((id) => activity.name(id));
  patience?.bind({ target: () => (call.live() ? owner : null), name: (id) => activity.name(id) });
  // The feedback loops, each connected once.
  wake.connectVerdicts(speakerNotes);
  audio.connectActivity(ui);
  audio.connectBargeIn(replyCut);
  link.serve(modelSide);
  // The pipeline, from its one list (pipeline.ts: CALL_INPUT, CALL_OUTPUT).
  const pipeline: PipelineView = wireCall(
    {
      receive: receive.stage,
      mix: audio.mix,
      resample: audio.resample.stage,
      gate: audio.gate.stage,
      wake: wake.stage,
      model: new ModelInput(link, inFlight, activity, metrics).stage,
    },
    {
      'model-audio': modelAudio.stage,
      playback: audio.playback,
      upsample: audio.upsample.stage,
      encode: encoder.stage,
    },
  );
  return {
    metrics,
    speaking,
    activity,
    link,
    wake,
    audio,
    uiUpdates,
    ui,
    turn,
    speakerNotes,
    context,
    setup,
    transcripts,
    parkTimer,
    outcomes,
    follower,
    replyCut,
    requests,
    states,
    voiceEvents,
    encoder,
    pipeline,
  };
}
