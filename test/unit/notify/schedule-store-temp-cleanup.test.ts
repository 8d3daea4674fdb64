// A core killed during compaction leaves `notifications-schedule.jsonl.tmp-<pid>-<hex>` behind (the
// audit found 25 MB of it still there after a clean restart). Opening the store removes such files
// of processes that are gone, and leaves a live process's in-flight one alone.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scheduleFilePath, ScheduleStore } from '../../../main/core/notify/schedule-store.ts';

let home: string;
let file: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-store-tmp-'));
  file = scheduleFilePath(home);
  await rm(path.dirname(file), { recursive: true, force: true });
  await import('node:fs/promises').then((fs) => fs.mkdir(path.dirname(file), { recursive: true }));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** The pid of a process that has exited (so the pid is not alive). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('schedule store: temp files of an interrupted rewrite', () => {
  it('are removed when the store opens; a live process fresh temp file and unrelated files stay', async () => {
    const entry = { id: 'n-1', text: 'kept', mode: 'dm', delay_seconds: 1, fire_at_epoch: 2e9, created_at: 1, state: 'scheduled', attempts: 0 };
    await writeFile(file, JSON.stringify(entry) + '\n');
    const dead = `${file}.tmp-${deadPid()}-705aaefa`;
    await writeFile(dead, 'x'.repeat(100_000));
    const liveFresh = `${file}.tmp-${process.pid}-0badcafe`;
    await writeFile(liveFresh, 'in flight');
    const liveOld = `${file}.tmp-${process.pid}-00c0ffee`; // a pid reused long after the crash
    await writeFile(liveOld, 'old');
    const old = new Date(Date.now() - 2 * 3600_000);
    await utimes(liveOld, old, old);
    const unrelated = `${file}.rejected`;
    await writeFile(unrelated, 'keep me\n');

    const lines: string[] = [];
    const store = new ScheduleStore({ file, logger: pino({ level: 'info' }, { write: (l: string) => lines.push(l) }) });
    await store.load();
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(liveOld)).toBe(false);
    expect(existsSync(liveFresh)).toBe(true);
    expect(existsSync(unrelated)).toBe(true);
    expect(store.get('n-1')?.text).toBe('kept');
    expect(lines.join('')).toContain('removed temp files of an interrupted schedule rewrite');
    expect((await readdir(path.dirname(file))).sort()).toEqual([path.basename(file), path.basename(liveFresh), path.basename(unrelated)].sort());
    await store.close();
  });
});
