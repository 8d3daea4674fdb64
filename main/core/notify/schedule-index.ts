// The schedule in memory: what the store's reads answer from, so no read touches the file. Entries
// by id, by idempotency key, in list order (fire time, then id: pages and cursors), and a min-heap
// of scheduled records by due time (the record objects themselves, no extra objects; a record
// replaced since is skipped lazily). The store feeds it every record it appends or reads in.
import type { ScheduleState } from '../api-types.ts';
import { dueAt, type StoredNotification } from './schedule-record.ts';
import { CodedError } from '../contracts/coded-error.ts';

const isPending = (e: StoredNotification | undefined): boolean => e !== undefined && (e.state === 'scheduled' || e.state === 'delivering');

/** List order: fire time, then id. */
function compareOrder(a: StoredNotification, fire: number, id: string): number {
  return a.fire_at_epoch - fire || (a.id < id ? -1 : a.id > id ? 1 : 0);
}

/** Scheduled records by due time (a sorted array is a valid min-heap). */
function scheduledByDue(order: readonly StoredNotification[]): StoredNotification[] {
  return order.filter((e) => e.state === 'scheduled').sort((a, b) => dueAt(a) - dueAt(b));
}

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

function decodeCursor(cursor: string): { fire: number; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') return { fire: value[0], id: value[1] };
  } catch {
    // fall through
  }
  throw new InvalidCursorError('cursor: give back the next_cursor of a previous page');
}

export class ScheduleIndex {
  readonly #byId = new Map<string, StoredNotification>();
  /** Idempotency key → id of the entry it created. */
  readonly #byKey = new Map<string, string>();
  /** Every entry by (fire_at_epoch, id): list pages and cursors. */
  #order: StoredNotification[] = [];
  /** Min-heap by due time of scheduled records; a record replaced since is skipped lazily. */
  #heap: StoredNotification[] = [];
  readonly #stateCounts = new Map<ScheduleState, number>();
  #pending = 0;

  get(id: string): StoredNotification | undefined {
    return this.#byId.get(id);
  }

  has(id: string): boolean {
    return this.#byId.has(id);
  }

  get size(): number {
    return this.#byId.size;
  }

  /** Entries scheduled or being delivered (what the cap counts). */
  get pendingCount(): number {
    return this.#pending;
  }

  counts(): Partial<Record<ScheduleState, number>> {
    return Object.fromEntries(this.#stateCounts);
  }

  values(): IterableIterator<StoredNotification> {
    return this.#byId.values();
  }

  /** Every entry in list order (the store writes them so when it rewrites the file). */
  ordered(): readonly StoredNotification[] {
    return this.#order;
  }

  /** Entries in list order from the cursor, filtered by state. */
  page(query: PageQuery): Page {
    let index = 0;
    if (query.cursor !== undefined) {
      const { fire, id } = decodeCursor(query.cursor);
      index = this.#upperBound(fire, id);
    }
    const entries: StoredNotification[] = [];
    for (; index < this.#order.length; index++) {
      const e = this.#order[index]!;
      if (query.state && e.state !== query.state) continue;
      if (entries.length === query.limit) return { entries, next_cursor: encodeCursor(entries.at(-1)!) };
      entries.push(e);
    }
    return { entries, next_cursor: null };
  }

  /** The scheduled entry due first (due time ≤ anything else), or undefined. */
  peekDue(): StoredNotification | undefined {
    while (this.#heap.length) {
      const top = this.#heap[0]!;
      if (top.state === 'scheduled' && this.#byId.get(top.id) === top) return top;
      this.#heapPop();
    }
    return undefined;
  }

  /** Remove and return the first due entry if it is due at `now`. */
  takeDue(now: number): StoredNotification | undefined {
    const e = this.peekDue();
    if (!e || dueAt(e) > now) return undefined;
    this.#heapPop();
    return e;
  }

  /** Put an entry taken with takeDue back (it was not started). */
  putBack(e: StoredNotification): void {
    if (e.state === 'scheduled') this.#heapPush(e);
  }

  /** The entry a still-valid idempotency key created, if any. */
  entryForKey(key: string, now: number): StoredNotification | undefined {
    const id = this.#byKey.get(key);
    const e = id === undefined ? undefined : this.#byId.get(id);
    return e?.idempotency?.key === key && e.idempotency.entry === e.id && e.idempotency.until > now ? e : undefined;
  }

  /** Replace everything with `entries` (a load, a reload, a compaction that pruned). */
  reset(entries: Iterable<StoredNotification>): void {
    this.#byId.clear();
    this.#byKey.clear();
    this.#stateCounts.clear();
    this.#pending = 0;
    for (const e of entries) {
      this.#byId.set(e.id, e);
      this.#indexKey(e);
      this.#count(e, 1);
    }
    this.#order = [...this.#byId.values()].sort((a, b) => compareOrder(a, b.fire_at_epoch, b.id));
    this.#heap = scheduledByDue(this.#order);
  }

  /** A record's new version (appended, or read in from the file) replaces the old one. */
  apply(record: StoredNotification): void {
    const previous = this.#byId.get(record.id);
    this.#byId.set(record.id, record);
    this.#indexKey(record);
    if (previous) {
      this.#count(previous, -1);
      const at = this.#indexOf(previous);
      if (at >= 0 && previous.fire_at_epoch === record.fire_at_epoch) this.#order[at] = record;
      else {
        if (at >= 0) this.#order.splice(at, 1);
        this.#order.splice(this.#upperBound(record.fire_at_epoch, record.id), 0, record);
      }
    } else this.#order.splice(this.#upperBound(record.fire_at_epoch, record.id), 0, record);
    this.#count(record, 1);
    if (record.state === 'scheduled') this.#heapPush(record);
    // Stale heap items are skipped lazily; rebuild when they dominate.
    if (this.#heap.length > 2 * (this.#stateCounts.get('scheduled') ?? 0) + 1024) this.#heap = scheduledByDue(this.#order);
  }

  #indexKey(e: StoredNotification): void {
    if (e.idempotency && e.idempotency.entry === e.id) this.#byKey.set(e.idempotency.key, e.id);
  }

  #count(e: StoredNotification, sign: 1 | -1): void {
    this.#stateCounts.set(e.state, (this.#stateCounts.get(e.state) ?? 0) + sign);
    if (isPending(e)) this.#pending += sign;
  }

  /** First index whose (fire, id) is greater than the given key. */
  #upperBound(fire: number, id: string): number {
    let lo = 0;
    let hi = this.#order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareOrder(this.#order[mid]!, fire, id) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #indexOf(e: StoredNotification): number {
    const at = this.#upperBound(e.fire_at_epoch, e.id) - 1;
    return at >= 0 && this.#order[at]!.id === e.id ? at : -1;
  }

  #heapPush(item: StoredNotification): void {
    const heap = this.#heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (dueAt(heap[parent]!) <= dueAt(heap[i]!)) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  #heapPop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (!heap.length || !last) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < heap.length && dueAt(heap[l]!) < dueAt(heap[min]!)) min = l;
      if (r < heap.length && dueAt(heap[r]!) < dueAt(heap[min]!)) min = r;
      if (min === i) return;
      [heap[min], heap[i]] = [heap[i]!, heap[min]!];
      i = min;
    }
  }
}
