// The sidecar's connection guard: an idle connection is closed after the idle timeout, one with a
// request in flight (a stream) is not; beyond the per-client cap a new connection closes the
// longest-idle one instead of being starved.
import { createServer, type Server } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { guardConnections, type ConnectionGuard } from '../../../main/core/sidecar/connection-guard.ts';

let server: Server;
let guard: ConnectionGuard;
const sockets: net.Socket[] = [];

async function start(maxPerClient: number, idleMs: number): Promise<number> {
  server = createServer((req, res) => {
    if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
      return; // held open, like GET /events
    }
    res.end('ok');
  });
  guard = guardConnections(server, { maxPerClient, idleMs });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  guard.stop();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.on('error', () => undefined);
    sockets.push(socket);
  });
}

const closed = (socket: net.Socket): Promise<void> =>
  new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

it('closes an idle connection after the timeout but keeps a streaming one', async () => {
  const port = await start(100, 300);
  const idle = await connect(port);
  const streaming = await connect(port);
  streaming.write('GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await closed(idle);
  await new Promise((r) => setTimeout(r, 600));
  expect(streaming.destroyed).toBe(false);
});

it('makes room for a new connection by closing the longest-idle one beyond the per-client cap', async () => {
  const port = await start(3, 60_000);
  const first = await connect(port);
  await connect(port);
  await connect(port);
  const fresh = await connect(port);
  await closed(first);
  const answer = await new Promise<string>((resolve) => {
    let text = '';
    fresh.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('ok')) resolve(text);
    });
    fresh.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  });
  expect(answer).toMatch(/^HTTP\/1\.1 200/);
  expect(guard.shed).toBe(1);
});
