// One schedule entry as stored: the whole record (the `record` column of the database's `schedule`
// table, migration 002), and the schema every record read back is validated with — from the
// database, and from a release-0.3.5 `notifications-schedule.jsonl` imported once (schedule-import.ts).
import path from 'node:path';
import { z } from 'zod';
import { NOTIFY_MODES, SCHEDULE_STATES, type ScheduledNotification } from '../api-types.ts';
import { storedRepeatSchema } from './repeat.ts';
import { CodedError } from '../contracts/coded-error.ts';

export const SCHEDULE_FILE_NAME = 'notifications-schedule.jsonl';

/**
 * Release 0.3.5's schedule file inside an agent home: `<agentHome>/voice-users/notifications-schedule.jsonl`.
 * The scheduler is still given this path: its folder is where the database lives, and the file, when
 * there, is imported once and kept as a backup.
 */
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
  /** Times a delivery of it was interrupted (its process stopped mid-send); bounds re-sends (claim-owner.ts). */
  interrupted: z.number().int().min(1).optional(),
  /**
   * Epoch seconds until which the receiver drops a repeat of this entry (a Discord nonce, an
   * honoured Idempotency-Key), counted from its first send: a claim interrupted before then is sent
   * again after a restart instead of written off (claim-owner.ts).
   */
  resend_until: z.number().optional(),
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

/** When the entry is next due: a retry time if one is set, else its fire time. */
export const dueAt = (e: StoredNotification): number => e.next_attempt_at ?? e.fire_at_epoch;

/**
 * An idempotency key for the entry a change creates (POST /schedule's Idempotency-Key): written in
 * the same row as the entry, in the same transaction, so the key is exactly as durable as the entry,
 * across restarts and processes.
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
    super(
      'idempotent_replay',
      sameRequest
        ? `idempotency key already created ${entry.id}`
        : `idempotency key already used for a different request (${entry.id})`,
    );
    this.entry = entry;
    this.sameRequest = sameRequest;
  }
}
