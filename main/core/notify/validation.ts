// Input rules shared by the tools, the sidecar routes and the CLI, written once in zod. Each field
// maps to a stable error code so a client sees `empty_text` or `bad_delay`, not a zod dump.
import { z } from 'zod';
import { NOTIFY_MODES, type NotifyMode, type NotifyRequest } from '../api-types.ts';
import { listKeys, MAX_LISTED_KEYS } from '../input-errors.ts';
import { NotifyInputError } from './types.ts';

/** Longest notification text accepted. Discord posts are cut to 2000 characters at formatting time. */
export const MAX_TEXT_CHARS = 8000;
export const MAX_TITLE_CHARS = 200;
export const MAX_SOURCE_CHARS = 100;
/** Scheduling bounds: now up to 30 days ahead. */
export const MAX_DELAY_SECONDS = 30 * 24 * 3600;

export const notifyTextSchema = z
  .string()
  .trim()
  .min(1, 'text is required')
  .max(MAX_TEXT_CHARS, `text is longer than ${MAX_TEXT_CHARS} characters`);
export const notifyModeSchema = z.enum(NOTIFY_MODES, { error: `mode must be one of ${NOTIFY_MODES.join(', ')}` });
export const titleSchema = z.string().trim().max(MAX_TITLE_CHARS);
export const sourceSchema = z.string().trim().max(MAX_SOURCE_CHARS);
export const delaySchema = z
  .number({ error: 'delay_seconds must be a number' })
  .finite('delay_seconds must be finite')
  .min(0, 'delay_seconds must not be negative')
  .max(MAX_DELAY_SECONDS, `delay_seconds must be at most ${MAX_DELAY_SECONDS} (30 days)`);

// Strict: an unknown field is refused (400 `unknown_field`), never silently dropped — a dropped
// `delay_seconds` on /notify would deliver "later" NOW, a dropped `tz` would read a rule in the
// wrong timezone.
export const notifyRequestSchema = z.strictObject({
  text: notifyTextSchema,
  mode: notifyModeSchema.default('auto'),
  title: titleSchema.optional(),
  source: sourceSchema.optional(),
  urgent: z.boolean().optional(),
});

export const scheduleRequestSchema = z.strictObject({
  text: notifyTextSchema,
  /** Required unless `repeat` or `fire_at_epoch` is given (then the first occurrence is the rule's next time). */
  delay_seconds: delaySchema.optional(),
  /**
   * Instead of `delay_seconds`: the moment itself, epoch seconds (the CLI's `--at 09:00` sends it,
   * so a reminder fires at the second typed, not at now + a rounded delay). Bounds in schedule-series.ts.
   */
  fire_at_epoch: z
    .number({ error: 'fire_at_epoch must be a number (epoch seconds)' })
    .finite('fire_at_epoch must be finite')
    .optional(),
  mode: notifyModeSchema.default('auto'),
  title: titleSchema.optional(),
  source: sourceSchema.optional(),
  /** `daily`, `weekdays` or a 5-field cron expression (see repeat.ts); resolved in `timezone`. */
  repeat: z.string({ error: 'repeat must be text' }).trim().min(1, 'repeat must not be empty').max(200).optional(),
  /** IANA timezone of the repeat rule. Default: this machine's timezone. */
  timezone: z.string({ error: 'timezone must be text' }).trim().min(1).max(100).optional(),
  /** Time of day ("HH:MM") for `daily`/`weekdays`. */
  at: z.string({ error: 'at must be text like 09:00' }).trim().max(10).optional(),
});

export type ValidNotifyRequest = NotifyRequest & { mode: NotifyMode };
export type ScheduleRequest = z.output<typeof scheduleRequestSchema>;

const FIELD_CODES: Record<string, string> = {
  text: 'empty_text',
  mode: 'unknown_mode',
  title: 'bad_title',
  source: 'bad_source',
  urgent: 'bad_urgent',
  delay_seconds: 'bad_delay',
  fire_at_epoch: 'bad_delay',
  repeat: 'bad_repeat',
  timezone: 'bad_timezone',
  at: 'bad_time',
};

