// The day soak's sampler must not be part of what it counts: it reads the core's open fds and asks
// /health every 5 s, and a keep-alive connection of its own left in the core made the quiet points
// of the first 120-minute run differ by one TCP socket (bench/lib/soak-day-measure.ts, issue #55).
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleCore } from '../../../bench/lib/soak-day-measure.ts';

let server: Server | null = null;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

function fakeCore(): Promise<{ base: string; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  server = createServer((_request, reply) => {
    reply.setHeader('content-type', 'application/json');
    reply.end(JSON.stringify({ memory: { heap_used_mb: 12 }, diagnostics: { active_resources: { Timeout: 2 } } }));
  });
  // Longer than the test: a connection the sampler leaves open stays open.
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => sockets.push(socket));
  return new Promise((resolve) =>
    server!.listen(0, '127.0.0.1', () =>
      resolve({ base: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, sockets }),
    ),
  );
}

const closed = (socket: Socket): Promise<void> =>
  socket.destroyed ? Promise.resolve() : new Promise((resolve) => socket.once('close', () => resolve()));

describe('day soak sampler', () => {
  it('leaves no connection of its own open in the core after a sample', async () => {
    const { base, sockets } = await fakeCore();
    const first = await sampleCore(process.pid, base, 'token', performance.now(), 1);
    const second = await sampleCore(process.pid, base, 'token', performance.now(), 1);
    expect(first?.heapMb).toBe(12);
    expect(second?.activeResources).toBe(2);
    expect(sockets.length).toBeGreaterThan(0);
    const outcome = await Promise.race([
      Promise.all(sockets.map(closed)).then(() => 'all closed'),
      sleep(2000).then(() => `${sockets.filter((s) => !s.destroyed).length} still open`),
    ]);
    expect(outcome).toBe('all closed');
  });
});
