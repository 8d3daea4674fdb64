// Last: the schedule's store opens and its timers run, and the retention of notes, the schedule and
// delegate logs starts (then the database's daily backup). Reminders that came due while we were down wait (at most 30 s) for the bot's
// login, so an `auto` one goes by DM rather than falling through to the webhook because Discord is
// not up yet. (The scheduler itself stops with the notify capability, which built it.)
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import { pruneNotes, type NotesStore } from '../notes/notes-store.ts';
import { startRetention } from '../notes/retention.ts';
import { scheduleFilePath } from '../notify/schedule-store.ts';
import type { OpenedDatabase } from '../store/database.ts';
import type { DiscordVoiceAdapter } from '../voice/index.ts';
import type { NotifyApi } from './notify.ts';

export interface ScheduleDeps {
  config: Config;
  logger: Logger;
  notes: NotesLog;
  archive: NotesStore;
  database: OpenedDatabase;
  discord: DiscordVoiceAdapter | null;
  notify: Pick<NotifyApi, 'scheduler' | 'delegates'>;
}

export const scheduleCapability: Capability<ScheduleDeps, void> = {
  name: 'schedule',
  async start({ config, logger, notes, archive, database, discord, notify: { scheduler, delegates } }) {
    await scheduler.start(discord ? { ready: () => discord.botUserId !== null } : {});
    const voiceUsers = config.paths.voiceUsers;
    const stopRetention = startRetention({
      maxAgeDays: config.notes.retentionDays,
      pruneNotes: (maxAgeDays) =>
        pruneNotes(archive, { maxAgeDays, maxBytes: config.notes.maxMb * 1024 * 1024, keep: notes.currentCallId }),
      // Daily; a restart within 20 h of the last backup does not check and copy the whole file again.
      backup: () => database.backup({ skipIfNewerThanMs: 20 * 3_600_000 }),
      scheduleFile: scheduleFilePath(config.paths.agentHome),
      delegateLogDir: path.join(voiceUsers, 'delegates'),
      pruneDelegates: delegates ? (age) => delegates.prune(age) : undefined,
      log: moduleLogger(logger, 'retention'),
    });
    return { api: undefined, stop: () => stopRetention() };
  },
};
