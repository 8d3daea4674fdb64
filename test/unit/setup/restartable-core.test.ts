// "Restart now" in its own process (setup/restartable-core.ts) when the saved settings do not start:
// a sidecar port another program holds is refused before anything stops; a new core that fails to
// start anyway gives way to the previous settings again; when those fail too, onLost says nothing runs.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RestartOutcome } from '../../../main/core/api-types.ts';
import type { Config } from '../../../main/core/config/index.ts';
import type { CoreHandle } from '../../../main/core/core.ts';
import { RestartFailedError, startRestartableCore } from '../../../main/core/setup/restartable-core.ts';

interface FakeCore {
  name: string;
  port: number;
  stopped: boolean;
}

function fakeConfig(name: string, port: number): Config {
  return { name, sidecar: { host: '127.0.0.1', port } } as unknown as Config;
}

const nameOf = (config: Config): string => (config as unknown as { name: string }).name;

/** A restartable core over fake cores; `failing` names the configurations whose start throws. */
async function harness(initial: Config, next: Config, failing: Set<string>) {
  const cores: FakeCore[] = [];
  const starts: string[] = [];
  const failed: unknown[] = [];
  const lost: RestartFailedError[] = [];
  const restarted: string[] = [];
  let lastRestart: () => RestartOutcome | null = () => null;
  const running = await startRestartableCore({
    initial,
    load: async () => next,
    start: async (config, _restart, last) => {
      lastRestart = last;
      const name = nameOf(config);
      starts.push(name);
      if (failing.has(name))
        throw Object.assign(new Error(`listen EADDRINUSE: address already in use 127.0.0.1:${config.sidecar.port}`), {
          code: 'EADDRINUSE',
        });
      const fake: FakeCore = { name, port: config.sidecar.port, stopped: false };
      cores.push(fake);
      return {
        sidecarUrl: `http://127.0.0.1:${config.sidecar.port}`,
        fake,
        stop: async () => void (fake.stopped = true),
      } as unknown as CoreHandle;
    },
    onRestarted: (_core, config) => restarted.push(nameOf(config)),
    onFailed: (err) => failed.push(err),
    onLost: (err) => lost.push(err),
  });
  const current = (): FakeCore => (running.core as unknown as { fake: FakeCore }).fake;
  return { running, cores, starts, failed, lost, restarted, current, lastRestart: () => lastRestart() };
}

const blockers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(blockers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A port another program holds (a plain TCP listener). */
async function heldPort(): Promise<number> {
  const server = net.createServer();
  blockers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

describe('restart with settings that do not start', () => {
  it('a new core that fails to start: the previous settings start again, and onFailed says the new ones did not take, and why', async () => {
    const h = await harness(fakeConfig('old', 41001), fakeConfig('new', 41001), new Set(['new']));
    h.running.restart();
    await h.running.settled();
    expect(h.starts).toEqual(['old', 'new', 'old']);
    expect(h.cores.map((c) => [c.name, c.stopped])).toEqual([
      ['old', true],
      ['old', false],
    ]);
    expect(h.current()).toBe(h.cores[1]);
    expect(nameOf(h.running.config)).toBe('old');
    expect(h.restarted).toEqual([]);
    expect(h.lost).toEqual([]);
    expect(h.failed).toHaveLength(1);
    const err = h.failed[0] as RestartFailedError;
    expect(err).toBeInstanceOf(RestartFailedError);
    expect(err.restored).toBe(true);
    expect(err.message).toMatch(
      /saved settings did not start \(listen EADDRINUSE.*previous settings on http:\/\/127\.0\.0\.1:41001/,
    );
    // What GET /settings shows the page (`lastRestart`), so it can say why at once.
    expect(h.lastRestart()).toMatchObject({ applied: false, message: err.message });
  });

  it('the previous settings fail too: onLost (nothing runs), not a quiet "keeps its settings"', async () => {
    // The old configuration starts the first time, then neither starts.
    const starts: string[] = [];
    const lost: RestartFailedError[] = [];
    const failed: unknown[] = [];
    let first = true;
    const running = await startRestartableCore({
      initial: fakeConfig('old', 41002),
      load: async () => fakeConfig('new', 41002),
      start: async (config) => {
        starts.push(nameOf(config));
        if (!first) throw new Error(`cannot start ${nameOf(config)}`);
        first = false;
        return { sidecarUrl: 'http://127.0.0.1:41002', stop: async () => undefined } as unknown as CoreHandle;
      },
      onFailed: (err) => failed.push(err),
      onLost: (err) => lost.push(err),
    });
    running.restart();
    await running.settled();
    expect(starts).toEqual(['old', 'new', 'old']);
    expect(failed).toEqual([]);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.lost).toBe(true);
    expect(lost[0]!.message).toBe(
      'the saved settings did not start (cannot start new), nor did the previous ones (cannot start old): no core is running',
    );
  });

  it('a saved sidecar port another program holds: refused before the running core is stopped', async () => {
    const taken = await heldPort();
    const h = await harness(fakeConfig('old', 41003), fakeConfig('new', taken), new Set());
    h.running.restart();
    await h.running.settled();
    expect(h.starts).toEqual(['old']);
    expect(h.cores[0]!.stopped).toBe(false);
    expect(h.current()).toBe(h.cores[0]);
    expect(h.failed).toHaveLength(1);
    const err = h.failed[0] as RestartFailedError;
    expect(err.restored).toBe(false);
    expect(err.message).toBe(
      `the saved sidecar port ${taken} (on 127.0.0.1) is not free: another program is using it; nothing was restarted and the core keeps running with its settings on http://127.0.0.1:41003`,
    );
    expect(h.lastRestart()).toMatchObject({ applied: false, message: err.message });
  });

  it("the running core's own port is not probed (it is free once that core stops); a free new port restarts as before", async () => {
    const same = await harness(fakeConfig('old', 41004), fakeConfig('new', 41004), new Set());
    same.running.restart();
    await same.running.settled();
    expect([same.starts, same.restarted, same.failed]).toEqual([['old', 'new'], ['new'], []]);
    expect(same.lastRestart()).toMatchObject({
      applied: true,
      message: 'restarted with the saved settings on http://127.0.0.1:41004',
    });

    const free = await heldPort();
    await new Promise((resolve) => blockers.pop()!.close(resolve));
    const moved = await harness(fakeConfig('old', 41005), fakeConfig('new', free), new Set());
    moved.running.restart();
    await moved.running.settled();
    expect([moved.starts, moved.restarted, moved.failed]).toEqual([['old', 'new'], ['new'], []]);
    expect(moved.current().port).toBe(free);
  });

  it('without onLost, a restart that leaves nothing running is still told (onFailed, lost: true)', async () => {
    const failed: unknown[] = [];
    let first = true;
    const running = await startRestartableCore({
      initial: fakeConfig('old', 41006),
      load: async () => fakeConfig('new', 41006),
      start: async () => {
        if (!first) throw new Error('no');
        first = false;
        return { sidecarUrl: 'http://127.0.0.1:41006', stop: async () => undefined } as unknown as CoreHandle;
      },
      onFailed: (err) => failed.push(err),
    });
    running.restart();
    await running.settled();
    expect(failed).toHaveLength(1);
    expect((failed[0] as RestartFailedError).lost).toBe(true);
  });
});