/** Fields of /schedule that /notify does not take: the request meant "later", so nothing is sent now. */
const SCHEDULE_ONLY = new Set(['delay_seconds', 'fire_at_epoch', 'repeat', 'timezone', 'at']);
/** Likely spellings of a field we do take. */
const DID_YOU_MEAN: Record<string, string> = {
  tz: 'timezone',
  time_zone: 'timezone',
  delay: 'delay_seconds',
  in: 'delay_seconds',
  message: 'text',
  body: 'text',
};

/** The `unknown_field` error: names the field(s) and, where we can tell, what was meant. */
function unknownFieldError(keys: readonly string[], known: readonly string[]): NotifyInputError {
  const names = listKeys(keys);
  const hints: string[] = [];
  for (const key of keys.slice(0, MAX_LISTED_KEYS)) {
    if (!known.includes('delay_seconds') && SCHEDULE_ONLY.has(key))
      hints.push(`${key} is a /schedule field (local_notify_schedule): this request delivers now, so nothing was sent`);
    else if (DID_YOU_MEAN[key] && known.includes(DID_YOU_MEAN[key])) hints.push(`did you mean ${DID_YOU_MEAN[key]}?`);
    else if (key === 'urgent' && !known.includes('urgent'))
      hints.push('urgent applies to /notify only; a scheduled notification cannot be urgent');
  }
  const message = `unknown field${keys.length === 1 ? '' : 's'} ${names}; accepted: ${known.join(', ')}${hints.length ? ` (${hints.join('; ')})` : ''}`;
  return new NotifyInputError('unknown_field', message);
}

/** Parse with `schema`; on failure throw NotifyInputError whose code names the first bad field. */
export function parseOrThrow<T>(schema: z.ZodType<T>, raw: unknown): T {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new NotifyInputError('invalid_request', 'expected a JSON object');
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  // An unknown field first: it often explains the rest (a /schedule request sent to /notify).
  const unknown = parsed.error.issues.find((i) => i.code === 'unrecognized_keys');
  if (unknown && unknown.code === 'unrecognized_keys') {
    const known = schema instanceof z.ZodObject ? Object.keys(schema.shape as Record<string, unknown>) : [];
    throw unknownFieldError(unknown.keys, known);
  }
  const issue = parsed.error.issues[0]!;
  const field = String(issue.path[0] ?? '');
  let code = FIELD_CODES[field] ?? 'invalid_request';
  if (field === 'text' && issue.code === 'too_big') code = 'text_too_long';
  if (field === 'text' && issue.code === 'invalid_type' && (raw as Record<string, unknown>).text !== undefined)
    code = 'bad_text';
  const message =
    field === 'text' && code === 'empty_text' ? 'text is required' : `${field || 'request'}: ${issue.message}`;
  throw new NotifyInputError(code, message);
}

export function parseNotifyRequest(raw: unknown): ValidNotifyRequest {
  return parseOrThrow(notifyRequestSchema, raw);
}

export function parseScheduleRequest(raw: unknown): ScheduleRequest {
  const request = parseOrThrow(scheduleRequestSchema, raw);
  // croner also reads nicknames (@yearly, @monthly, @weekly, @daily, @hourly, @annually, @midnight,
  // @reboot); the documented rule is "daily", "weekdays" or 5 cron fields, so they are refused here
  // (a nickname is not 5 fields, and @yearly would put the next occurrence up to a year out).
  if (request.repeat !== undefined && request.repeat.startsWith('@')) {
    throw new NotifyInputError(
      'bad_repeat',
      `repeat: ${JSON.stringify(request.repeat)} is a cron nickname; give "daily", "weekdays" or a 5-field cron expression (minute hour day month weekday), e.g. "0 9 * * 1" for Mondays at 09:00`,
    );
  }
  if (request.delay_seconds !== undefined && request.fire_at_epoch !== undefined)
    throw new NotifyInputError('bad_delay', 'give delay_seconds or fire_at_epoch, not both');
  if (request.delay_seconds === undefined && request.fire_at_epoch === undefined && request.repeat === undefined) {
    throw new NotifyInputError(
      'bad_delay',
      'delay_seconds: required (a number of seconds, or fire_at_epoch: the moment) unless repeat is given',
    );
  }
  if (request.repeat === undefined && (request.at !== undefined || request.timezone !== undefined)) {
    throw new NotifyInputError(
      request.at !== undefined ? 'bad_time' : 'bad_timezone',
      `${request.at !== undefined ? 'at' : 'timezone'}: only with repeat`,
    );
  }
  return request;
}
