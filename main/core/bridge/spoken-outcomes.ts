// The outcome of every request to speak (/say, /announce, /ask, a voice notification), as its
// sender sees it: `GET /say/{id}`, the `say` event on /events, a line in the notes. A record is
// `waiting` until it settles once, for good: `spoken`, `cut` or `dropped` (the first settle wins; a
// late one is ignored). Memory is bounded: at most `capacity` records (the oldest go first) and
// none older than `ttlMs`, so a core that runs for months keeps a few hundred small objects.
// What decides the outcome (the reply's playback, a cut, the end of the call) is reply-follower.ts.
import { randomBytes } from 'node:crypto';
import type { SayOutcome, SayOutcomeKind, SayVerb } from '../api-types.ts';
import { outcomeWords } from '../contracts/say-outcome-words.ts';

/** `say_` and 12 hex digits: what GET /say/{id} accepts (anything else is 400). */
export const SAY_ID_PATTERN = /^say_[0-9a-f]{12}$/;

export interface SpokenOutcomesOptions {
  /** Each change of a record (created, reason updated, settled): the `say` event. */
  publish: (outcome: SayOutcome) => void;
  /** A settled record, in words, for the call's notes (the transcript shows what became of each request). */
  note?: (text: string) => void;
  /** Epoch ms. */
  now?: () => number;
  capacity?: number;
  ttlMs?: number;
}

export type SettledKind = Exclude<SayOutcomeKind, 'waiting'>;

export interface Settlement {
  spoken_text?: string | null;
  by?: string | null;
  reason?: string | null;
}

const DEFAULT_CAPACITY = 500;
const DEFAULT_TTL_MS = 6 * 3600_000;

export class SpokenOutcomes {
  readonly #o: SpokenOutcomesOptions;
  readonly #now: () => number;
  /** Insertion order is age order: the first key is the oldest. */
  readonly #records = new Map<string, SayOutcome>();
  readonly #settledWaiters = new Set<() => void>();

  constructor(options: SpokenOutcomesOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** A new request, waiting for `reason`; returns its id. */
  create(verb: SayVerb, text: string, source: string, reason: string): string {
    this.#prune();
    const id = `say_${randomBytes(6).toString('hex')}`;
    const record: SayOutcome = {
      id,
      verb,
      outcome: 'waiting',
      spoken_text: null,
      by: null,
      reason,
      text,
      source,
      created_at: this.#now() / 1000,
      settled_at: null,
    };
    this.#records.set(id, record);
    this.#o.publish({ ...record });
    return id;
  }

  get(id: string): SayOutcome | undefined {
    const record = this.#records.get(id);
    if (!record) return undefined;
    if (this.#expired(record)) {
      this.#records.delete(id);
      return undefined;
    }
    return { ...record };
  }

  /** A waiting record's reason changes (handed to the model, being spoken). */
  progress(id: string, reason: string): void {
    const record = this.#records.get(id);
    if (!record || record.outcome !== 'waiting' || record.reason === reason) return;
    record.reason = reason;
    this.#o.publish({ ...record });
  }

  /** The outcome, once: a record already settled (or forgotten) stays as it is. */
  settle(id: string, outcome: SettledKind, detail: Settlement = {}): void {
    const record = this.#records.get(id);
    if (!record || record.outcome !== 'waiting') return;
    record.outcome = outcome;
    record.spoken_text = detail.spoken_text ?? null;
    record.by = detail.by ?? null;
    record.reason = outcome === 'spoken' ? null : (detail.reason ?? null);
    record.settled_at = this.#now() / 1000;
    this.#o.publish({ ...record });
    this.#o.note?.(`${record.verb} from ${record.source} "${clip(record.text)}": ${outcomeWords(record)}`);
    for (const wake of this.#settledWaiters) wake();
  }

  /**
   * A voice notification that was not spoken but delivered another way (`auto` fell through to a
   * DM, the channel or the webhook): its record says so (`instead`, e.g. "sent by direct message
   * instead") after why it was not spoken. A record still waiting is dropped for `why` (its text
   * will never be spoken); one spoken or cut stays as it is.
   */
  sentInstead(id: string, why: string, instead: string): void {
    const record = this.#records.get(id);
    if (record?.outcome === 'waiting') return this.settle(id, 'dropped', { reason: `${why}; ${instead}` });
    if (record?.outcome !== 'dropped') return;
    record.reason = `${record.reason ?? why}; ${instead}`;
    this.#o.publish({ ...record });
    this.#o.note?.(`${record.verb} from ${record.source} "${clip(record.text)}": ${outcomeWords(record)}`);
  }

  /** Ids still waiting, oldest first. */
  waiting(): string[] {
    return [...this.#records.values()].filter((r) => r.outcome === 'waiting').map((r) => r.id);
  }

  /** Resolves once none of `ids` is waiting any more, or after `withinMs`, whichever comes first. */
  settled(ids: readonly string[], withinMs: number): Promise<void> {
    const open = () => ids.some((id) => this.#records.get(id)?.outcome === 'waiting');
    if (!open() || withinMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        if (open() && !timedOut) return;
        clearTimeout(timer);
        this.#settledWaiters.delete(done);
        resolve();
      };
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        done();
      }, withinMs);
      this.#settledWaiters.add(done);
    });
  }

  #expired(record: SayOutcome): boolean {
    return this.#now() - record.created_at * 1000 > (this.#o.ttlMs ?? DEFAULT_TTL_MS);
  }

  #prune(): void {
    const capacity = this.#o.capacity ?? DEFAULT_CAPACITY;
    for (const [id, record] of this.#records) {
      if (this.#records.size < capacity && !this.#expired(record)) break;
      this.#records.delete(id);
    }
  }
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
