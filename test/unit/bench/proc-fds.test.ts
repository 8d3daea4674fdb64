// The day soak's quiet-point snapshot (bench/lib/proc-fds.ts), read of this very process: the
// sockets to a "model" port counted from its own fds, whatever the far side counts; and two reads
// that differ by one socket are not the same instant.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { modelPortOf, quietSnapshot, sameSnapshot } from '../../../bench/lib/proc-fds.ts';

const open: (Server | Socket)[] = [];
afterEach(async () => {
  // Sockets first: a server's close waits for its connections.
  for (const s of open.splice(0).reverse()) {
    if ('destroy' in s) s.destroy();
    else await new Promise((r) => s.close(r));
  }
});

async function listening(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    open.push(socket);
    server.emit('accepted');
  });
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

async function dial(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  open.push(socket);
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

it.runIf(process.platform === 'linux')(
  "counts the sockets to the model's port and the sidecar's clients from the process's own fds; a socket more is another instant",
  async () => {
    const model = await listening();
    const sidecar = await listening();
    await dial(model.port);
    const before = quietSnapshot(process.pid, sidecar.port, model.port);
    expect(before.modelSockets).toBe(1);
    expect(before.sidecarClients).toBe(0);
    const accepted = new Promise((resolve) => sidecar.server.once('accepted', resolve));
    const client = await dial(sidecar.port);
    await accepted; // the server side holds its end too
    const after = quietSnapshot(process.pid, sidecar.port, model.port);
    expect(after.sidecarClients).toBe(1);
    expect(after.modelSockets).toBe(1);
    expect(sameSnapshot(before, after)).toBe(false);
    expect(sameSnapshot(after, quietSnapshot(process.pid, sidecar.port, model.port))).toBe(true);
    client.destroy();
  },
);

it("takes the model fake's port from the core's environment for it", () => {
  expect(modelPortOf({ GEMINI_API_KEY: 'k', GEMINI_LIVE_BASE_URL: 'http://127.0.0.1:41234', GEMINI_MODEL: 'm' })).toBe(
    41234,
  );
  expect(() => modelPortOf({ GEMINI_API_KEY: 'k' })).toThrow(/no base URL/);
});
