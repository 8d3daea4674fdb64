// What every model fake's server shares: the HTTP/WebSocket bootstrap on 127.0.0.1, the stop, and
// "wait until this holds" for tests and scripts. Each fake keeps only its protocol's answers (the
// 404 body, whether the library or the fake answers pings).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';

interface Listenable {
  on(event: string, listener: () => void): unknown;
  off(event: string, listener: () => void): unknown;
}

/** Resolves when `predicate` holds, re-checked on each of `events`; rejects after `timeoutMs`. */
export function waitUntil(emitter: Listenable, events: readonly string[], predicate: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  if (predicate()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (!predicate()) return;
      cleanup();
      resolve();
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(describe()));
    }, timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      for (const event of events) emitter.off(event, check);
    };
    for (const event of events) emitter.on(event, check);
  });
}

/** The n-th (0-based) established connection of a fake server, once `readyEvent` has made it one. */
export async function nthEstablished<C>(server: Listenable & { readonly established: C[] }, readyEvent: string, n: number, timeoutMs: number, name: string): Promise<C> {
  await waitUntil(server, [readyEvent], () => server.established[n] !== undefined, timeoutMs, () => `${name}: no connection #${n} within ${timeoutMs} ms (have ${server.established.length})`);
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
export async function listenWebSocketFake<T extends { handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void }>(
  options: ListenOptions,
  create: (server: Server, wss: WebSocketServer) => T,
): Promise<T> {
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
