// What the two OpenAI fakes (Realtime, GPT-Live) share: the HTTP/WebSocket bootstrap on 127.0.0.1,
// the refusal with OpenAI's JSON error body, and "wait until this holds" for tests and scripts.
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

/** Answers an upgrade with an HTTP error and OpenAI's JSON error body (never echoing a key). */
export function refuseUpgrade(socket: Duplex, status: number, code: string | null, message: string): void {
  const body = JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } });
  const reason = status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Bad Request';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** An HTTP server on 127.0.0.1 whose upgrades go to the fake built by `create`; plain requests get 404. */
export async function listenWebSocketFake<T extends { handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void }>(
  port: number | undefined,
  create: (server: Server, wss: WebSocketServer) => T,
): Promise<T> {
  const server = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'Not found', type: 'invalid_request_error', param: null, code: null } }));
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port ?? 0, '127.0.0.1', () => resolve());
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
