// The demo's side of its fakes child process (fakes-process.ts): fork it, wait for the fakes'
// addresses, ask the fake owner to speak, and close it.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { PersonKey } from './demo-script.ts';
import type { FakeServicesInfo } from './fake-services.ts';
import { FromFakesSchema, type ToFakes } from './fakes-protocol.ts';

export interface FakesChild {
  info: FakeServicesInfo;
  pid: number;
  ownerSpeaks(seconds: number): Promise<void>;
  /** `who` says `text` (scripted speech the fake models transcribe). */
  say(who: PersonKey, text: string): Promise<void>;
  /** `who` joins the voice channel. */
  join(who: PersonKey): Promise<void>;
  /** `who` types /optout or /optin; resolves with the bot's answer. */
  slash(who: PersonKey, command: 'optout' | 'optin'): Promise<string>;
  /** Ends the child (fakes closed, its CA file removed); resolves when it has exited. */
  close(): Promise<void>;
  /** Called once if the child dies on its own. */
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
}

const READY_TIMEOUT_MS = 60_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export async function startFakesChild(): Promise<FakesChild> {
  // The sibling module as this one was loaded: fakes-process.js when compiled (dist/), .ts from source.
  const child: ChildProcess = fork(
    new URL(`./fakes-process${path.extname(import.meta.filename)}`, import.meta.url),
    [],
    {
      // Not the parent's flags (--inspect and the like): the child is a plain Node process.
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const pending = new Map<number, { resolve: (answer: string) => void; reject: (err: Error) => void }>();
  let nextId = 1;
  let exited = false;
  const exitListeners: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  const exitedPromise = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = true;
      for (const { reject } of pending.values()) reject(new Error('the fakes process ended'));
      pending.clear();
      for (const listener of exitListeners) listener(code, signal);
      resolve();
    }),
  );

  const info = await new Promise<FakeServicesInfo>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the fakes process did not start within ${READY_TIMEOUT_MS / 1000} s`)),
      READY_TIMEOUT_MS,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the fakes process exited (${code}) before it was ready`));
    });
    child.on('message', (raw) => {
      const parsed = FromFakesSchema.safeParse(raw);
      if (!parsed.success) return;
      const message = parsed.data;
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message.info);
      } else if (message.id !== undefined) {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.type === 'spoken') waiter?.resolve(message.answer ?? '');
        else waiter?.reject(new Error(message.message));
      }
    });
  }).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });

  const send = (message: ToFakes) => {
    if (!exited && child.connected) child.send(message);
  };
  /** Sends one request (its id added) and resolves with the child's answer when it is done. */
  const request = (message: DistributiveOmit<Exclude<ToFakes, { type: 'close' }>, 'id'>): Promise<string> => {
    const id = nextId++;
    return new Promise<string>((resolve, reject) => {
      if (exited) return reject(new Error('the fakes process ended'));
      pending.set(id, { resolve, reject });
      send({ ...message, id } as ToFakes);
    });
  };
  return {
    info,
    pid: child.pid ?? 0,
    ownerSpeaks: async (seconds) => void (await request({ type: 'speak', seconds })),
    say: async (who, text) => void (await request({ type: 'say', who, text })),
    join: async (who) => void (await request({ type: 'join', who })),
    slash: (who, command) => request({ type: 'slash', who, command }),
    async close() {
      send({ type: 'close' });
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exitedPromise;
      clearTimeout(killer);
    },
    onExit(listener) {
      exitListeners.push(listener);
    },
  };
}
