// The journal store: one appended line per change (last line per id wins), compaction back to one
// line per entry, other programs' edits noticed without polling the content, torn tails cut off,
// pages by fire time with a cursor.
import { appendFile, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { parseScheduleText, ScheduleStore, scheduleFilePath, serializeSchedule, type StoredNotification } from '../../../main/core/notify/schedule-store.ts';

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
  return { id, text: `text ${id}`, mode: 'dm', delay_seconds: fire, fire_at_epoch: fire, created_at: 0, state, attempts: 0, updated_at: 0 };
}

function open(over: Partial<ConstructorParameters<typeof ScheduleStore>[0]> = {}): ScheduleStore {
  const store = new ScheduleStore({ file, logger, ...over });
  stores.push(store);
  return store;
}

const lines = async (): Promise<string[]> => (await readFile(file, 'utf8')).split('\n').filter(Boolean);
const until = async (cond: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(cond(), what).toBe(true);
};

it('appends one line per change; a plain reader sees the last line per id; compaction leaves one line per entry', async () => {
  const store = open({ compactMinGarbage: 5 });
  await store.load();
  await store.transact(() => ({ value: null, write: [record('a', 10), record('b', 20)] }));
  await store.transact(() => ({ value: null, write: [{ ...record('a', 10), state: 'cancelled' }] }));
  expect(await lines()).toHaveLength(3);
  const seen = parseScheduleText(await readFile(file, 'utf8'));
  expect(seen.entries.map((e) => [e.id, e.state])).toEqual([
    ['b', 'scheduled'],
    ['a', 'cancelled'],
  ]);
  // Enough superseded lines → a background compaction rewrites the file with one line per entry.
  for (let i = 0; i < 6; i++) await store.transact(() => ({ value: null, write: [{ ...record('b', 20), attempts: i }] }));
  expect(store.size).toBe(2);
  for (let i = 0; i < 200; i++) {
    if ((await lines()).length === 2) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  expect((await lines()).map((l) => (JSON.parse(l) as { id: string }).id).sort()).toEqual(['a', 'b']);
  expect(store.get('b')?.attempts).toBe(5);
});

it('pages by fire time with a cursor and a state filter', async () => {
  const store = open();
  await store.load();
  const all = Array.from({ length: 250 }, (_, i) => record(`n-${String(i).padStart(3, '0')}`, 1000 - i, i % 5 === 0 ? 'cancelled' : 'scheduled'));
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
  expect(store.pendingCount).toBe(200);
  expect(() => store.page({ limit: 10, cursor: 'not-a-cursor' })).toThrow(/cursor/);
});

it("notices another program's appended line and its whole-file rewrite while idle (fs.watch + stat), without re-reading on its own writes", async () => {
  const changes: (string[] | 'reloaded')[] = [];
  const store = open({ onExternalChange: (c) => changes.push(c === 'reloaded' ? c : c.map((e) => e.id)), statIntervalMs: 200 });
  await store.load();
  store.watch();
  await store.transact(() => ({ value: null, write: [record('mine', 5)] }));
  await new Promise((r) => setTimeout(r, 400));
  expect(changes).toEqual([]); // our own append is not an external change

  await appendFile(file, JSON.stringify(record('cli', 7)) + '\n'); // e.g. the CLI in another process
  await until(() => store.get('cli') !== undefined, 'appended entry seen');
  expect(changes).toEqual([['cli']]);

  const tmp = `${file}.other`;
  await writeFile(tmp, serializeSchedule([record('edited', 9)]));
  await rename(tmp, file); // a tool rewrote the file
  await until(() => store.get('edited') !== undefined && store.get('mine') === undefined, 'rewrite seen');
  expect(changes.at(-1)).toBe('reloaded');
});

it("with the default settings fs.watch alone notices another program's append while idle (the periodic stat is only a 60 s safety net)", async () => {
  const store = open();
  await store.load();
  store.watch();
  await appendFile(file, JSON.stringify(record('cli', 7)) + '\n');
  // `until` gives up long before the 60 s safety-net stat: only the watch can have seen it.
  await until(() => store.get('cli') !== undefined, 'appended entry seen through fs.watch');
});

it('cuts a torn last line off before appending, so every acknowledged change stays a whole line', async () => {
  const store = open();
  await store.load();
  await store.transact(() => ({ value: null, write: [record('a', 1)] }));
  await appendFile(file, '{"id":"half-writ'); // a writer killed mid-line
  await store.transact(() => ({ value: null, write: [record('b', 2)] }));
  const parsed = parseScheduleText(await readFile(file, 'utf8'));
  expect(parsed.damaged).toBe(0);
  expect(parsed.entries.map((e) => e.id)).toEqual(['a', 'b']);
});

it('a lock left by a killed process is taken over at once', async () => {
  const { spawnSync } = await import('node:child_process');
  const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
  const { mkdir, symlink } = await import('node:fs/promises');
  await mkdir(path.dirname(file), { recursive: true });
  await symlink(String(deadPid), `${file}.lock`); // the lock a killed process left: its pid
  const store = open();
  await store.load();
  await store.transact(() => ({ value: null, write: [record('a', 1)] }));
  expect(store.size).toBe(1);
});
