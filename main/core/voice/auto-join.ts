// Auto-join (DISCORD_VOICE_LIVE_AUTO_JOIN): when the owner enters a voice channel, start a call
// there. Leaving is the existing rule: with DISCORD_VOICE_LIVE_LEAVE_WHEN_OWNER_LEAVES (default true)
// the call ends when the owner leaves the bot's channel; so with both on, the bot follows the owner
// in and out, and a move to another channel ends the call there and starts one in the new channel.
// Only an entry starts a call: an owner already in a channel when the app starts is not joined
// (start the call from the dashboard), and a call that is already live is never replaced.
import type { Logger } from 'pino';
import type { EventHub } from '../event-hub.ts';
import { BridgeError, type BridgeControl } from '../bridge/types.ts';
import type { VoiceChannelPort, VoiceTarget } from '../ports.ts';

export interface AutoJoinOptions {
  voice: Pick<VoiceChannelPort, 'on' | 'off'>;
  bridge: Pick<BridgeControl, 'status' | 'start'>;
  hub: EventHub;
  notes: { append(note: { kind: 'note'; text: string }): unknown };
  logger: Logger;
  /** Longest wait for a call that is ending (the owner moved channels) before joining. Default 10 s. */
  settleMs?: number;
}

/** Starts following the owner; returns the function that stops it. */
export function startAutoJoin(options: AutoJoinOptions): () => void {
  const { bridge, logger } = options;
  let latest: VoiceTarget | null = null;
  let busy = false;

  /** Resolves once the call in progress has ended (or at the time limit). */
  function ended(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      };
      const timer = setTimeout(done, options.settleMs ?? 10_000);
      const unsubscribe = options.hub.subscribe((event) => {
        if (event.type === 'state' && ['stopped', 'error', 'idle'].includes(event.data.state)) done();
      });
      if (['stopped', 'error', 'idle'].includes(bridge.status().state)) done();
    });
  }

  async function join(): Promise<void> {
    if (busy) return; // the newest target is picked up when the attempt in progress ends
    busy = true;
    try {
      while (latest) {
        const target = latest;
        latest = null;
        const state = bridge.status().state;
        if (state === 'stopping') await ended();
        else if (state !== 'idle' && state !== 'stopped' && state !== 'error') {
          logger.info({ state }, 'owner entered a voice channel during a call: the call stays where it is');
          continue;
        }
        try {
          await bridge.start(target);
          logger.info({ channelId: target.channelId }, 'auto-joined the owner');
          options.notes.append({ kind: 'note', text: `auto-join: joined the owner in channel ${target.channelId}` });
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          if (err instanceof BridgeError && err.code === 'already_active') continue;
          logger.warn({ err: message }, 'auto-join failed');
          options.notes.append({ kind: 'note', text: `auto-join: not joined (${message})` });
        }
      }
    } finally {
      busy = false;
    }
  }

  const onEntered = (target: VoiceTarget): void => {
    latest = target;
    void join();
  };
  options.voice.on('ownerEntered', onEntered);
  return () => options.voice.off('ownerEntered', onEntered);
}
