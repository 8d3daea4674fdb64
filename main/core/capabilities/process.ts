// The process itself, first of the core's capabilities: the private folder, the sidecar token,
// the Opus codec and the native pieces (chosen and named now, not at the first call: a WASM fallback
// or a missing piece is never silent), the event hub and the tool registry the others share, and what
// a voice call still needs. Reports the process fields of /health (version, uptime, memory, faults).
import type { Logger } from 'pino';
import { VERSION_LABEL } from '../api-types.ts';
import type { Config } from '../config/index.ts';
import { EventHub } from '../event-hub.ts';
import { faultCounts } from '../faults.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import { providerKey } from '../model/registry.ts';
import { providerOf } from '../providers/index.ts';
import { checkNativePieces, logNativePieces, type NativePieces } from '../native/native-pieces.ts';
import { ensurePrivateDir } from '../private-dir.ts';
import { ensureSidecarToken } from '../sidecar/token.ts';
import { ToolRegistry } from '../tools/registry.ts';
import { loadOpus, type OpusFactory } from '../voice/opus.ts';

export const PACKAGE_VERSION = VERSION_LABEL.replace(/^v/, '');

export interface ProcessDeps {
  config: Config;
  logger: Logger;
  /** Default: the native addon when it loads, else WASM (reported either way). */
  opus?: OpusFactory;
}

export interface ProcessApi {
  token: { token: string; file: string };
  opus: OpusFactory;
  native: NativePieces;
  hub: EventHub;
  tools: ToolRegistry;
  /** Variables a voice call still needs (empty when configured). */
  missing: string[];
}

/** The variables a voice call needs that the configuration lacks. */
export function missingForCalls(config: Config): string[] {
  const key = providerKey(config, config.liveProvider);
  return [
    ...(config.discord.botToken ? [] : ['DISCORD_BOT_TOKEN']),
    ...(config.discord.ownerId ? [] : ['DISCORD_VOICE_LIVE_USER_ID']),
    ...(key ? [] : [providerOf(config.liveProvider).keyVariable]),
  ];
}

/**
 * What keeps the event loop alive, by kind (Timeout, TCPSocketWrap, FSReqCallback, ...): read only
 * when /health is asked, so it costs nothing between requests. A count that climbs from one quiet
 * moment of a call to the next is a leaked timer or socket (the day soak, bench/soak-day.ts).
 */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

export const processCapability: Capability<ProcessDeps, ProcessApi> = {
  name: 'process',
  start({ config, logger, opus: givenOpus }) {
    const log = moduleLogger(logger, 'core');
    const startedAt = Date.now();
    ensurePrivateDir(config.paths.voiceUsers);
    const token = ensureSidecarToken(config.paths.voiceUsers, config.sidecar.token, config.sidecar.tokenFile);
    const opus = givenOpus ?? loadOpus();
    const native = checkNativePieces(opus);
    logNativePieces(native, log);
    const missing = missingForCalls(config);
    return {
      api: { token, opus, native, hub: new EventHub(), tools: new ToolRegistry(), missing },
      stop: () => undefined,
      health: () => {
        const mem = process.memoryUsage();
        return {
          report: {
            version: PACKAGE_VERSION,
            uptime_s: Math.round((Date.now() - startedAt) / 100) / 10,
            pid: process.pid,
            node: process.version,
            memory: { rss_mb: Math.round(mem.rss / 1048576), heap_used_mb: Math.round(mem.heapUsed / 1048576) },
            diagnostics: { active_resources: activeResources() },
            native: { sharp: native.sharp, davey: native.davey },
            faults: { ...faultCounts },
          },
          verdict: { missing, opus: native.opus, native },
        };
      },
    };
  },
};
