// A year of daily use for `npm run bench:store` (issue #54): CALLS calls of an hour, LINES_PER_CALL
// transcript lines each (500 × 3000 ≈ 1.5 M), written into the database the way NotesStore writes
// them (same tables, triggers and index), in one transaction with prepared statements; and the same
// lines as release 0.3.5's per-call JSONL files, read by that release's own code, extracted from git
// at RELEASE_COMMIT into .bench-release/ (gitignored), for the JSONL figures beside them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../main/core/store/database.ts';

/** The commit of release 0.3.5, the last one with the notes in JSONL files. */
export const RELEASE_COMMIT = '659d8ce';
const RELEASE_FILES = [
  'main/core/api-types.ts',
  'main/core/private-dir.ts',
  'main/core/notes/notes-archive.ts',
  'main/core/notes/notes-cursor.ts',
  'main/core/notes/notes-log.ts',
];

const WORDS = [
  'the',
  'meeting',
  'moved',
  'to',
  'three',
  'remind',
  'me',
  'about',
  'groceries',
  'build',
  'failed',
  'again',
  'ship',
  'it',
  'tomorrow',
  'okay',
  'sounds',
  'good',
  'what',
  'lunch',
  'review',
  'draft',
  'installer',
  'budget',
  'launch',
  'deploy',
  'rollback',
  'thursday',
  'friday',
  'owner',
  'decided',
  'question',
];
const OWNER = '100000000000000001';

export interface SyntheticLine {
  id: string;
  ts: number;
  kind: 'input_transcript' | 'output_transcript';
  speaker: string;
  speaker_name?: string;
  text: string;
}

/** Call `c`'s lines: one every 1.2 s for an hour, the user and the model in turn; one rare word per call. */
export function* callLines(c: number, lines: number, startTs: number): Generator<SyntheticLine> {
  for (let e = 0; e < lines; e++) {
    const text =
      Array.from({ length: 14 }, (_, w) => WORDS[(c * 7 + e * 3 + w * 5) % WORDS.length]).join(' ') +
      (e === lines / 2 ? ` zanzibar${c}` : '');
    const ts = startTs + c * 86_400 + e * 1.2;
    const user = e % 2 === 0;
    yield {
      id: `${Math.floor(ts * 1000).toString(36)}-${e.toString(36)}`,
      ts,
      kind: user ? 'input_transcript' : 'output_transcript',
      speaker: user ? OWNER : 'model',
      ...(user ? { speaker_name: 'Ada' } : {}),
      text,
    };
  }
}

export const callIdOf = (c: number): string => `2025-${String(c).padStart(3, '0')}-call`;

/** Fill `<voiceUsers>/live-voice-bridge.sqlite`; returns the lines written and the time it took. */
export function fillDatabase(
  voiceUsers: string,
  calls: number,
  lines: number,
  startTs: number,
): { transcriptLines: number; fillMs: number } {
  const t0 = performance.now();
  const opened = openDatabase({ dir: voiceUsers, logger: { info() {}, warn() {}, error() {} } });
  const { db } = opened;
  const addCall = db.prepare('INSERT INTO calls (id, started_at, ended_at, events, bytes) VALUES (?, ?, ?, 0, 0)');
  const addNote = db.prepare(
    'INSERT INTO notes (id, call_id, ts, kind, speaker, speaker_name, text) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const count = db.prepare('UPDATE calls SET events = ?, bytes = ? WHERE id = ?');
  let total = 0;
  db.transaction(() => {
    for (let c = 0; c < calls; c++) {
      const id = callIdOf(c);
      addCall.run(id, startTs + c * 86_400, startTs + c * 86_400 + lines * 1.2);
      let bytes = 0;
      for (const l of callLines(c, lines, startTs)) {
        addNote.run(l.id, id, l.ts, l.kind, l.speaker, l.speaker_name ?? null, l.text);
        bytes += Buffer.byteLength(JSON.stringify({ ...l, callId: id })) + 1;
      }
      count.run(lines, bytes, id);
      total += lines;
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  opened.close();
  return { transcriptLines: total, fillMs: performance.now() - t0 };
}

/** The same lines as release 0.3.5's per-call JSONL files in `<voiceUsers>/notes/`. */
export function fillJsonl(voiceUsers: string, calls: number, lines: number, startTs: number): void {
  const dir = path.join(voiceUsers, 'notes');
  mkdirSync(dir, { recursive: true });
  for (let c = 0; c < calls; c++) {
    const id = callIdOf(c);
    const body: string[] = [];
    for (const l of callLines(c, lines, startTs)) body.push(JSON.stringify({ ...l, callId: id }));
    writeFileSync(path.join(dir, `${id}.jsonl`), body.join('\n') + '\n');
  }
}

/** Release 0.3.5's notes code from git into `<root>/.bench-release/`; the folder, or null without that history. */
export function extractRelease(root: string): string | null {
  const out = path.join(root, '.bench-release', RELEASE_COMMIT);
  try {
    for (const file of RELEASE_FILES) {
      const text = execFileSync('git', ['show', `${RELEASE_COMMIT}:${file}`], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
      writeFileSync(path.join(out, file), text);
    }
    return out;
  } catch {
    return null;
  }
}
