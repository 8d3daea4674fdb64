// One fresh process measured by `npm run bench:store` for the year-of-calls rows: argv `database
// <voiceUsers>` opens the database as the core does (integrity/header check, migrations) and
// searches it with the product's FTS5 search; argv `jsonl <voiceUsers> <release folder>` does the same
// with release 0.3.5's own NotesArchive / NotesLog over its JSONL files. Prints one JSON line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [kind, voiceUsers, release] = process.argv.slice(2);
export const QUERIES = ['zanzibar42', 'zanzibar417', 'rollback thursday', 'installer budget', 'groceries', 'decided'];
const SEARCHES = kind === 'database' ? 40 : 2; // per query; the JSONL reader reads every file each time
const INSERTS = 500;

function p95(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
}

async function database(): Promise<object> {
  const { openDatabase } = await import('../../main/core/store/database.ts');
  const { NotesStore } = await import('../../main/core/notes/notes-store.ts');
  const { searchNotes } = await import('../../main/core/notes/notes-search.ts');
  const t0 = performance.now();
  const opened = openDatabase({ dir: voiceUsers!, logger: { info() {}, warn() {}, error() {} } });
  const store = new NotesStore(opened.db);
  store.calls();
  const startupMs = performance.now() - t0;
  const searches: number[] = [];
  let hits = 0;
  for (let i = 0; i < SEARCHES; i++) {
    for (const q of QUERIES) {
      const s = performance.now();
      hits += searchNotes(opened.db, q, { limit: 20 }).length;
      searches.push(performance.now() - s);
    }
  }
  const inserts: number[] = [];
  for (let i = 0; i < INSERTS; i++) {
    const s = performance.now();
    store.insert({
      id: `bench-${i}`,
      ts: 2_000_000_000 + i,
      kind: 'input_transcript',
      speaker: '100000000000000001',
      speaker_name: 'Ada',
      text: 'one more line said in the call in progress',
      callId: 'bench-live-call',
    });
    inserts.push(performance.now() - s);
  }
  opened.close();
  return { startupMs, searchP95Ms: p95(searches), searchMaxMs: Math.max(...searches), insertP95Ms: p95(inserts), hits };
}

async function jsonl(): Promise<object> {
  const base = pathToFileURL(path.join(release!, 'main/core/notes/')).href;
  const { NotesArchive } = (await import(`${base}notes-archive.ts`)) as {
    NotesArchive: new (dir: string) => { calls(): unknown[]; query(q: { limit: number; q?: string }): unknown };
  };
  const { NotesLog } = (await import(`${base}notes-log.ts`)) as {
    NotesLog: new (o: { dir: string }) => { startCall(id: string): string; append(e: object): unknown; close(): void };
  };
  const t0 = performance.now();
  const archive = new NotesArchive(path.join(voiceUsers!, 'notes'));
  archive.calls(); // what the release did before its first /calls answer: read every file once
  const startupMs = performance.now() - t0;
  const searches: number[] = [];
  for (let i = 0; i < SEARCHES; i++) {
    for (const q of QUERIES) {
      const s = performance.now();
      archive.query({ limit: 20, q });
      searches.push(performance.now() - s);
    }
  }
  const scratch = mkdtempSync(path.join(tmpdir(), 'lvb-bench-jsonl-insert-'));
  const log = new NotesLog({ dir: scratch });
  log.startCall('bench-live-call');
  const inserts: number[] = [];
  for (let i = 0; i < INSERTS; i++) {
    const s = performance.now();
    log.append({
      kind: 'input_transcript',
      speaker: '100000000000000001',
      text: 'one more line said in the call in progress',
    });
    inserts.push(performance.now() - s);
  }
  log.close();
  rmSync(scratch, { recursive: true, force: true });
  return { startupMs, searchP95Ms: p95(searches), searchMaxMs: Math.max(...searches), insertP95Ms: p95(inserts) };
}

const result = kind === 'database' ? await database() : await jsonl();
process.stdout.write(JSON.stringify(result) + '\n');
