import { readFileSync } from 'node:fs';
import net from 'node:net';

/**
 * The lowest port the kernel hands out for bind(0) and outgoing connections. A port the kernel chose
 * and we then closed can be handed out again at once, to the fakes (which listen on port 0) or to
 * another test running beside this one, before the child process we name it to binds it: seen as
 * "port … is in use" in the demo test. Ports below this range are never handed out by the kernel.
 */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

const FIRST_FIXED_PORT = 20_000;

/** True when nothing listens on `port` of 127.0.0.1 (e.g. a closed server really released it). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port that was free a moment ago (for child processes that must be told a port), chosen
 * at random below the kernel's ephemeral range, so no port-0 listener can take it in between; only
 * another test choosing the same one could (1 in about 12,000).
 */
export async function freePort(): Promise<number> {
  const span = ephemeralLow() - FIRST_FIXED_PORT;
  if (span < 1000) return kernelChosenPort(); // an unusual ephemeral range: no room below it
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = FIRST_FIXED_PORT + Math.floor(Math.random() * span);
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free loopback port found between ${FIRST_FIXED_PORT} and ${FIRST_FIXED_PORT + span}`);
}

function kernelChosenPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
