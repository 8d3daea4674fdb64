// Notifications (voice, DM, channel, webhook), the schedule of reminders, the due-soon reminders the
// call's model is told about, and the delegate commands, with their tools. The schedule's store opens
// later (the `schedule` capability), once the sidecar listens. Started before the bridge (the bridge
// reads the due-soon reminders), so a voice delivery or the chime reaches the call through the port.
import path from 'node:path';
import type { Logger } from 'pino';
import { generateNotificationChime } from '../audio/index.ts';
import type { Config } from '../config/index.ts';
import type { EventHub } from '../event-hub.ts';
import { settlesWithin, type Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import { createDelegateWatcher, type DelegateWatcher } from '../notify/delegate.ts';
import { createNotifier, type Notifier } from '../notify/dispatcher.ts';
import { startDueSoonReminders, type DueSoonReminders } from '../notify/due-soon.ts';
import { scheduleFilePath } from '../notify/schedule-store.ts';
import { createScheduler, type Scheduler } from '../notify/scheduler.ts';
import { registerNotifyTools } from '../notify/tools.ts';
import { redactText } from '../tools/helpers/index.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { AllowedSpeakers } from '../voice/allowed-speakers.ts';
import type { DiscordVoiceAdapter } from '../voice/index.ts';
import { NONCE_RESEND_WINDOW_S } from '../voice/text.ts';
import type { CallPort } from './call-port.ts';
import type { LiveSettingsApi } from './settings.ts';

export interface NotifyDeps {
  config: Config;
  logger: Logger;
  hub: EventHub;
  notes: NotesLog;
  tools: ToolRegistry;
  discord: DiscordVoiceAdapter | null;
  allowedSpeakers: AllowedSpeakers;
  settings: LiveSettingsApi;
  call: CallPort;
}

export interface NotifyApi {
  notifier: Notifier;
  scheduler: Scheduler;
  dueSoon: DueSoonReminders;
  delegates: DelegateWatcher | undefined;
}

export const notifyCapability: Capability<NotifyDeps, NotifyApi> = {
  name: 'notify',
  start({ config, logger, hub, notes, tools, discord, allowedSpeakers, settings, call }) {
    const chime = generateNotificationChime();
    const notifier = createNotifier({
      // During a reconnect the text is held by the model session, not refused.
      voice: () =>
        call.current && ['connected', 'reconnecting', 'parked'].includes(call.current.status().state)
          ? call.current
          : null,
      discordText: () => (discord && discord.botUserId ? discord : null),
      discordLogin: discord ? () => discord.login() : undefined,
      discordConfigured: discord !== null,
      ownerId: config.discord.ownerId,
      textChannelId: config.discord.textChannelId,
      webhookUrl: config.notify.webhookAgentNotify,
      throttleSeconds: config.notify.webhookThrottleSeconds,
      webhookKeyWindowSeconds: config.notify.webhookIdempotencySeconds,
      playSound: () => call.current?.playEffect(chime),
      sfxEnabled: () => settings.values().sfxEnabled ?? config.notify.sfxEnabled,
      logger: moduleLogger(logger, 'notify'),
      notes,
    });
    const scheduler = createScheduler({
      file: scheduleFilePath(config.paths.agentHome),
      notifier,
      logger: moduleLogger(logger, 'scheduler'),
      hub,
      maxPending: config.notify.scheduleMaxPending,
      lateToleranceSeconds: config.notify.lateToleranceSeconds,
      maxLatenessSeconds: config.notify.maxLateSeconds,
      // A DM or channel post carries its nonce (Discord drops a repeat); a webhook only when its receiver honours the key.
      resendWindows: {
        dm: NONCE_RESEND_WINDOW_S,
        channel: NONCE_RESEND_WINDOW_S,
        webhook: config.notify.webhookIdempotencySeconds,
      },
    });
    const dueSoon = startDueSoonReminders({ scheduler, hub, logger: moduleLogger(logger, 'scheduler') });
    const delegates =
      config.delegate.command.length > 0
        ? createDelegateWatcher({
            command: config.delegate.command,
            passEnv: config.delegate.env,
            cwd: config.delegate.cwd ?? config.paths.agentHome,
            logDir: path.join(config.paths.voiceUsers, 'delegates'),
            notifier,
            logger: moduleLogger(logger, 'delegate'),
            redact: redactText,
          })
        : undefined;
    registerNotifyTools(tools, {
      notifier,
      scheduler,
      delegates,
      // Running a command on this machine: the sidecar and CLI (token holders) may; the model may when
      // nobody but the owner can speak to it, or when the owner was heard in the turn (tool authority).
      canDelegate: (ctx) => ctx.caller !== 'model' || allowedSpeakers.ownerOnly || ctx.heard?.owner === true,
    });
    const log = moduleLogger(logger, 'core');
    return {
      api: { notifier, scheduler, dueSoon, delegates },
      // Scheduled deliveries and delegates wind down together; sends still in flight near the end of
      // the budget are aborted (webhook closed) so their outcome is recorded before the process goes.
      async stop({ left }) {
        dueSoon.stop();
        const windDown = Promise.allSettled([scheduler.stop(), delegates?.close()]);
        if (!(await settlesWithin(windDown, left() - 1000)))
          log.warn('deliveries still in flight at shutdown: aborting them');
        notifier.webhook.close();
        if (!(await settlesWithin(windDown, left() - 500)))
          log.warn('shutdown: a delivery or a delegate did not finish in time');
      },
    };
  },
};
