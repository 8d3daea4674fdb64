// Two capabilities that follow the call: the room (the recording notice, /optout and /optin, the
// owner's slash commands, captions; docs/room.md) and auto-join (the bot follows the owner into a
// voice channel). Both need a configured bridge and bot; without them they start nothing.
import type { Logger } from 'pino';
import type { Bridge } from '../bridge/bridge.ts';
import type { TalkControl } from '../bridge/talk-control.ts';
import type { Config } from '../config/index.ts';
import type { EventHub } from '../event-hub.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import { startRoom } from '../room/wire.ts';
import { startAutoJoin } from '../voice/auto-join.ts';
import type { VoiceApi } from './voice.ts';

export interface FollowCallDeps {
  config: Config;
  logger: Logger;
  hub: EventHub;
  notes: NotesLog;
  voice: VoiceApi;
  bridge: Bridge | null;
  talk: TalkControl;
}

export const roomCapability: Capability<FollowCallDeps, void> = {
  name: 'room',
  start({ config, logger, hub, notes, voice, bridge, talk }) {
    const { discord } = voice;
    const ownerId = config.discord.ownerId;
    const room =
      discord && bridge && ownerId
        ? startRoom({
            store: voice.consentStore,
            discord,
            bridge,
            talk,
            hub,
            notes,
            ownerId,
            retentionDays: config.notes.retentionDays,
            captions: config.discord.captions,
            logger: moduleLogger(logger, 'room'),
          })
        : null;
    return { api: undefined, stop: () => room?.stop() };
  },
};

export const autoJoinCapability: Capability<FollowCallDeps, void> = {
  name: 'auto-join',
  start({ config, logger, hub, notes, voice, bridge }) {
    const stop =
      config.discord.autoJoin && voice.discord && bridge
        ? startAutoJoin({ voice: voice.discord, bridge, hub, notes, logger: moduleLogger(logger, 'auto-join') })
        : null;
    return { api: undefined, stop: () => stop?.() };
  },
};
