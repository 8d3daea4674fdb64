// Today's usage ledger in the database (docs/storage.md): each call's estimated cost and model time
// by local day (`usage_calls`), and whether the day's cap warning was given (`usage_days`), so a
// restart neither forgets today's spending nor counts a call twice. Earlier days stay until
// retention deletes them. A home written by release 0.3.5 kept the day in `usage-daily.json`:
// imported once (recorded in `imports`), the file kept as a backup.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { SqliteDatabase } from '../store/database.ts';

export const LEGACY_LEDGER_FILE = 'usage-daily.json';
export const LEDGER_IMPORT_SOURCE = 'usage-daily-json';

export const ledgerSchema = z.object({
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  /** Estimated USD by call id. */
  calls: z.record(z.string(), z.number().finite().min(0)),
  /** Connected and speech seconds by call id. */
  time: z
    .record(z.string(), z.object({ connected: z.number().finite().min(0), speech: z.number().finite().min(0) }))
    .default({}),
  warned: z.boolean().default(false),
});
export type Ledger = z.infer<typeof ledgerSchema>;

export interface UsageLedger {
  /** The day's ledger (empty when nothing was recorded that day). */
  load(day: string): Ledger;
  save(ledger: Ledger): void;
}

interface CallRow {
  call_id: string;
  cost_usd: number;
  connected_seconds: number;
  speech_seconds: number;
}

export class SqlUsageLedger implements UsageLedger {
  readonly #db: SqliteDatabase;

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  load(day: string): Ledger {
    const rows = this.#db
      .prepare('SELECT call_id, cost_usd, connected_seconds, speech_seconds FROM usage_calls WHERE day = ?')
      .all(day) as CallRow[];
    const warned =
      (this.#db.prepare('SELECT warned FROM usage_days WHERE day = ?').get(day) as { warned: number } | undefined)
        ?.warned === 1;
    const ledger: Ledger = { day, calls: {}, time: {}, warned };
    for (const r of rows) {
      ledger.calls[r.call_id] = r.cost_usd;
      ledger.time[r.call_id] = { connected: r.connected_seconds, speech: r.speech_seconds };
    }
    return ledger;
  }

  save(ledger: Ledger): void {
    const day = this.#db.prepare(
      'INSERT INTO usage_days (day, warned) VALUES (?, ?) ON CONFLICT (day) DO UPDATE SET warned = excluded.warned',
    );
    const call = this.#db.prepare(
      `INSERT INTO usage_calls (day, call_id, cost_usd, connected_seconds, speech_seconds) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (day, call_id) DO UPDATE SET cost_usd = excluded.cost_usd, connected_seconds = excluded.connected_seconds, speech_seconds = excluded.speech_seconds`,
    );
    this.#db.transaction(() => {
      day.run(ledger.day, ledger.warned ? 1 : 0);
      for (const [id, usd] of Object.entries(ledger.calls)) {
        const t = ledger.time[id];
        call.run(ledger.day, id, usd, t?.connected ?? 0, t?.speech ?? 0);
      }
    })();
  }
}

/**
 * Import a release-0.3.5 `usage-daily.json` once: its day's calls, whatever the day. Returns the
 * number of calls imported, or null when it ran before or there is no readable file.
 */
export function importLegacyLedger(
  db: SqliteDatabase,
  file: string,
  nowMs = Date.now(),
): { day: string; calls: number } | null {
  if (db.prepare('SELECT 1 FROM imports WHERE source = ?').get(LEDGER_IMPORT_SOURCE)) return null;
  let ledger: Ledger | null = null;
  try {
    const parsed = ledgerSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (parsed.success) ledger = parsed.data;
  } catch {
    ledger = null; // no file, or not JSON: nothing to import
  }
  const counts = ledger ? { day: ledger.day, calls: Object.keys(ledger.calls).length } : null;
  db.transaction(() => {
    if (ledger) new SqlUsageLedger(db).save(ledger);
    db.prepare('INSERT INTO imports (source, imported_at, counts) VALUES (?, ?, ?)').run(
      LEDGER_IMPORT_SOURCE,
      nowMs / 1000,
      JSON.stringify(counts ?? {}),
    );
  })();
  return counts;
}
