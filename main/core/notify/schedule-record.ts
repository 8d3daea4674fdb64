// The schedule file's format: one JSON record per line (the whole record of an entry as it is
// now), the last line for an id winning. The schema every line read back is validated with, and the
// readers and the writer of that text. How the file is appended to, locked and compacted is the
// store's (schedule-store.ts); what is asked of the records in memory is the index's
// (schedule-index.ts).
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { NOTIFY_MODES, SCHEDULE_STATES, type ScheduledNotification } from '../api-types.ts';
import { storedRepeatSchema } from './repeat.ts';
import { CodedError } from '../contracts/coded-error.ts';

export const SCHEDULE_FILE_NAME = 'notifications-schedule.jsonl';

/** The schedule file inside an agent home: `<agentHome>/voice-users/notifications-schedule.jsonl`. */
export function scheduleFilePath(agentHome: string): string {
  return path.join(agentHome, 'voice-users', SCHEDULE_FILE_NAME);
}

const claimSchema = z.object({
  /** `<pid>:<scheduler instance>` of the process delivering the entry. */
  owner: z.string(),
  pid: z.number().int(),
  /** Epoch seconds after which an unfinished delivery is considered abandoned. */
  lease_until: z.number(),
});

export const storedNotificationSchema = z.object({
  id: z.string().min(1),
  text: z.string(),
  mode: z.enum(NOTIFY_MODES),
  title: z.string().optional(),
  source: z.string().optional(),
  delay_seconds: z.number(),
  fire_at_epoch: z.number(),
  created_at: z.number(),
  state: z.enum(SCHEDULE_STATES),
  attempts: z.number().int().min(0),
  last_error: z.string().optional(),
  delivered_at: z.number().optional(),
  /** Seconds past fire_at_epoch at which a late entry was delivered (only when beyond the tolerance). */
  late_by_seconds: z.number().optional(),
  /** Epoch seconds of the last state change (pruning clock). */
  updated_at: z.number().optional(),
  /** After an attempt that sent nothing: when the next one is due (fire_at_epoch stays the original time). */
  next_attempt_at: z.number().optional(),
  claim: claimSchema.optional(),
  /** Repeating reminders only: the series' rule (each occurrence is its own entry; see repeat.ts). */
  repeat: storedRepeatSchema.optional(),
  /** The client's `Idempotency-Key` of the POST that created this entry (never shown by the API). */
  idempotency: z
    .object({
      key: z.string(),
      /** sha256 of the request body: a different body under the same key is refused. */
      request_hash: z.string(),
      /** Epoch seconds until which a repeat of the key answers with this entry. */
      until: z.number(),
      /** The entry the key created (a series' later occurrences copy the record, not the key). */
      entry: z.string(),
    })
    .optional(),
});

export type StoredNotification = z.infer<typeof storedNotificationSchema> & ScheduledNotification;

export interface ReadResult {
  entries: StoredNotification[];
  /** Lines that were ignored (torn tail or invalid); the next write drops them from the file. */
  damaged: number;
}

/** Parse file text (last line per id wins). Never throws: damage is counted and returned separately. */
export function parseScheduleText(text: string): ReadResult & { rejectedLines: string[]; lines: number } {
  const lines = text.split('\n');
  const endsClean = text === '' || text.endsWith('\n');
  const byId = new Map<string, StoredNotification>();
  const rejectedLines: string[] = [];
  let damaged = 0;
  let valid = 0;
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const isTail = index === lines.length - 1 && !endsClean;
    const parsed = parseScheduleLine(line);
    if (parsed) {
      valid++;
      byId.delete(parsed.id); // re-insert so order follows the last occurrence
      byId.set(parsed.id, parsed);
      return;
    }
    damaged++;
    // A torn tail is an unfinished write: nothing to keep. Anything else is set aside for a human.
    if (!isTail) rejectedLines.push(line);
  });
  return { entries: [...byId.values()], damaged, rejectedLines, lines: valid };
}

/** One line of the file as a record, or null when it is not valid JSON or not a valid record. */
export function parseScheduleLine(line: string): StoredNotification | null {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return null;
  }
  const parsed = storedNotificationSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/**
 * Read the file line by line in 1 MiB chunks (no whole-file string, no array of all lines), so
 * loading 100,000 entries keeps its peak memory small. Same rules as parseScheduleText.
 */
export function readScheduleFile(file: string): { entries: Map<string, StoredNotification>; damaged: number; rejectedLines: string[]; lines: number } {
  const entries = new Map<string, StoredNotification>();
  const rejectedLines: string[] = [];
  let damaged = 0;
  let lines = 0;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries, damaged, rejectedLines, lines };
    throw err;
  }
  const handle = (line: string): void => {
    if (line.trim() === '') return;
    const record = parseScheduleLine(line);
    if (record) {
      lines++;
      entries.delete(record.id); // re-insert so order follows the last occurrence
      entries.set(record.id, record);
    } else {
      damaged++;
      rejectedLines.push(line);
    }
  };
  try {
    const decoder = new StringDecoder('utf8');
    const buffer = Buffer.allocUnsafe(1 << 20);
    let carry = '';
    for (let position = 0; ; ) {
      const n = readSync(fd, buffer, 0, buffer.length, position);
      if (n === 0) break;
      position += n;
      const chunk = carry + decoder.write(buffer.subarray(0, n));
      let start = 0;
      for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
        handle(chunk.slice(start, nl));
        start = nl + 1;
      }
      carry = chunk.slice(start);
    }
    carry += decoder.end();
    if (carry.trim() !== '') damaged++; // a torn tail: an unfinished write, nothing to keep
  } finally {
    closeSync(fd);
  }
  return { entries, damaged, rejectedLines, lines };
}

export function serializeSchedule(entries: readonly StoredNotification[]): string {
  return entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : '');
}

/** When the entry is next due: a retry time if one is set, else its fire time. */
export const dueAt = (e: StoredNotification): number => e.next_attempt_at ?? e.fire_at_epoch;

/**
 * An idempotency key for the entry a change creates (POST /schedule's Idempotency-Key): written in
 * the same appended line as the entry, so the key is exactly as durable as the entry, across
 * restarts and processes.
 */
export interface IdempotencyKey {
  key: string;
  request_hash: string;
  /** Epoch seconds: now, and how long the key is remembered. */
  now: number;
  ttlSeconds: number;
}

/** A creation refused because the key already created `entry` (same body) or was used for another body. */
export class IdempotentReplay extends CodedError<'idempotent_replay'> {
  readonly entry: StoredNotification;
  readonly sameRequest: boolean;
  constructor(entry: StoredNotification, sameRequest: boolean) {
    super('idempotent_replay', sameRequest ? `idempotency key already created ${entry.id}` : `idempotency key already used for a different request (${entry.id})`);
    this.entry = entry;
    this.sameRequest = sameRequest;
  }
}
