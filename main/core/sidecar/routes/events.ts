// GET /events: a server-sent-events stream of what the dashboard shows live. Each event is
// `event: <type>` + `data: <json>`; a comment line every 15 s keeps idle proxies and sockets open.
import type { EventHub } from '../../event-hub.ts';
import type { SidecarEvent } from '../../api-types.ts';
import type { RouteModule } from '../route-types.ts';

const KEEPALIVE_MS = 15_000;

export interface EventsDeps {
  hub: EventHub;
  /** Events sent first to each new subscriber (current state, recent notes) so a page needs no second request. */
  snapshot: () => SidecarEvent[];
}

export function formatSse(event: SidecarEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

export const registerEventsRoutes: RouteModule<EventsDeps> = (app, deps) => {
  app.get('/events', async (request, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      connection: 'keep-alive',
    });
    res.write(': connected\n\n');
    for (const event of deps.snapshot()) res.write(formatSse(event));
    const unsubscribe = deps.hub.subscribe((event) => {
      // A slow reader must not make us buffer without bound: skip events while the socket is backed up.
      if (res.writableNeedDrain) return;
      res.write(formatSse(event));
    });
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
    keepalive.unref();
    const done = () => {
      clearInterval(keepalive);
      unsubscribe();
    };
    request.raw.on('close', done);
    res.on('error', done);
  });
};
