// Composition root of the core: builds every module from the typed config and wires them to the
// sidecar. Both shells call this: the headless CLI (main/cli.ts) and the Electron main process.
import { mkdirSync } from 'node:fs';
import type { Logger } from 'pino';
import { VERSION_LABEL, type HealthReport, type SidecarEvent } from './api-types.ts';
import type { Config } from './config/index.ts';
import { EventHub } from './event-hub.ts';
import { moduleLogger } from './log/logger.ts';
import { registerEventsRoutes } from './sidecar/routes/events.ts';
import { registerHealthRoutes } from './sidecar/routes/health.ts';
import { loginUrl, registerLoginRoutes } from './sidecar/routes/login.ts';
import { createSidecar, type RouteRegistrar } from './sidecar/server.ts';
import { DashboardSessions } from './sidecar/sessions.ts';
import { ensureSidecarToken } from './sidecar/token.ts';

export interface CoreOptions {
  config: Config;
  logger: Logger;
  /** Extra sidecar routes from the shell (e.g. settings backed by electron-store). */
  extraRoutes?: RouteRegistrar[];
}

export interface CoreHandle {
  sidecarUrl: string;
  /** A fresh one-time dashboard login URL each call. */
  loginUrl(): string;
  token: string;
  tokenFile: string;
  hub: EventHub;
  stop(): Promise<void>;
}

const PACKAGE_VERSION = VERSION_LABEL.replace(/^v/, '');

export async function startCore(options: CoreOptions): Promise<CoreHandle> {
  const { config, logger } = options;
  const startedAt = Date.now();
  mkdirSync(config.paths.voiceUsers, { recursive: true, mode: 0o700 });

  const tokenInfo = ensureSidecarToken(config.paths.voiceUsers, config.sidecar.token);
  const hub = new EventHub();

  const health = (): HealthReport => {
    const mem = process.memoryUsage();
    return {
      status: 'ok',
      version: PACKAGE_VERSION,
      uptime_s: Math.round((Date.now() - startedAt) / 100) / 10,
      pid: process.pid,
      node: process.version,
      bridge: { state: 'idle', since: startedAt / 1000 },
      connections: { discord: 'disconnected', model: 'disconnected' },
      audio: { opus: null },
      metrics: {},
      memory: { rss_mb: Math.round(mem.rss / 1048576), heap_used_mb: Math.round(mem.heapUsed / 1048576) },
    };
  };

  const extraHosts = config.sidecar.allowRemote ? [`${config.sidecar.host}:${config.sidecar.port}`] : [];
  let baseUrl = '';
  const sessions = new DashboardSessions();
  const sidecar = createSidecar({
    sessions,
    host: config.sidecar.host,
    port: config.sidecar.port,
    token: tokenInfo.token,
    logger: moduleLogger(logger, 'sidecar'),
    extraHosts,
    routes: [
      (app) => registerHealthRoutes(app, { health }),
      (app) => registerLoginRoutes(app, { sessions, baseUrl: () => baseUrl }),
      (app) => registerEventsRoutes(app, { hub, snapshot: (): SidecarEvent[] => [] }),
      ...(options.extraRoutes ?? []),
    ],
  });
  await sidecar.listen();
  baseUrl = sidecar.url;

  let stopped = false;
  return {
    sidecarUrl: sidecar.url,
    loginUrl: () => loginUrl(sidecar.url, sidecar.sessions.createNonce()),
    token: tokenInfo.token,
    tokenFile: tokenInfo.file,
    hub,
    async stop() {
      if (stopped) return;
      stopped = true;
      await sidecar.close();
    },
  };
}
