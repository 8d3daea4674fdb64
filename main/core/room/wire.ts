// The room's Discord side, wired once: the consent notices (consent.ts) and the slash commands
// (commands.ts) on the bot's client. Returns the stop function core.ts runs at shutdown.
import type { Logger } from 'pino';
import type { TalkState } from '../api-types.ts';
import type { BridgeControl } from '../bridge/types.ts';
import type { EventHub } from '../event-hub.ts';
import type { DiscordVoiceAdapter } from '../voice/index.ts';
import { ChannelCaptions } from './captions.ts';
import { ROOM_SLASH_COMMANDS, roomCommandHandler } from './commands.ts';
import { RoomConsent } from './consent.ts';
import type { ConsentStore } from './consent-store.ts';

export interface RoomWiring {
  store: ConsentStore;
  discord: DiscordVoiceAdapter;
  bridge: BridgeControl;
  talk: { state(): TalkState; setMuted(muted: boolean): TalkState };
  hub: EventHub;
  notes: { append(note: { kind: 'note'; text: string; speaker?: string }): unknown };
  ownerId: string;
  retentionDays: number;
  /** Captions, brief and summary in the voice channel's chat (captions.ts). */
  captions: boolean;
  logger: Logger;
}

export function startRoom(o: RoomWiring): { consent: RoomConsent; stop: () => Promise<void> } {
  const nameOf = (id: string) => o.discord.displayName?.(id) ?? `user ${id}`;
  const consent = new RoomConsent({
    store: o.store,
    hub: o.hub,
    voice: o.discord,
    target: () => o.bridge.status().target,
    post: (channelId, text) => o.discord.postToChannel(channelId, text),
    retentionDays: () => o.retentionDays,
    botName: () => (o.discord.botUserId ? nameOf(o.discord.botUserId) : 'The voice bot'),
    notes: o.notes,
    logger: o.logger,
  });
  consent.start();
  const command = roomCommandHandler({ ownerId: o.ownerId, consent, bridge: o.bridge, talk: o.talk, nameOf });
  const detach = o.discord.roomCommands(ROOM_SLASH_COMMANDS, {
    command: (name, userId) => command(name, userId),
    reaction: (userId, _channelId, messageId, emoji) => {
      consent.reaction(userId, messageId, emoji);
    },
  });
  const captions = o.captions
    ? new ChannelCaptions({
        hub: o.hub,
        target: () => o.bridge.status().target,
        post: (c, t) => o.discord.postToChannel(c, t),
        edit: (c, m, t) => o.discord.editMessage(c, m, t),
        logger: o.logger,
      })
    : null;
  captions?.start();
  return {
    consent,
    // Resolves once the captions' call summary is out (the Discord client stops after this).
    stop: async () => {
      detach();
      consent.stop();
      await captions?.stop();
    },
  };
}
