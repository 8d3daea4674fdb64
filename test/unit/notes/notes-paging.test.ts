// Paging GET /notes and GET /calls with `next_before` over notes (and calls) that share timestamps:
// every item comes back exactly once and in order, whatever the page size. A bare timestamp as the
// cursor skipped the rest of a tie at each page boundary (65 of 69 notes came back in the audit).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NoteEvent } from '../../../main/core/api-types.ts';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { registerNotesRoutes } from '../../../main/core/sidecar/routes/notes.ts';
import { createSidecar, type Sidecar } from '../../../main/core/sidecar/server.ts';
import { errorCode, rawRequest, type RawResponse } from '../../helpers/http.ts';
import { openNotesDb, type NotesDb } from '../../helpers/notes-db.ts';

const TOKEN = 'notes-paging-token-'.padEnd(40, 'x');
let dir: string;
let sidecar: Sidecar;
let db: NotesDb;
let get: (url: string) => Promise<RawResponse>;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lvb-notes-paging-'));
  db = openNotesDb(dir);
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger: silentLogger(),
    routes: [(app) => registerNotesRoutes(app, { archive: db.store })],
  });
  await sidecar.listen();
  const port = Number(new URL(sidecar.url).port);
  get = (url) => rawRequest({ port, path: url, headers: { authorization: `Bearer ${TOKEN}` } });
});
afterEach(async () => {
  await sidecar.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Write notes with the given timestamps; the text names the file and the order written. */
function record(file: string, stamps: number[]): string[] {
  const log = db.log();
  if (!file.startsWith('outside-')) log.startCall(file);
  const texts = stamps.map(
    (ts, i) => log.append({ kind: 'input_transcript', speaker: 'owner', text: `${file} #${i}`, ts }).text,
  );
  log.close();
  return texts;
}

/** Follow next_before back to the oldest page; the pages joined oldest first. */
async function pageAll(base: string): Promise<NoteEvent[]> {
  const pages: NoteEvent[][] = [];
  let before: string | null | undefined;
  for (let guard = 0; before !== null; guard++) {
    expect(guard).toBeLessThan(500);
    const res = await get(before === undefined ? base : `${base}&before=${encodeURIComponent(before)}`);
    expect(res.status, res.text).toBe(200);
    const page = res.json as { notes: NoteEvent[]; next_before: string | null };
    pages.unshift(page.notes);
    before = page.next_before;
  }
  return pages.flat();
}

// 69 notes in groups that share a millisecond (sizes 1…6), like streamed transcript fragments.
const tied = (start: number, count: number): number[] =>
  Array.from({ length: count }, (_, i) => start + Math.floor(Math.sqrt(2 * i)) / 1000);

describe('paging /notes over shared timestamps', () => {
  it('returns every note of a call exactly once, in order, with limit 1, 2 and 3', async () => {
    const texts = record('call-a', tied(1_000, 69));
    for (const limit of [1, 2, 3]) {
      const all = await pageAll(`/notes?call=call-a&limit=${limit}`);
      expect(
        all.map((n) => n.text),
        `limit=${limit}`,
      ).toEqual(texts);
    }
  });

  it('across calls and the outside file, ties between files included, each note exactly once', async () => {
    const a = record('call-a', tied(1_000, 30));
    const b = record('call-b', Array<number>(20).fill(2_000)); // one timestamp for the whole call
    const lastOfA = tied(1_000, 30).at(-1)!;
    const outside = record('outside-1970-01-01', [lastOfA, lastOfA, lastOfA, 2_000, 2_000, 2_000, 2_000, 2_000]);
    const written = [...a, ...b, ...outside];
    for (const limit of [1, 2, 3]) {
      const all = await pageAll(`/notes?limit=${limit}`);
      const seen = all.map((n) => n.text);
      expect(seen.length, `limit=${limit}`).toBe(written.length);
      expect(new Set(seen), `limit=${limit}`).toEqual(new Set(written));
      // In order: time never goes back, and each file's notes keep the order they were written in.
      expect(all.every((n, i) => i === 0 || all[i - 1]!.ts <= n.ts)).toBe(true);
      for (const file of [a, b, outside]) expect(seen.filter((t) => file.includes(t))).toEqual(file);
    }
    // A search pages the same way.
    const hits = await pageAll('/notes?limit=2&q=call-b');
    expect(hits.map((n) => n.text)).toEqual(b);
  });

  it('still accepts the older bare epoch seconds as `before` (strictly older), and rejects a damaged cursor', async () => {
    record('call-a', [10, 10, 11]);
    record('call-b', [11, 12]);
    const older = (await get('/notes?before=11&limit=10')).json as { notes: NoteEvent[] };
    expect(older.notes.map((n) => n.text)).toEqual(['call-a #0', 'call-a #1']);
    const page = (await get('/notes?limit=2')).json as { next_before: string };
    // `<ts>~<call id>~<row>`: the row number in the database breaks the tie at 11 s.
    expect(page.next_before).toMatch(/^11~call-b~\d+$/);
    const rest = (await get(`/notes?before=${page.next_before}&limit=10`)).json as { notes: NoteEvent[] };
    expect(rest.notes.map((n) => n.text)).toEqual(['call-a #0', 'call-a #1', 'call-a #2']);
    for (const bad of ['soon', '11~call-b', '11~../x~0', '11~call-b~-1', 'x~call-b~0', '11~call-b~0~1', '']) {
      const res = await get(`/notes?before=${encodeURIComponent(bad)}`);
      expect([res.status, errorCode(res)], bad).toEqual([400, 'bad_before']);
    }
  });
});

describe('paging /calls over shared end times', () => {
  it('lists every call exactly once with limit 1 and 2, and accepts a bare number', async () => {
    for (const id of ['call-c', 'call-d', 'call-e', 'call-f']) record(id, [5_000]);
    record('call-g', [4_000]);
    for (const limit of [1, 2]) {
      const ids: string[] = [];
      let before: string | null | undefined;
      for (let guard = 0; before !== null && guard < 20; guard++) {
        const res = await get(
          `/calls?limit=${limit}${before === undefined ? '' : `&before=${encodeURIComponent(before)}`}`,
        );
        const page = res.json as { calls: { id: string }[]; next_before: string | null };
        ids.push(...page.calls.map((c) => c.id));
        before = page.next_before;
      }
      expect(ids, `limit=${limit}`).toEqual(['call-f', 'call-e', 'call-d', 'call-c', 'call-g']);
    }
    expect((await get('/calls?before=5000')).json).toMatchObject({ calls: [{ id: 'call-g' }], next_before: null });
  });
});
