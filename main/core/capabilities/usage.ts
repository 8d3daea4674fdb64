// Usage and estimated cost per call, and the optional daily cap (docs/usage.md). Started before the
// bridge (the bridge asks it whether a join is refused), so it reads the call through the call port.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { EventHub } from '../event-hub.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import type { ProviderSelector } from '../model/select.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import type { OpenedDatabase } from '../store/database.ts';
import { SqlUsageLedger } from '../usage/ledger-store.ts';
import { UsageMonitor } from '../usage/usage-monitor.ts';
import type { CallPort } from './call-port.ts';

export interface UsageDeps {
  config: Config;
  logger: Logger;
  hub: EventHub;
  notes: NotesLog;
  model: ProviderSelector | null;
  call: CallPort;
  database: OpenedDatabase;
}

export const usageCapability: Capability<UsageDeps, { usage: UsageMonitor | null }> = {
  name: 'usage',
  start({ config, logger, hub, notes, model, call, database }) {
    const usage = model
      ? new UsageMonitor({
          hub,
          // A parked call opens several sessions: its usage is theirs together (bridge/model-link.ts).
          current: () => (call.current ? { ...model.choice, usage: call.current.link.usage() } : model.choice),
          callId: (): string | undefined => call.current?.status().callId,
          callTime: () => call.current?.link.figures() ?? null,
          prices: config.usage.prices,
          dailyCapUsd: config.usage.dailyCapUsd,
          warnPercent: config.usage.capWarnPercent,
          ledger: new SqlUsageLedger(database.db),
          notes,
          say: (text) => call.current?.say(text, 'usage'),
          parkCall: async (reason) => call.current?.link.park(reason),
          logger: moduleLogger(logger, 'usage'),
        })
      : null;
    usage?.start();
    return {
      api: { usage },
      stop: () => usage?.stop(),
      health: () => ({ report: usage ? { usage: usage.report() } : {} }),
    };
  },
};
