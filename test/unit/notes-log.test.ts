import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { SidecarEvent } from '../../main/core/api-types.ts';
import { EventHub } from '../../main/core/event-hub.ts';
import { NotesLog } from '../../main/core/notes/notes-log.ts';

it('appends each event to the per-call JSONL file at once, keeps a bounded ring, and publishes it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-notes-'));
  const hub = new EventHub();
  const seen: SidecarEvent[] = [];
  hub.subscribe((e) => seen.push(e));
  const log = new NotesLog({ dir, hub, ringSize: 3, now: () => 1_700_000_000_500 });
  const file = log.startCall('call-1');
  log.append({ kind: 'input_transcript', text: 'hello there', speaker: '123456789012345678' });
  // Written synchronously: readable before anything else happens (nothing lost on a crash).
  const first = JSON.parse(readFileSync(file, 'utf8').trim()) as Record<string, unknown>;
  expect(first).toMatchObject({ ts: 1_700_000_000.5, kind: 'input_transcript', text: 'hello there', speaker: '123456789012345678', callId: 'call-1' });
  for (let i = 0; i < 4; i++) log.append({ kind: 'note', text: `n${i}` });
  expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(5);
  expect(log.recent(10).map((n) => n.text)).toEqual(['n1', 'n2', 'n3']);
  expect(new Set(log.recent(10).map((n) => n.id)).size).toBe(3);
  expect(seen.filter((e) => e.type === 'note')).toHaveLength(5);
  log.endCall();
  log.append({ kind: 'note', text: 'between calls' });
  expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(5);
});
