// Paging cursors for GET /notes and GET /calls. Events often share a timestamp (streamed transcript
// fragments land in the same millisecond), so a bare timestamp cannot say where a page ended: a
// strict `ts < before` skipped the rest of a tie, `<=` would repeat it. A cursor therefore carries a
// tie-breaker that makes the order total: `<ts>~<call id>~<row>` for a note (its row number in the
// database, which only grows) and `<ts>~<call id>` for a call. `~` is URL-safe and never part of a call id.
// A bare number (the older, documented form) is still accepted and means "strictly older than".

/** Where a note sits in the page order: its time, its call id (`file`, as cursors named it) and its row. */
export interface NotePosition {
  ts: number;
  file: string;
  line: number;
}

/** A page boundary: a full position, or only a time (the older numeric form). */
export interface NotesCursor {
  ts: number;
  file?: string;
  line?: number;
}

/** A /calls page boundary: a call's last-event time and, unless given as a bare number, its id. */
export interface CallsCursor {
  ts: number;
  id?: string;
}

const SEP = '~';

/** Epoch seconds as the route has always accepted them: any finite number `Number()` reads. */
function parseTs(raw: string): number | null {
  const ts = Number(raw);
  return raw.trim() !== '' && Number.isFinite(ts) ? ts : null;
}

export function formatNotesCursor(p: NotePosition): string {
  return [p.ts, p.file, p.line].join(SEP);
}

/** A `before` value: a cursor from `next_before`, or epoch seconds; null when it is neither. */
export function parseNotesCursor(raw: string, isCallId: (id: string) => boolean): NotesCursor | null {
  const parts = raw.split(SEP);
  const ts = parseTs(parts[0] ?? '');
  if (ts === null) return null;
  if (parts.length === 1) return { ts };
  const [, file = '', line = ''] = parts;
  if (parts.length !== 3 || !isCallId(file) || !/^\d{1,9}$/.test(line)) return null;
  return { ts, file, line: Number(line) };
}

/** True when the call comes after the cursor in /calls order (newest last event first, then id descending). */
export function isAfterCallsCursor(call: { ended_at: number; id: string }, c: CallsCursor): boolean {
  return call.ended_at < c.ts || (c.id !== undefined && call.ended_at === c.ts && call.id < c.id);
}

export function formatCallsCursor(call: { ended_at: number; id: string }): string {
  return [call.ended_at, call.id].join(SEP);
}

export function parseCallsCursor(raw: string, isCallId: (id: string) => boolean): CallsCursor | null {
  const parts = raw.split(SEP);
  const ts = parseTs(parts[0] ?? '');
  if (ts === null) return null;
  if (parts.length === 1) return { ts };
  return parts.length === 2 && isCallId(parts[1]!) ? { ts, id: parts[1] } : null;
}
