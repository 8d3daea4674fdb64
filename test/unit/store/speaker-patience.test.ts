// The learnt patience per speaker in the database (migration 3): a learner's window survives a
// restart of the core (the database closed and opened again), a reset removes it for good, and the
// migration runs on a database written before it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../main/core/contracts/clock.ts';
import { PatienceLearner } from '../../../main/core/bridge/patience-learner.ts';
import { SqlitePatienceMemory } from '../../../main/core/bridge/patience-store.ts';
import { openDatabase, type OpenedDatabase } from '../../../main/core/store/database.ts';
import { MIGRATIONS } from '../../../main/core/store/migrations/index.ts';

let dir: string;
const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const opened: OpenedDatabase[] = [];

function open(migrations = MIGRATIONS): OpenedDatabase {
  const db = openDatabase({ dir, logger, migrations });
  opened.push(db);
  return db;
}

beforeEach(() => {
  dir = path.join(mkdtempSync(path.join(tmpdir(), 'lvb-patience-')), 'voice-users');
});
afterEach(() => {
  for (const db of opened.splice(0)) if (db.db.open) db.close();
  rmSync(path.dirname(dir), { recursive: true, force: true });
});

/** One cut-off of `id`: the reply's first audio at 800 ms of their pause, and they go on 400 ms later. */
function cutOnce(learner: PatienceLearner, clock: ManualClock, id: string): void {
  learner.speechStarted(id);
  clock.advance(1000);
  learner.speechEnded(id);
  clock.advance(800);
  learner.replyStarted();
  clock.advance(400);
  learner.speechStarted(id);
}

describe('speaker patience in the database', () => {
  it('survives a restart, with the name it was heard under, and a reset removes it', () => {
    const clock = new ManualClock(1_700_000_000_000);
    const first = open();
    const learner = new PatienceLearner({
      clock,
      baseMs: () => 800,
      memory: new SqlitePatienceMemory(first.db),
      name: () => 'Ann',
    });
    cutOnce(learner, clock, '111111111111111111');
    cutOnce(learner, clock, '111111111111111111');
    expect(learner.windowOf('111111111111111111')).toBe(1400);
    first.close();

    const second = open();
    const memory = new SqlitePatienceMemory(second.db);
    expect(memory.get('111111111111111111')).toMatchObject({ name: 'Ann', windowMs: 1400, cutoffs: 2, cleanTurns: 0 });
    const again = new PatienceLearner({ clock, baseMs: () => 800, memory });
    expect(again.windowOf('111111111111111111')).toBe(1400);
    expect(again.reset('111111111111111111')).toBe(true);
    second.close();

    const third = open();
    expect(new SqlitePatienceMemory(third.db).list()).toEqual([]);
  });

  it('a name learnt once is kept when a later write has none', () => {
    const db = open();
    const memory = new SqlitePatienceMemory(db.db);
    memory.put({
      speakerId: '1',
      name: 'Ann',
      windowMs: 1100,
      cutoffs: 1,
      cleanTurns: 0,
      longestPauseMs: 0,
      updatedAt: 1,
    });
    memory.put({
      speakerId: '1',
      name: null,
      windowMs: 1400,
      cutoffs: 2,
      cleanTurns: 0,
      longestPauseMs: 0,
      updatedAt: 2,
    });
    expect(memory.get('1')).toMatchObject({ name: 'Ann', windowMs: 1400 });
  });

  it('migrates a database written before the table existed', () => {
    const old = open(MIGRATIONS.filter((m) => m.version < 3));
    old.db.prepare('INSERT INTO calls (id, started_at, ended_at) VALUES (?, 1, 2)').run('kept');
    old.close();
    const db = open();
    expect(db.db.pragma('user_version', { simple: true })).toBe(3);
    expect(db.db.prepare('SELECT count(*) AS n FROM calls').get()).toEqual({ n: 1 });
    expect(new SqlitePatienceMemory(db.db).list()).toEqual([]);
  });
});
