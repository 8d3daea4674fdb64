// Wires one model session into the call (the model link opens and closes sessions while the call
// goes on): its audio to playback, its tool calls to the registry with the authority of the voices
// that asked, its transcripts to the notes, its turn and connection events to the call's states.
// CallModelSide is the call as the model link sees it (model-link.ts `ModelLinkCall`).
import type { Logger } from 'pino';
import { attachToolDispatcher } from '../model/tool-dispatcher.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import type { LiveModelConnectOptions, LiveModelSession } from '../ports.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { CallAudio } from './call-audio.ts';
import type { CallStates } from './call-states.ts';
import type { ModelAudioStage } from './call-stages.ts';
import type { ModelLinkCall, ModelLinkState } from './model-link.ts';
import type { InFlight } from './park.ts';
import type { ReplyFollower } from './reply-follower.ts';
import type { SessionSetup } from './session-setup.ts';
import type { ReplyCut } from './reply-cut.ts';
import type { SpeakerNotes } from './speaker-notes.ts';
import type { SpeakerActivity } from './room.ts';
import type { TranscriptAggregator } from './transcripts.ts';

export interface ModelBindingDeps {
  tools: ToolRegistry;
  notes: NotesLog;
  logger: Logger;
  activity: SpeakerActivity;
  inFlight: InFlight;
  transcripts: TranscriptAggregator;
  /** Each input transcription fragment, with its one speaker where there is one. */
  onInputTranscript?: (text: string, speaker: string | undefined) => void;
  /** The model spoke (a chunk of a reply, or its end): the wake follow-up window and the park timer run from it. */
  wake: { botSpoke(): void };
  parkTimer: { touch(): void };
  /** The call's audio graph (whether the player runs; the model's turn ends). */
  audio: CallAudio;
  /** The pipeline's model-audio stage: the model's speech goes on to playback (pipeline.ts). */
  modelAudio: ModelAudioStage;
  /** pokePlayback: a wake-up that may carry the player's next packet. */
  voice: { pokePlayback?(urgent?: boolean): void };
  /** Interruptions by the service, and the end of a reply's pending local cut. */
  replyCut: ReplyCut;
  /** Each turn names its speaker again. */
  speakerNotes: SpeakerNotes;
  /** The session's connection state (call-states.ts). */
  states: Pick<CallStates, 'modelChanged' | 'linkChanged' | 'modelState'>;
  /** replyStarted: a reply's first audio went to playback (the patience learner's cut-off clock starts). */
  patience?: { replyStarted(): void } | undefined;
  /** The session is wired in / out (mid-call context changes follow it). */
  context: { opened(): void; closed(): void };
}

function botSpoke(deps: ModelBindingDeps): void {
  deps.wake.botSpoke();
  deps.parkTimer.touch();
}

const SESSION_EVENTS = [
  'audio',
  'interrupted',
  'turnComplete',
  'userTurnEnded',
  'inputTranscript',
  'outputTranscript',
  'state',
  'toolCall',
] as const;

