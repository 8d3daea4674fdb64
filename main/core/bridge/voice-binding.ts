// The voice port's events a call listens to, bound and unbound as one set (the call's lifetime).
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
