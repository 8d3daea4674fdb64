import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { SidecarEvent } from '../../main/core/api-types.ts';
import { EventHub } from '../../main/core/event-hub.ts';
import { openNotesDb } from '../helpers/notes-db.ts';

it('writes each event to the database at once, keeps a bounded ring, and publishes it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-notes-'));
  const db = openNotesDb(dir);
  // Another connection to the same file: what is committed, not what one connection caches.
  const reader = openNotesDb(dir);
  const hub = new EventHub();
  const seen: SidecarEvent[] = [];
  hub.subscribe((e) => seen.push(e));
  const log = db.log({ hub, ringSize: 3, now: () => 1_700_000_000_500 });
  log.startCall('call-1');
  log.append({ kind: 'input_transcript', text: 'hello there', speaker: '123456789012345678' });
  // Written synchronously: readable before anything else happens (nothing lost on a crash).
  expect(reader.store.read('call-1')).toEqual([
    expect.objectContaining({
      ts: 1_700_000_000.5,
      kind: 'input_transcript',
      text: 'hello there',
      speaker: '123456789012345678',
      callId: 'call-1',
    }),
  ]);
  for (let i = 0; i < 4; i++) log.append({ kind: 'note', text: `n${i}` });
  expect(reader.store.read('call-1')).toHaveLength(5);
  expect(log.recent(10).map((n) => n.text)).toEqual(['n1', 'n2', 'n3']);
  expect(new Set(log.recent(10).map((n) => n.id)).size).toBe(3);
  expect(seen.filter((e) => e.type === 'note')).toHaveLength(5);
  log.endCall();
  log.append({ kind: 'note', text: 'between calls' });
  expect(reader.store.read('call-1')).toHaveLength(5);
  expect(reader.store.calls().map((c) => [c.id, c.events, c.outside_call])).toEqual([
    ['outside-2023-11-14', 1, true],
    ['call-1', 5, false],
  ]);
  reader.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

it('never writes the words of a speaker who opted out, alone or talking over someone', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-notes-optout-'));
  const db = openNotesDb(dir);
  const log = db.log();
  log.excludeSpeakers((id) => id === '200000000000000002');
  log.startCall('call-1');
  log.append({ kind: 'input_transcript', text: 'keep this', speaker: '100000000000000001' });
  log.append({ kind: 'input_transcript', text: 'secret plans', speaker: '200000000000000002' });
  log.append({
    kind: 'input_transcript',
    text: 'overlapping secret',
    speaker: '100000000000000001,200000000000000002',
  });
  expect(db.store.read('call-1')!.map((n) => n.text)).toEqual(['keep this']);
  expect(log.recent(10).map((n) => n.text)).toEqual(['keep this']);
  expect(db.database.db.prepare("SELECT count(*) AS n FROM notes_fts WHERE notes_fts MATCH 'secret'").get()).toEqual({
    n: 0,
  });
  db.close();
  rmSync(dir, { recursive: true, force: true });
});
