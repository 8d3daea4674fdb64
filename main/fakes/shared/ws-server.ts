// What every model fake's server shares: the HTTP/WebSocket bootstrap on 127.0.0.1, the stop, and
// "wait until this holds" for tests and scripts. Each fake keeps only its protocol's answers (the
// 404 body, whether the library or the fake answers pings).
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';

/** Calls `listener` on each event that may change a condition; returns the call that stops it. */
export type Watch = (listener: () => void) => () => void;

/**
 * Watches `events` of a typed emitter. The shared bases are generic in their event map, and on a
 * generic map @types/node's typed `on` resolves no listener type (it is a conditional type left
 * open), so the events are added through EventEmitter's own `on`/`off`; the names are still
 * checked against the map, and the listener takes no arguments, which fits every event.
 */
export function watchEvents<E extends Record<keyof E, unknown[]>>(
  emitter: EventEmitter<E>,
  events: readonly (keyof E & string)[],
): Watch {
  return (listener) => {
    for (const event of events) EventEmitter.prototype.on.call(emitter, event, listener);
    return () => {
      for (const event of events) EventEmitter.prototype.off.call(emitter, event, listener);
    };
  };
}

/** Resolves when `predicate` holds, re-checked on each event `watch` reports; rejects after `timeoutMs`. */
export function waitUntil(
  watch: Watch,
  predicate: () => boolean,
  timeoutMs: number,
  describe: () => string,
): Promise<void> {
  if (predicate()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (!predicate()) return;
      cleanup();
      resolve();
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      unwatch();
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(describe()));
    }, timeoutMs);
    const unwatch = watch(check);
  });
}

/** The n-th (0-based) established connection of a fake server, once `watch` reports one made. */
export async function nthEstablished<C>(
  server: { readonly established: C[] },
  watch: Watch,
  n: number,
  timeoutMs: number,
  name: string,
): Promise<C> {
  await waitUntil(
    watch,
    () => server.established[n] !== undefined,
    timeoutMs,
    () => `${name}: no connection #${n} within ${timeoutMs} ms (have ${server.established.length})`,
  );
  return server.established[n]!;
}

export interface ListenOptions {
  port?: number;
  /** JSON body of the 404 a plain HTTP request gets (the service's own error shape). */
  notFoundBody: unknown;
  /** false: the fake answers pings itself (late, like Gemini); default true (the library answers). */
  autoPong?: boolean;
}

/** An HTTP server on 127.0.0.1 whose upgrades go to the fake built by `create`; plain requests get 404. */
export async function listenWebSocketFake<
  T extends { handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void },
>(options: ListenOptions, create: (server: Server, wss: WebSocketServer) => T): Promise<T> {
  const body = JSON.stringify(options.notFoundBody);
  const server = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(body);
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, autoPong: options.autoPong ?? true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const fake = create(server, wss);
  server.on('upgrade', (req, socket, head) => fake.handleUpgrade(req, socket, head));
  return fake;
}

/** Stops a fake: every client socket cut, then the WebSocket and HTTP servers closed. */
export async function closeWebSocketFake(server: Server, wss: WebSocketServer): Promise<void> {
  for (const client of wss.clients) client.terminate();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
