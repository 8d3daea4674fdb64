// The backup's integrity check opens the file on a third connection (in a worker) and closes it
// while the core's two connections hold their locks. SQLite then keeps that descriptor open: closing
// it would drop every POSIX lock the process holds on the file (os_unix.c, "pending" fds), and it
// hands it to the next open of the same file. So a core that has run a backup has one descriptor on
// the database more than one that has not (the day soak's 33 vs 32 fds across its restart, #55),
// and it stays one: a backup a day never adds another.
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../../main/core/store/database.ts';

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
let dir: string | undefined;
const opened: OpenedDatabase[] = [];

afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function descriptorsOn(file: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false; // closed between the listing and the read
    }
  }).length;
}

describe.runIf(process.platform === 'linux')('backups and open descriptors', () => {
  it('the integrity check leaves one descriptor behind at most, however many backups run', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lvb-backup-fds-'));
    const store = openDatabase({ dir, logger });
    const schedule = openDatabase({ dir, logger });
    opened.push(store, schedule);
    store.db.exec('CREATE TABLE IF NOT EXISTS soak (n INTEGER)');
    const before = descriptorsOn(store.file);
    const after: number[] = [];
    for (let n = 0; n < 5; n++) {
      store.db.prepare('INSERT INTO soak (n) VALUES (?)').run(n);
      await store.backup();
      after.push(descriptorsOn(store.file));
    }
    expect(after[0]).toBeLessThanOrEqual(before + 1);
    expect(after).toEqual(after.map(() => after[0]));
  });
});
