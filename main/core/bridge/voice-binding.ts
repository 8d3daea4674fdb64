// The voice port's events a call listens to, bound and unbound as one set (the call's lifetime).
import type { ConnectionState } from '../api-types.ts';
import type { VoiceChannelEvents, VoiceChannelPort } from '../ports.ts';

type CallEvent = 'pcm' | 'speakingStart' | 'speakingEnd' | 'state' | 'ownerLeft' | 'membersChanged';
export type VoiceHandlers = { [E in CallEvent]: (...args: VoiceChannelEvents[E]) => void };

/** Binds every handler to `voice`; returns the unbinding. */
export function bindVoiceEvents(voice: VoiceChannelPort, handlers: VoiceHandlers): () => void {
  voice.on('pcm', handlers.pcm);
  voice.on('speakingStart', handlers.speakingStart);
  voice.on('speakingEnd', handlers.speakingEnd);
  voice.on('state', handlers.state);
  voice.on('ownerLeft', handlers.ownerLeft);
  voice.on('membersChanged', handlers.membersChanged);
  return () => {
    voice.off('membersChanged', handlers.membersChanged);
    voice.off('pcm', handlers.pcm);
    voice.off('speakingStart', handlers.speakingStart);
    voice.off('speakingEnd', handlers.speakingEnd);
    voice.off('state', handlers.state);
    voice.off('ownerLeft', handlers.ownerLeft);
  };
}

export interface CallVoiceEventsDeps {
  /** The pipeline's first stage (pipeline.ts): the voice port's frames enter the call. */
  receive: { readonly pcm: (speakerId: string, frame: Int16Array) => void };
  speaking: Set<string>;
  activity: { start(id: string): void; end(id: string): void };
  audio: { readonly userAudioOpen: boolean; readonly replyPlaying: boolean };
  room: { optedOut?: (userId: string) => boolean } | undefined;
  patience?: { speechStarted(id: string, replyPlaying: boolean): void; speechEnded(id: string): void } | undefined;
  speakerNotes: { announce(id: string): void };
  ui: { start(): void };
  states: { voiceChanged(state: ConnectionState, reason?: string): void };
  wake: { refresh(): void };
  context: { changed(): void };
  /** The owner left: the call ends, unless `leaveWhenOwnerLeaves` is false. */
  owner: { stop(reason: string): Promise<unknown> };
  leaveWhenOwnerLeaves: boolean;
}

/** What the call does with each voice port event (bound for the call's lifetime by bindVoiceEvents). */
export class CallVoiceEvents implements VoiceHandlers {
  readonly #d: CallVoiceEventsDeps;
  readonly pcm: VoiceHandlers['pcm'];

  constructor(deps: CallVoiceEventsDeps) {
    this.#d = deps;
    this.pcm = deps.receive.pcm;
  }

  readonly speakingStart = (id: string): void => {
    const d = this.#d;
    d.speaking.add(id);
    d.activity.start(id);
    // Only a voice the model hears has turns for the service to end (not while muted, not opted out).
    if (d.audio.userAudioOpen && !d.room?.optedOut?.(id)) d.patience?.speechStarted(id, d.audio.replyPlaying);
    // Muted: the model is not told who talks either (it hears nothing of it).
    if (d.audio.userAudioOpen) d.speakerNotes.announce(id);
    d.ui.start();
  };

  readonly speakingEnd = (id: string): void => {
    this.#d.speaking.delete(id);
    this.#d.activity.end(id);
    this.#d.patience?.speechEnded(id);
  };

  readonly state = (state: ConnectionState, reason?: string): void => this.#d.states.voiceChanged(state, reason);

  readonly ownerLeft = (): void => {
    if (this.#d.leaveWhenOwnerLeaves) void this.#d.owner.stop('the owner left the voice channel');
  };

  readonly membersChanged = (): void => {
    this.#d.wake.refresh();
    this.#d.context.changed();
  };
}