/** Wires `model` into the call; returns the unwiring. */
export function bindModelSession(model: LiveModelSession, deps: ModelBindingDeps): () => void {
  const dispatcher = attachToolDispatcher(model, deps.tools, {
    logger: deps.logger,
    // Read when the call arrives: the voices of the turn it answers decide what it may do.
    heard: () => deps.activity.heardThisTurn(),
    onSettled: ({ call, outcome, replied, heard }) => {
      deps.inFlight.toolSettled();
      const refused = !outcome.ok && (outcome.error.code === 'owner_only' || outcome.error.code === 'not_allowed');
      const text = refused
        ? `${call.name}: refused (${outcome.error.code}), asked by ${heard?.names.join(' and ') ?? 'nobody heard'}`
        : `${call.name}: ${!replied ? 'cancelled' : outcome.ok ? 'ok' : `error (${outcome.error.code})`}`;
      deps.notes.append({
        kind: 'tool_call',
        text,
        ...(heard && heard.ids.length === 1 ? { speaker: heard.ids[0] } : {}),
      });
    },
  });
  model.on('toolCall', () => deps.inFlight.toolStarted());
  model.on('audio', (pcm) => {
    botSpoke(deps);
    const playerRunning = deps.audio.outputActive;
    // A stopped player restarts inside the playback stage and sends its first packet at once. A running
    // one sends its next packet on this chunk's wake-up if that slot has begun (playback.ts), so a
    // reply's first frame is not held for the slot's end and, while chunks flow, the player's own
    // timer rarely has to wake the process. A new reply ends the previous one's pending local cut
    // (a service may never confirm a cut of a reply it had finished sending).
    if (deps.modelAudio.play(pcm)) {
      deps.replyCut.replyStarted();
      deps.patience?.replyStarted();
    }
    if (playerRunning) deps.voice.pokePlayback?.();
  });
  model.on('interrupted', () => deps.replyCut.serviceInterrupted());
  // The service ended the user's turn: the paced silence stops and the end of input goes out (voice-gate.ts).
  model.on('userTurnEnded', () => deps.audio.gate.serviceEndedTurn());
  model.on('turnComplete', () => {
    botSpoke(deps);
    deps.activity.turnBoundary();
    deps.replyCut.turnEnded();
    deps.speakerNotes.turnEnded();
    deps.audio.turnComplete();
    deps.transcripts.flush();
  });
  model.on('inputTranscript', (text) => {
    const speakers = deps.activity.speakersOfFragment();
    deps.transcripts.input(text, speakers);
    // Approval checks want one voice: words said over each other, or late while another talks, are nobody's alone.
    deps.onInputTranscript?.(text, deps.activity.soleSpeaker(speakers));
  });
  model.on('outputTranscript', (text) => deps.transcripts.output(text));
  model.on('state', (state, reason) => deps.states.modelChanged(state, reason));
  deps.context.opened();
  return () => {
    deps.context.closed();
    dispatcher.detach();
    for (const event of SESSION_EVENTS) model.removeAllListeners(event);
    deps.inFlight.reset();
  };
}

export interface CallModelSideDeps extends ModelBindingDeps {
  /** What a session opened mid-call is given (session-setup.ts). */
  setup: Pick<SessionSetup, 'options'>;
  /** The spoken outcomes follow each reply (reply-follower.ts). */
  follower: Pick<
    ReplyFollower,
    'modelAudio' | 'outputTranscript' | 'turnComplete' | 'serviceInterrupted' | 'sessionClosed' | 'modelState'
  >;
}

/** The call as its model link serves it: the options of the sessions it opens, their wiring, its state changes. */
export class CallModelSide implements ModelLinkCall {
  readonly #d: CallModelSideDeps;

  constructor(deps: CallModelSideDeps) {
    this.#d = deps;
  }

  sessionOptions(): LiveModelConnectOptions {
    return this.#d.setup.options(true);
  }

  /** Wires a session into the call; returns the unwiring (the link closes sessions while the call goes on). */
  bind(model: LiveModelSession): () => void {
    const { states, follower } = this.#d;
    states.modelState = model.state;
    const unbind = bindModelSession(model, this.#d);
    // After the binding's own listeners (the playback has the chunk, the turn is ended): the spoken outcomes.
    model.on('audio', (pcm) => follower.modelAudio(pcm.length));
    model.on('outputTranscript', (text) => follower.outputTranscript(text));
    model.on('turnComplete', () => follower.turnComplete());
    model.on('interrupted', () => follower.serviceInterrupted());
    // A reply is waited for only while the model is reachable (a text written again after an outage).
    follower.modelState(model.state);
    model.on('state', (state) => follower.modelState(state));
    return () => {
      unbind();
      follower.sessionClosed();
      states.modelState = 'disconnected';
    };
  }

  linkChanged(state: ModelLinkState, reason?: string): void {
    this.#d.states.linkChanged(state, reason);
  }
}
