// Start-up and request bursts leave garbage and a grown young generation behind: return them once
// quiet (no request for IDLE_TRIM_QUIET_MS, not in a call), sooner than V8's memory reducer would;
// opt-in: only in a process started with --expose-gc (core-node-flags.ts). See idle-memory-trim.ts.
import type { Logger } from 'pino';
import type { BridgeControl } from '../bridge/types.ts';
import type { EventHub } from '../event-hub.ts';
import { IdleMemoryTrim } from '../idle-memory-trim.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';

/** Quiet time (no sidecar request, no call) after which the idle core returns unused memory. */
const IDLE_TRIM_QUIET_MS = 5_000;

export const memoryTrimCapability: Capability<
  { logger: Logger; hub: EventHub; control: BridgeControl },
  { poke(): void }
> = {
  name: 'memory trim',
  start({ logger, hub, control }) {
    const log = moduleLogger(logger, 'core');
    const memoryTrim = new IdleMemoryTrim({
      quietMs: IDLE_TRIM_QUIET_MS,
      mayTrim: () => ['idle', 'stopped', 'error'].includes(control.status().state),
      onTrim: (r) =>
        log.debug(
          { rss_before_mb: Math.round(r.rssBeforeMb), rss_after_mb: Math.round(r.rssAfterMb), ms: Math.round(r.ms) },
          'idle memory trimmed',
        ),
    });
    const unsubscribe = hub.subscribe((event) => {
      if (event.type === 'state') memoryTrim.poke();
    });
    return { api: { poke: () => memoryTrim.poke() }, stop: () => (unsubscribe(), memoryTrim.close()) };
  },
};
