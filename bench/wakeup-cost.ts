// node bench/wakeup-cost.ts: what a timer wake-up and a loopback UDP packet cost on this machine,
// in a bare Node process (no product code): the table in docs/performance.md ("Wake-ups"). Each row
// runs for 10 s after 1 s of settling; CPU is this process's utime + stime from /proc (10 ms
// ticks) over wall time. A child process sends or receives the UDP packets, as the fakes do in the
// latency bench. About two minutes in all. Prints only.
import { fork, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const WINDOW_MS = 10_000;
const PACKET = Buffer.alloc(160);
const role = process.argv[2];

function cpuTicks(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

if (role === 'receiver' || role === 'busy-receiver') {
  const socket = dgram.createSocket('udp4');
  socket.on('message', () => undefined);
  socket.bind(0, '127.0.0.1', () => {
    process.send!(socket.address().port);
    // A receiver that never sleeps: the sender's packets wake nobody.
    if (role === 'busy-receiver') {
      const spin = (): void => {
        const until = Date.now() + 50;
        while (Date.now() < until);
        setImmediate(spin);
      };
      spin();
    }
  });
} else if (role === 'sender') {
  const socket = dgram.createSocket('udp4');
  process.on('message', (port: number) => setInterval(() => socket.send(PACKET, port, '127.0.0.1'), 20));
} else {
  const self = fileURLToPath(import.meta.url);
  const children: ChildProcess[] = [];
  const child = async (childRole: string): Promise<{ process: ChildProcess; port: number }> => {
    const proc = fork(self, [childRole]);
    children.push(proc);
    const port =
      childRole === 'sender'
        ? 0
        : await new Promise<number>((resolve) => proc.once('message', (p) => resolve(p as number)));
    return { process: proc, port };
  };
  const measure = async (label: string, start: () => () => void): Promise<void> => {
    const stop = start();
    await sleep(1000);
    const ticks = cpuTicks();
    const wall = Date.now();
    await sleep(WINDOW_MS);
    const percent = ((cpuTicks() - ticks) * 10 * 100) / (Date.now() - wall);
    stop();
    console.log(`${percent.toFixed(2).padStart(6)} %  ${label}`);
  };
  const interval =
    (ms: number, fn: () => void = () => undefined) =>
    () => {
      const timer = setInterval(fn, ms);
      return () => clearInterval(timer);
    };

  console.log('% of one core  what runs (this process)');
  await measure('nothing', () => () => undefined);
  await measure('setInterval 20 ms, empty', interval(20));
  await measure('setInterval 10 ms, empty', interval(10));

  const out = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => out.bind(0, '127.0.0.1', resolve));
  for (const receiverRole of ['receiver', 'busy-receiver']) {
    const receiver = await child(receiverRole);
    const who = receiverRole === 'receiver' ? 'a sleeping process' : 'a busy process (nothing to wake)';
    await measure(
      `setInterval 20 ms + a 160-byte UDP send per tick to ${who}`,
      interval(20, () => out.send(PACKET, receiver.port, '127.0.0.1')),
    );
    receiver.process.kill();
  }

  const inbound = dgram.createSocket('udp4');
  inbound.on('message', () => undefined);
  await new Promise<void>((resolve) => inbound.bind(0, '127.0.0.1', resolve));
  const sender = await child('sender');
  sender.process.send(inbound.address().port);
  await measure('receiving 50 UDP packets/s from another process', () => () => undefined);
  await measure('the same + setInterval 20 ms', interval(20));
  await measure('the same + a 40 ms watchdog refresh()ed per packet', () => {
    const watchdog = setTimeout(() => undefined, 40);
    const onPacket = () => watchdog.refresh();
    inbound.on('message', onPacket);
    return () => {
      clearTimeout(watchdog);
      inbound.off('message', onPacket);
    };
  });
  await measure('the same + setInterval 100 ms', interval(100));
  for (const proc of children) proc.kill();
  process.exit(0);
}
