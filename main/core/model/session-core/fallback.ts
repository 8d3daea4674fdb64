// Opening a provider's socket with model fallback and back-off, the same loop for every provider: a
// rejected key stops at once, a rejected model moves to the next configured one, a rejected session
// field is our bug (stop, say which field), anything else is retried with exponential back-off. A
// provider classifies its own failures (its close codes and texts) and may recover one itself
// first (Gemini: a refused resume handle, a refused setup field).
import type { Logger } from 'pino';
import { ConnectFailure } from '../wire/connect-failure.ts';
import { CodedError } from '../../contracts/coded-error.ts';

export type FailureKind = 'auth' | 'model' | 'config' | 'transient';

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Transient failures tolerated in a row before giving up with `error`. */
  maxAttempts: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 250, maxMs: 10_000, maxAttempts: 8 };

/** The wait before retry `n` (1-based): doubling from `initialMs`, capped at `maxMs`. */
export function backoffDelayMs(backoff: BackoffOptions, n: number): number {
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** (n - 1));
}

/** A failure no retry can fix (rejected key, no model left, session closed): the session goes to `error`. */
export class FatalSessionError extends CodedError {
  constructor(message: string, options?: ErrorOptions) {
    super('fatal_session', message, options);
  }
}

/** What a provider does itself with a failure before the generic verdict. */
export type Recovery = 'retry' | 'retry-uncounted' | undefined;

export interface FallbackLoop<C> {
  /** The service's name in messages ("Gemini", "OpenAI Realtime", …). */
  label: string;
  models: readonly string[];
  startIndex: number;
  backoff: BackoffOptions;
  logger: Logger;
  open(model: string): Promise<C>;
  classify(failure: ConnectFailure): FailureKind;
  /** `retry`: the same model again at once (counts as an attempt); `retry-uncounted`: without counting. */
  recover?(failure: ConnectFailure): Recovery;
  /** Removes secrets from an unexpected error's text. */
  scrub?(text: string): string;
  sleep(ms: number): Promise<void>;
  isClosed(): boolean;
}

export async function openWithFallback<C>(loop: FallbackLoop<C>): Promise<{ connection: C; index: number }> {
  const failures: string[] = [];
  const scrub = loop.scrub ?? ((text: string) => text);
  for (let index = loop.startIndex; index < loop.models.length; index++) {
    const model = loop.models[index]!;
    for (let attempt = 1; ; attempt++) {
      if (loop.isClosed()) throw new FatalSessionError('session closed');
      try {
        return { connection: await loop.open(model), index };
      } catch (err) {
        const failure =
          err instanceof ConnectFailure
            ? err
            : new ConnectFailure(null, scrub(err instanceof Error ? err.message : String(err)));
        const kind = loop.classify(failure);
        loop.logger.warn(
          { model, code: failure.code, reason: failure.reason, kind, attempt },
          `${loop.label} connection failed`,
        );
        if (kind === 'auth') throw new FatalSessionError(`${loop.label} rejected the API key (${failure.message})`);
        const recovery = loop.recover?.(failure);
        if (recovery === 'retry') continue;
        if (recovery === 'retry-uncounted') {
          attempt--;
          continue;
        }
        if (kind === 'config')
          throw new FatalSessionError(`${loop.label} rejected the session configuration (${failure.message})`);
        if (kind === 'model') {
          failures.push(`${model}: ${failure.message}`);
          break;
        }
        if (attempt >= loop.backoff.maxAttempts)
          throw new FatalSessionError(`${loop.label} unreachable after ${attempt} attempts (${failure.message})`);
        await loop.sleep(backoffDelayMs(loop.backoff, attempt));
      }
    }
  }
  throw new FatalSessionError(`no configured ${loop.label} model accepted the session (${failures.join('; ')})`);
}
