// The sidecar: the HTTP server every client talks to (dashboard, CLI, MCP, the shells), with the
// route table bound to the running capabilities and the shell's extra routes. Listens last but one,
// once everything its routes use has started; a listen that fails (the port taken) closes the server.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import { createSidecar, type RouteRegistrar } from '../sidecar/server.ts';
import type { DashboardSessions } from '../sidecar/sessions.ts';

export interface SidecarDeps {
  config: Config;
  logger: Logger;
  token: string;
  sessions: DashboardSessions;
  /** The routes, given the sidecar's own URL (read at request time: known once it listens). */
  routes: (ownUrl: () => string) => RouteRegistrar[];
  /** Told after every response: the idle memory trim waits for quiet. */
  onResponse: () => void;
}

export const sidecarCapability: Capability<SidecarDeps, { url: string }> = {
  name: 'sidecar',
  async start({ config, logger, token, sessions, routes, onResponse }) {
    let url = '';
    const sidecar = createSidecar({
      host: config.sidecar.host,
      port: config.sidecar.port,
      token,
      logger: moduleLogger(logger, 'sidecar'),
      extraHosts: config.sidecar.allowRemote ? [`${config.sidecar.host}:${config.sidecar.port}`] : [],
      sessions,
      routes: [
        (app) =>
          app.addHook('onResponse', (_request, _reply, done) => {
            onResponse();
            done();
          }),
        ...routes(() => url),
      ],
    });
    try {
      await sidecar.listen();
    } catch (err) {
      await sidecar.close();
      throw err;
    }
    url = sidecar.url;
    onResponse();
    return { api: { url }, stop: () => sidecar.close() };
  },
};
