// A home written by release 0.3.5 (test/fixtures/homes/release-0.3.5, written by that release's own
// NotesLog and UsageMonitor) starts on the database: its notes and today's ledger are imported once,
// in one transaction, with the counts logged; the old files stay; a second start imports nothing; a
// file that cannot be read leaves the database as it was (all or nothing).
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { notesCapability } from '../../../main/core/capabilities/notes.ts';
import type { Config } from '../../../main/core/config/index.ts';
import { EventHub } from '../../../main/core/event-hub.ts';
import { searchNotes } from '../../../main/core/notes/notes-search.ts';
import { openDatabase, type OpenedDatabase } from '../../../main/core/store/database.ts';
import { SqlUsageLedger } from '../../../main/core/usage/ledger-store.ts';
import { captureLogger } from '../../integration/gemini/helpers.ts';

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/homes/release-0.3.5');
let home: string;
let voiceUsers: string;
const opened: OpenedDatabase[] = [];

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'lvb-legacy-'));
  cpSync(FIXTURE, home, { recursive: true });
  voiceUsers = path.join(home, 'voice-users');
});
afterEach(() => {
  for (const d of opened.splice(0)) if (d.db.open) d.close();
  rmSync(home, { recursive: true, force: true });
});

async function startNotes() {
  const { logger, lines } = captureLogger();
  const database = openDatabase({ dir: voiceUsers, logger });
  opened.push(database);
  const config = { paths: { agentHome: home, voiceUsers } } as Config;
  const running = await notesCapability.start({ config, logger, hub: new EventHub(), database });
  return { database, archive: running.api.archive, lines, stop: () => running.stop({ left: () => 1000 }) };
}

it('imports the notes files and the ledger once, logs the counts, keeps the files', async () => {
  const first = await startNotes();
  const log = first.lines.map(
    (l) => JSON.parse(l) as { msg: string; notes?: number; files?: number; skippedLines?: number; calls?: number },
  );
  expect(log.find((l) => l.msg.startsWith('imported 8 notes of 3 calls'))).toMatchObject({
    files: 3,
    notes: 8,
    skippedLines: 1,
  });
  expect(log.find((l) => l.msg.startsWith('imported the usage ledger of 2026-11-21'))).toMatchObject({ calls: 1 });

  const calls = first.archive.calls();
  expect(calls.map((c) => [c.id, c.events, c.outside_call])).toEqual([
    ['call-2026-11-21-b', 3, false],
    ['outside-2026-11-20', 1, true],
    ['call-2026-11-20-a', 4, false],
  ]);
  const b = first.archive.read('call-2026-11-21-b')!;
  expect(b.map((n) => [n.speaker_name, n.text])).toEqual([
    ['Ada', 'What did we decide about the launch?'],
    [undefined, 'You moved it to Thursday; Grace owns the rollback plan.'],
    ['Ada and Grace', 'Thanks, and the budget review is Friday.'],
  ]);
  // The outside day's notification carries no call id, as the release served it.
  expect(first.archive.read('outside-2026-11-20')![0]).not.toHaveProperty('callId');
  const hits = searchNotes(first.database.db, 'rollback');
  expect(hits.map((h) => [h.call_id, h.speaker])).toEqual([
    ['call-2026-11-21-b', 'model'],
    ['call-2026-11-20-a', 'Grace'],
  ]);
  expect(new SqlUsageLedger(first.database.db).load('2026-11-21')).toEqual({
    day: '2026-11-21',
    calls: { 'call-2026-11-21-b': 2500 },
    time: { 'call-2026-11-21-b': { connected: 61.2, speech: 20.4 } },
    warned: false,
  });
  expect(readdirSync(path.join(voiceUsers, 'notes')).sort()).toEqual([
    'call-2026-11-20-a.jsonl',
    'call-2026-11-21-b.jsonl',
    'outside-2026-11-20.jsonl',
  ]);
  first.stop();
  first.database.close();

  const second = await startNotes();
  expect(second.lines.filter((l) => l.includes('imported'))).toEqual([]);
  expect(second.database.db.prepare('SELECT count(*) AS n FROM notes').get()).toEqual({ n: 8 });
});

it('imports nothing when one file cannot be read, and tries again at the next start', async () => {
  mkdirSync(path.join(voiceUsers, 'notes', 'unreadable.jsonl')); // a folder: reading it fails
  await expect(startNotes()).rejects.toThrow(/EISDIR/);
  const db = opened[0]!.db;
  expect(
    db
      .prepare(
        'SELECT (SELECT count(*) FROM notes) AS notes, (SELECT count(*) FROM calls) AS calls, (SELECT count(*) FROM imports) AS imports',
      )
      .get(),
  ).toEqual({ notes: 0, calls: 0, imports: 0 });
  opened[0]!.close();
  rmSync(path.join(voiceUsers, 'notes', 'unreadable.jsonl'), { recursive: true });
  const again = await startNotes();
  expect(again.archive.calls()).toHaveLength(3);
});
