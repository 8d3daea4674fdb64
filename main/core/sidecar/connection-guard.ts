// Keeps the sidecar reachable whatever a local client does with its connections. A client that
// opens connections and leaves them idle (a leaky script, a browser tab gone wild, a hostile
// process) would otherwise hold file descriptors up to the process limit, and then nobody — not
// /health, not the owner's dashboard — gets in (seen: /health 0 of 40 with 1,200 idle connections).
//  - an idle connection (no request in flight) is closed after `idleMs`;
//  - each client address holds at most `maxPerClient` connections: a new one beyond that closes
//    that client's longest-idle connection (never one with a request in flight), so the newest
//    request always gets in; only when every one of them is busy is the new connection refused.
// On loopback every local client shares 127.0.0.1, so the cap bounds the sidecar's descriptors as a
// whole, far below the usual 1,024 limit. Connections that stream (GET /events) are busy, not idle.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export const DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 128;
export const DEFAULT_IDLE_CONNECTION_MS = 15_000;

export interface ConnectionGuardOptions {
  maxPerClient?: number;
  idleMs?: number;
}

interface Tracked {
  socket: Socket;
  /** Requests in flight on it (0: idle). */
  busy: number;
  idleTimer: NodeJS.Timeout | null;
  /** When it last became idle (for choosing whom to close). */
  idleSince: number;
}

export interface ConnectionGuard {
  /** Connections closed for being idle or to make room. */
  readonly shed: number;
  stop(): void;
}

export function guardConnections(server: Server, options: ConnectionGuardOptions = {}): ConnectionGuard {
  const maxPerClient = options.maxPerClient ?? DEFAULT_MAX_CONNECTIONS_PER_CLIENT;
  const idleMs = options.idleMs ?? DEFAULT_IDLE_CONNECTION_MS;
  const byClient = new Map<string, Set<Tracked>>();
  const bySocket = new WeakMap<Socket, Tracked>();
  let shed = 0;

  const close = (t: Tracked): void => {
    shed++;
    t.socket.destroy();
  };

  const armIdle = (t: Tracked): void => {
    if (t.idleTimer) clearTimeout(t.idleTimer);
    t.idleSince = performance.now();
    t.idleTimer = setTimeout(() => close(t), idleMs);
    t.idleTimer.unref();
  };

  const onConnection = (socket: Socket): void => {
    const client = socket.remoteAddress ?? 'unknown';
    let group = byClient.get(client);
    if (!group) byClient.set(client, (group = new Set()));
    if (group.size >= maxPerClient) {
      let oldest: Tracked | null = null;
      for (const t of group) if (t.busy === 0 && (!oldest || t.idleSince < oldest.idleSince)) oldest = t;
      if (!oldest) {
        // Every connection of this client has a request in flight: this one waits its turn elsewhere.
        shed++;
        socket.destroy();
        return;
      }
      close(oldest);
      group.delete(oldest);
    }
    const tracked: Tracked = { socket, busy: 0, idleTimer: null, idleSince: 0 };
    group.add(tracked);
    bySocket.set(socket, tracked);
    armIdle(tracked);
    socket.once('close', () => {
      if (tracked.idleTimer) clearTimeout(tracked.idleTimer);
      group.delete(tracked);
      if (group.size === 0 && byClient.get(client) === group) byClient.delete(client);
    });
  };

  const onRequest = (request: IncomingMessage, response: ServerResponse): void => {
    const tracked = bySocket.get(request.socket);
    if (!tracked) return;
    tracked.busy++;
    if (tracked.idleTimer) clearTimeout(tracked.idleTimer);
    tracked.idleTimer = null;
    response.once('close', () => {
      tracked.busy = Math.max(0, tracked.busy - 1);
      if (tracked.busy === 0 && !tracked.socket.destroyed) armIdle(tracked);
    });
  };

  server.on('connection', onConnection);
  // Before fastify's own listener: the connection is counted busy before its handler runs.
  server.prependListener('request', onRequest);
  return {
    get shed() {
      return shed;
    },
    stop() {
      server.off('connection', onConnection);
      server.off('request', onRequest);
      for (const group of byClient.values()) for (const t of group) if (t.idleTimer) clearTimeout(t.idleTimer);
    },
  };
}
