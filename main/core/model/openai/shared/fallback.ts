// Opening a socket with model fallback and backoff, shared by both OpenAI providers: a rejected key
// stops at once, a rejected model moves to the next configured one, a rejected session field is
// our bug (stop, say which field), anything else is retried with exponential backoff.
import type { Logger } from 'pino';
import { ConnectFailure } from './json-socket.ts';

export type OpenAIFailureKind = 'auth' | 'model' | 'config' | 'transient';

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Transient failures tolerated in a row before giving up with `error`. */
  maxAttempts: number;
}

export const DEFAULT_OPENAI_BACKOFF: BackoffOptions = { initialMs: 250, maxMs: 10_000, maxAttempts: 8 };

/** HTTP status / close code and reason → what to do next. */
export function classifyOpenAIFailure(code: number | null, reason: string): OpenAIFailureKind {
  const text = reason.toLowerCase();
  if (code === 401 || code === 403 || /invalid_api_key|incorrect api key|unauthori[sz]ed|authentication/.test(text)) return 'auth';
  if (code === 404 || /model_not_found|invalid_model|does not exist|unknown model/.test(text)) return 'model';
  if (/invalid_value|unknown_parameter|invalid_type|missing_required_parameter|invalid_session/.test(text)) return 'config';
  return 'transient';
}

export class FatalSessionError extends Error {}

export interface FallbackLoop<C> {
  label: string;
  models: readonly string[];
  startIndex: number;
  backoff: BackoffOptions;
  logger: Logger;
  open(model: string): Promise<C>;
  sleep(ms: number): Promise<void>;
  isClosed(): boolean;
}

export async function openWithFallback<C>(loop: FallbackLoop<C>): Promise<{ connection: C; index: number }> {
  const failures: string[] = [];
  for (let index = loop.startIndex; index < loop.models.length; index++) {
    const model = loop.models[index]!;
    for (let attempt = 1; ; attempt++) {
      if (loop.isClosed()) throw new FatalSessionError('session closed');
      try {
        return { connection: await loop.open(model), index };
      } catch (err) {
        const failure = err instanceof ConnectFailure ? err : new ConnectFailure(null, err instanceof Error ? err.message : String(err));
        const kind = classifyOpenAIFailure(failure.code, failure.reason);
        loop.logger.warn({ model, code: failure.code, reason: failure.reason, kind, attempt }, `${loop.label} connection failed`);
        if (kind === 'auth') throw new FatalSessionError(`${loop.label} rejected the API key (${failure.message})`);
        if (kind === 'config') throw new FatalSessionError(`${loop.label} rejected the session configuration (${failure.message})`);
        if (kind === 'model') {
          failures.push(`${model}: ${failure.message}`);
          break;
        }
        if (attempt >= loop.backoff.maxAttempts) throw new FatalSessionError(`${loop.label} unreachable after ${attempt} attempts (${failure.message})`);
        await loop.sleep(Math.min(loop.backoff.maxMs, loop.backoff.initialMs * 2 ** (attempt - 1)));
      }
    }
  }
  throw new FatalSessionError(`no configured ${loop.label} model accepted the session (${failures.join('; ')})`);
}
