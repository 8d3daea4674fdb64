// Public surface of the notification system. Composition (headless runner, Electron main) builds:
//   const opts = notifyOptionsFromConfig(config);
//   const notifier = createNotifier({ ...opts.notifier, voice, discordText, playSound, logger });
//   const scheduler = createScheduler({ file: opts.scheduleFile, notifier, logger, hub });
//   registerNotifyTools(registry, { notifier, scheduler, delegates, canDelegate });
//   routes: [(app) => registerNotifyRoutes(app, { notifier, scheduler })]
import path from 'node:path';
import type { Config } from '../config/index.ts';
import { DELEGATE_DIR_NAME } from './delegate.ts';
import { scheduleFilePath } from './schedule-store.ts';

export { createNotifier, AUTO_ORDER, type Notifier, type NotifierDeps, type DeliverOptions } from './dispatcher.ts';
export { createWebhookDispatcher, buildWebhookPayload, AGENT_NOTIFY, type WebhookDispatcher, type WebhookDispatcherOptions, type WebhookEvent, type WebhookStats } from './webhook.ts';
export { createScheduler, type Scheduler, type SchedulerOptions, type ScheduleEntryView } from './scheduler.ts';
export { ScheduleStore, scheduleFilePath, SCHEDULE_FILE_NAME, type StoredNotification } from './schedule-store.ts';
export { createDelegateWatcher, type DelegateWatcher, type DelegateWatcherOptions, type DelegateSessionView, type DelegateState } from './delegate.ts';
export { registerNotifyTools, type NotifyToolDeps } from './tools.ts';
export { NotifyInputError, NotifyStateError, systemClock, type Clock, type VoiceDelivery } from './types.ts';
export { MAX_DELAY_SECONDS, MAX_TEXT_CHARS, parseNotifyRequest, parseScheduleRequest } from './validation.ts';

/** The configuration-derived part of the notification wiring. */
export function notifyOptionsFromConfig(config: Config) {
  return {
    notifier: {
      ownerId: config.discord.ownerId,
      textChannelId: config.discord.textChannelId,
      webhookUrl: config.notify.webhookAgentNotify,
      throttleSeconds: config.notify.webhookThrottleSeconds,
      sfxEnabled: config.notify.sfxEnabled,
    },
    scheduleFile: scheduleFilePath(config.paths.agentHome),
    delegate: {
      command: config.delegate.command,
      cwd: config.delegate.cwd ?? config.paths.agentHome,
      logDir: path.join(config.paths.voiceUsers, DELEGATE_DIR_NAME),
    },
  };
}
