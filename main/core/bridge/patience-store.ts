// The learnt patience of each speaker in the core's database (store/migrations/003-speaker-patience.ts):
// the learner's PatienceMemory, read when a speaker is first heard in a call and written when their
// window, cut-offs or clean turns change (a few rows a call, never per audio frame).
import type { SqliteDatabase } from '../store/database.ts';
import type { PatienceMemory, SpeakerPatience } from './patience-learner.ts';

interface Row {
  speaker_id: string;
  name: string | null;
  window_ms: number;
  cutoffs: number;
  clean_turns: number;
  longest_pause_ms: number;
  updated_at: number;
}

function fromRow(row: Row): SpeakerPatience {
  return {
    speakerId: row.speaker_id,
    name: row.name,
    windowMs: row.window_ms,
    cutoffs: row.cutoffs,
    cleanTurns: row.clean_turns,
    longestPauseMs: row.longest_pause_ms,
    updatedAt: row.updated_at,
  };
}

export class SqlitePatienceMemory implements PatienceMemory {
  readonly #get;
  readonly #put;
  readonly #delete;
  readonly #list;

  constructor(db: SqliteDatabase) {
    this.#get = db.prepare<[string], Row>('SELECT * FROM speaker_patience WHERE speaker_id = ?');
    this.#put = db.prepare<[Row]>(
      `INSERT INTO speaker_patience (speaker_id, name, window_ms, cutoffs, clean_turns, longest_pause_ms, updated_at)
       VALUES (@speaker_id, @name, @window_ms, @cutoffs, @clean_turns, @longest_pause_ms, @updated_at)
       ON CONFLICT (speaker_id) DO UPDATE SET name = coalesce(excluded.name, name), window_ms = excluded.window_ms, cutoffs = excluded.cutoffs,
         clean_turns = excluded.clean_turns, longest_pause_ms = excluded.longest_pause_ms, updated_at = excluded.updated_at`,
    );
    this.#delete = db.prepare<[string]>('DELETE FROM speaker_patience WHERE speaker_id = ?');
    this.#list = db.prepare<[], Row>('SELECT * FROM speaker_patience ORDER BY updated_at DESC, speaker_id');
  }

  get(speakerId: string): SpeakerPatience | undefined {
    const row = this.#get.get(speakerId);
    return row && fromRow(row);
  }

  put(record: SpeakerPatience): void {
    this.#put.run({
      speaker_id: record.speakerId,
      name: record.name,
      window_ms: Math.round(record.windowMs),
      cutoffs: record.cutoffs,
      clean_turns: record.cleanTurns,
      longest_pause_ms: Math.round(record.longestPauseMs),
      updated_at: record.updatedAt,
    });
  }

  delete(speakerId: string): boolean {
    return this.#delete.run(speakerId).changes > 0;
  }

  list(): SpeakerPatience[] {
    return this.#list.all().map(fromRow);
  }
}
