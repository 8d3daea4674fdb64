// The lifecycle runner (main/core/lifecycle.ts, issue 38 item 1): one stop list for a failed start and
// for shutdown, newest first; stopping twice is safe; a stop that hangs or throws does not keep the
// ones after it from running, and the whole stop stays within its budget.
import { describe, expect, it } from 'vitest';
import { Lifecycle, type Capability } from '../../../main/core/lifecycle.ts';
import { silentLogger } from '../../../main/core/log/logger.ts';

function recording() {
  const events: string[] = [];
  const capability = (
    name: string,
    how: { failStart?: boolean; stop?: () => unknown; report?: Record<string, unknown> } = {},
  ): Capability<void, string> => ({
    name,
    start() {
      if (how.failStart) throw new Error(`${name} could not start`);
      events.push(`start ${name}`);
      return {
        api: name,
        stop: () => {
          events.push(`stop ${name}`);
          return how.stop?.();
        },
        ...(how.report ? { health: () => ({ report: how.report }) } : {}),
      };
    },
  });
  return { events, capability };
}

const lifecycle = (budgetMs = 2000) => new Lifecycle({ budgetMs, log: silentLogger() });

describe('Lifecycle', () => {
  it('a start that throws at step k stops steps k-1..1, newest first, and never stops step k', async () => {
    for (let k = 1; k <= 4; k++) {
      const { events, capability } = recording();
      const life = lifecycle();
      const names = ['a', 'b', 'c', 'd'];
      const startAll = async () => {
        for (const [i, name] of names.entries())
          await life.start(capability(name, { failStart: i + 1 === k }), undefined);
      };
      await expect(startAll()).rejects.toThrow(`${names[k - 1]} could not start`);
      await life.stop();
      const opened = names.slice(0, k - 1);
      expect(events).toEqual([...opened.map((n) => `start ${n}`), ...[...opened].reverse().map((n) => `stop ${n}`)]);
    }
  });

  it('shutdown stops everything newest first; a second stop (even while the first runs) stops nothing twice', async () => {
    const { events, capability } = recording();
    const life = lifecycle();
    for (const name of ['a', 'b', 'c']) expect(await life.start(capability(name), undefined)).toBe(name);
    const first = life.stop();
    const second = life.stop();
    await Promise.all([first, second]);
    await life.stop();
    expect(events).toEqual(['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
    await expect(life.start(capability('late'), undefined)).rejects.toThrow(/stopping/);
    expect(events).not.toContain('start late');
  });

  it('a stop that throws or hangs past the budget does not keep the older capabilities from stopping', async () => {
    const { events, capability } = recording();
    const life = lifecycle(300);
    await life.start(capability('a'), undefined);
    await life.start(capability('hangs', { stop: () => new Promise(() => undefined) }), undefined);
    await life.start(capability('throws', { stop: () => Promise.reject(new Error('boom')) }), undefined);
    await life.stop();
    expect(events.filter((e) => e.startsWith('stop'))).toEqual(['stop throws', 'stop hangs', 'stop a']);
  });

  it('health parts come from what runs, in start order', async () => {
    const { capability } = recording();
    const life = lifecycle();
    await life.start(capability('a', { report: { version: '1' } }), undefined);
    await life.start(capability('quiet'), undefined);
    await life.start(capability('b', { report: { pid: 7 } }), undefined);
    expect(life.healthParts()).toEqual([{ report: { version: '1' } }, { report: { pid: 7 } }]);
    expect(life.names()).toEqual(['a', 'quiet', 'b']);
  });
});
