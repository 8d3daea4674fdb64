// List pages by fire time, then id (keyset: the cursor names the last entry of the previous page, so a
// page costs an index seek however deep it is, and entries added or removed meanwhile neither repeat
// nor skip the others). The cursor is opaque to clients: base64url of `[fire_at_epoch, id]`.
import type { ScheduleState } from '../api-types.ts';
import { CodedError } from '../contracts/coded-error.ts';
import type { StoredNotification } from './schedule-record.ts';

export interface PageQuery {
  limit: number;
  /** Opaque: the `next_cursor` of the previous page. */
  cursor?: string;
  state?: ScheduleState;
}

export interface Page {
  entries: StoredNotification[];
  /** Give it back as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

export class InvalidCursorError extends CodedError<'invalid_cursor'> {
  constructor(message: string) {
    super('invalid_cursor', message);
  }
}

export function encodeCursor(e: Pick<StoredNotification, 'fire_at_epoch' | 'id'>): string {
  return Buffer.from(JSON.stringify([e.fire_at_epoch, e.id])).toString('base64url');
}

export function decodeCursor(cursor: string): { fire: number; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string')
      return { fire: value[0], id: value[1] };
  } catch {
    // fall through
  }
  throw new InvalidCursorError('cursor: give back the next_cursor of a previous page');
}
