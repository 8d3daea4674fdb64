// The schedule on the database: one row per entry (whatever reads the database sees the latest
// version), counts kept by the triggers, pages by fire time with a cursor, other processes' commits
// noticed while idle without polling the rows, finished entries pruned past retention.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ScheduleStore, scheduleFilePath, type StoredNotification } from '../../../main/core/notify/schedule-store.ts';
import { readScheduleRows, writeScheduleRows } from '../../helpers/schedule-db.ts';

const logger = pino({ level: 'silent' });
let home: string;
let file: string;
const stores: ScheduleStore[] = [];

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-store-'));
  file = scheduleFilePath(home);
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await rm(home, { recursive: true, force: true });
});

function record(id: string, fire: number, state: StoredNotification['state'] = 'scheduled'): StoredNotification {
  return {
    id,
    text: `text ${id}`,
    mode: 'dm',
    delay_seconds: fire,
    fire_at_epoch: fire,
    created_at: 0,
    state,
    attempts: 0,
    updated_at: 0,
  };
}

function open(over: Partial<ConstructorParameters<typeof ScheduleStore>[0]> = {}): ScheduleStore {
  const store = new ScheduleStore({ file, logger, ...over });
  stores.push(store);
  return store;
}

const until = async (cond: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(cond(), what).toBe(true);
};

it('one row per entry: another reader sees the latest version of each; the counts follow every change', async () => {
  const store = open();
  await store.load();
  await store.transact(() => ({ value: null, write: [record('a', 10), record('b', 20)] }));
  await store.transact(() => ({ value: null, write: [{ ...record('a', 10), state: 'cancelled' }] }));
  for (let i = 0; i < 6; i++)
    await store.transact(() => ({ value: null, write: [{ ...record('b', 20), attempts: i }] }));
  expect(readScheduleRows(file).map((e) => [e.id, e.state, e.attempts])).toEqual([
    ['a', 'cancelled', 0],
    ['b', 'scheduled', 5],
  ]);
  expect(store.size).toBe(2);
  expect(store.counts()).toEqual({ scheduled: 1, cancelled: 1 });
  expect(store.pendingCount).toBe(1);
  expect(store.get('b')?.attempts).toBe(5);
});

it('a change that throws writes nothing', async () => {
  const store = open();
  await store.load();
  await store.transact(() => ({ value: null, write: [record('a', 10)] }));
  await expect(
    store.transact(() => {
      throw new Error('refused');
    }),
  ).rejects.toThrow('refused');
  expect(readScheduleRows(file).map((e) => e.id)).toEqual(['a']);
});

it('pages by fire time with a cursor and a state filter', async () => {
  const store = open();
  await store.load();
  const all = Array.from({ length: 250 }, (_, i) =>
    record(`n-${String(i).padStart(3, '0')}`, 1000 - i, i % 5 === 0 ? 'cancelled' : 'scheduled'),
  );
  await store.transact(() => ({ value: null, write: all }));
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const got = store.page({ limit: 100, cursor });
    ids.push(...got.entries.map((e) => e.id));
    if (!got.next_cursor) break;
    cursor = got.next_cursor;
  }
  expect(ids).toEqual([...all].sort((a, b) => a.fire_at_epoch - b.fire_at_epoch).map((e) => e.id));
  const cancelled = store.page({ limit: 1000, state: 'cancelled' });
  expect(cancelled.entries).toHaveLength(50);
  expect(cancelled.next_cursor).toBeNull();
  const firstCancelled = store.page({ limit: 20, state: 'cancelled' });
  const restCancelled = store.page({ limit: 1000, state: 'cancelled', cursor: firstCancelled.next_cursor! });
  expect([...firstCancelled.entries, ...restCancelled.entries].map((e) => e.id)).toEqual(
    cancelled.entries.map((e) => e.id),
  );
  expect(store.pendingCount).toBe(200);
  expect(() => store.page({ limit: 10, cursor: 'not-a-cursor' })).toThrow(/cursor/);
});

it("notices another process's commit while idle (fs.watch + check), not its own", async () => {
  const changes: (string[] | 'reloaded')[] = [];
  const store = open({
    onExternalChange: (c) => changes.push(c === 'reloaded' ? c : c.map((e) => e.id)),
    statIntervalMs: 200,
  });
  await store.load();
  store.watch();
  await store.transact(() => ({ value: null, write: [record('mine', 5)] }));
  await new Promise((r) => setTimeout(r, 400));
  expect(changes).toEqual([]); // our own commit is not an external change

  writeScheduleRows(file, [record('cli', 7)]); // e.g. the CLI in another process
  await until(() => changes.length > 0, 'commit seen');
  expect(changes).toEqual([['cli']]);
  expect(store.get('cli')?.text).toBe('text cli');
});

it("with the default settings fs.watch alone notices another process's commit while idle (the periodic check is only a 60 s safety net)", async () => {
  const changes: unknown[] = [];
  const store = open({ onExternalChange: (c) => changes.push(c) });
  await store.load();
  store.watch();
  writeScheduleRows(file, [record('cli', 7)]);
  // `until` gives up long before the 60 s safety-net check: only the watch can have seen it.
  await until(() => changes.length === 1, 'commit seen through fs.watch');
});

it('prunes finished entries last changed before the cutoff, nothing else', async () => {
  const store = open();
  await store.load();
  await store.transact(() => ({
    value: null,
    write: [
      { ...record('old-done', 1, 'delivered'), updated_at: 100 },
      { ...record('new-done', 2, 'delivered'), updated_at: 900 },
      { ...record('old-pending', 3), updated_at: 100 },
    ],
  }));
  expect(await store.prune(500)).toBe(1);
  expect(readScheduleRows(file).map((e) => e.id)).toEqual(['new-done', 'old-pending']);
  expect(store.counts()).toEqual({ delivered: 1, scheduled: 1 });
});
