// Names, not ids, wherever a person appears: each note is named when written (database, /notes, MCP
// resource), the dashboard's filter, Copy and the hand-off show the name; the id stays in `speaker`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { buildHandoff } from '../../../main/core/tools/helpers/handoff.ts';
import { openNotesDb } from '../../helpers/notes-db.ts';
import { filterNotes, notesAsText } from '../../../renderer/format.ts';

const OLGA = '130000000000000001';
const GUS = '130000000000000002';
const NAMES: Record<string, string> = { [OLGA]: 'Olga', [GUS]: 'Gus' };

function log() {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-names-'));
  const db = openNotesDb(dir);
  const notes = db.log({ now: () => 1_700_000_000_000 });
  notes.nameSpeakers((id) => NAMES[id]);
  notes.startCall('call-names');
  return { notes, stored: () => db.store.read('call-names') ?? [] };
}

it('names each note by display name when written; ids stay in the machine field', () => {
  const { notes, stored } = log();
  notes.append({ kind: 'input_transcript', text: 'book the room', speaker: GUS });
  notes.append({ kind: 'input_transcript', text: '(overlapping) no wait', speaker: `${GUS},${OLGA}` });
  notes.append({ kind: 'output_transcript', text: 'Done.', speaker: 'model' });
  const lines = stored();
  expect(lines[0]).toMatchObject({ speaker: GUS, speaker_name: 'Gus' });
  expect(lines[1]).toMatchObject({ speaker: `${GUS},${OLGA}`, speaker_name: 'Gus and Olga' });
  expect(lines[2]).not.toHaveProperty('speaker_name');

  const recent = notes.recent(10);
  const copied = notesAsText(recent);
  expect(copied).toContain('Gus: book the room');
  expect(copied).toContain('Gus and Olga: (overlapping) no wait');
  expect(copied).not.toContain(GUS);
  expect(filterNotes(recent, 'gus', 'all').map((n) => n.text)).toEqual(['book the room', '(overlapping) no wait']);
  expect(filterNotes(recent, 'olga', 'all')).toHaveLength(1);
});

it('the hand-off excerpt names the caller, not the id', () => {
  const { notes } = log();
  notes.append({ kind: 'input_transcript', text: 'Please ship the release notes by Friday.', speaker: GUS });
  const handoff = buildHandoff({ notes: notes.recent(10) });
  expect(handoff.markdown).toContain('caller Gus');
  expect(handoff.markdown).not.toContain(GUS);
});
