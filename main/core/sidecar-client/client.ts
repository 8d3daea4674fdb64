// A typed client for the sidecar's HTTP API, on node:http alone: the CLI uses it, and the desktop
// shell and the MCP stdio bridge can share it (the renderer its wire types). It knows the routes
// and the shapes they answer with (api-types.ts); where the base URL and the token come from is the
// caller's business. Errors say whether the request may have been carried out:
// - SidecarUnavailableError: nothing was sent (not running, refused connection);
// - SidecarNoAnswerError: it may have been sent and may still be acted on (timeout, cut-off answer);
// - an HTTP error status is an answer (`SidecarResponse.status`), not an exception; `okBody` turns
//   it into a SidecarRequestError (status + the sidecar's error code) for callers that only want the
//   body (the tray), and SidecarTokenRefusedError is the 401 every caller words the same way.
import http from 'node:http';
import type {
  ApiErrorBody,
  BridgeStateEvent,
  NotifyRequest,
  NotifyResult,
  PatienceView,
  SayOutcome,
  ScheduleState,
  SpeakerPatienceView,
  TalkState,
} from '../api-types.ts';
import type { ScheduleEntryView, ScheduleListPage } from './wire-types.ts';
import { CodedError } from '../contracts/coded-error.ts';

/** Nothing was sent: the sidecar is not running or could not be connected to. */
export class SidecarUnavailableError extends CodedError<'sidecar_unavailable'> {
  constructor(message: string, options?: ErrorOptions) {
    super('sidecar_unavailable', message, options);
  }
}

/**
 * No answer in time, or the connection broke after the request may have gone out: the sidecar may
 * still carry the request out (a /notify keeps delivering), so its outcome is unknown.
 */
export class SidecarNoAnswerError extends CodedError<'no_answer'> {
  constructor(message: string, options?: ErrorOptions) {
    super('no_answer', message, options);
  }
}

/** The sidecar answered with an error status: `code` is its JSON error code (`http_error` when it sent none). */
export class SidecarRequestError extends CodedError {
  readonly status: number;
  constructor(status: number, code: string, message: string) {
    super(code, message);
    this.status = status;
  }
}

/** 401: the token was refused (or none was sent where one is needed). */
export class SidecarTokenRefusedError extends SidecarRequestError {
  constructor(code: string, message: string) {
    super(401, code, message);
    this.name = 'SidecarTokenRefusedError';
  }
}

/** What to tell a person when the sidecar refused the token. */
export const TOKEN_REFUSED_HINT =
  'the sidecar refused the token (401): check DISCORD_VOICE_LIVE_SIDECAR_TOKEN or the sidecar.token file';

/** What to tell a person when nothing listens at `baseUrl`. */
export function notRunningMessage(baseUrl: string): string {
  return `the sidecar is not running at ${baseUrl} (start it with \`npm run headless\` or the desktop app)`;
}

export interface SidecarResponse<Body = unknown> {
  status: number;
  body: Body;
}

export type SidecarMethod = 'GET' | 'POST' | 'DELETE' | 'PUT';

export interface SidecarRequestOptions {
  /** Default 30 s; /notify answers with the final outcome, which may take longer (docs/notifications.md). */
  timeoutMs?: number;
  /** Extra request headers (e.g. `idempotency-key`). */
  headers?: Record<string, string>;
  /** Send `body` (bytes) as is with this type instead of as JSON (POST /frame). */
  contentType?: string;
}

export interface SidecarClientOptions {
  /** `http://127.0.0.1:18943` (no trailing slash). */
  baseUrl: string;
  /** Bearer token; every route but /health needs it. */
  token?: string;
  /** Thrown (as is) when a route that needs the token is called without one. */
  missingToken?: () => Error;
}

/** Connection errors that mean no request went out (nothing can have been acted on). */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
]);

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** `code: message` of an error body, else the body as JSON. */
export function errorMessageOf(body: unknown): string {
  const error = (body as Partial<ApiErrorBody> | null)?.error;
  return error && typeof error.message === 'string' ? `${error.code}: ${error.message}` : JSON.stringify(body);
}

/** The body of a 2xx answer; any other status as a SidecarRequestError (401: SidecarTokenRefusedError). */
export function okBody<Body>(response: SidecarResponse<Body>, what: string): Body {
  if (response.status >= 200 && response.status < 300) return response.body;
  const error = (response.body as Partial<ApiErrorBody> | null)?.error;
  const code = typeof error?.code === 'string' ? error.code : 'http_error';
  const message = typeof error?.message === 'string' ? error.message : `${what} answered ${response.status}`;
  if (response.status === 401) throw new SidecarTokenRefusedError(code, message);
  throw new SidecarRequestError(response.status, code, message);
}

/** Who ended a call, as `GET /leave?by=` names it (routes/bridge.ts STOPPED_BY). */
export type StoppedBy = 'cli' | 'dashboard' | 'tray' | 'discord' | 'mcp';

/** `/announce` speaks the text verbatim; `/ask` is a message the model answers (routes/spoken-text.ts). */
export interface SpokenTextAnswer {
  status: 'queued';
  chars: number;
  as: 'announce' | 'message';
  /** Where its outcome is: GET /say/{id} (sayOutcome), the `say` event on /events. */
  id: string;
}

export interface ScheduleCreated {
  scheduled: string;
  fire_at_epoch: number;
  entry: ScheduleEntryView;
}

/** The body of POST /schedule (validation.ts scheduleRequestSchema). */
export interface ScheduleRequestBody {
  text: string;
  delay_seconds?: number;
  /** Instead of delay_seconds: the moment, epoch seconds (exact: `--at 09:00` fires at 09:00:00). */
  fire_at_epoch?: number;
  mode?: string;
  title?: string;
  source?: string;
  repeat?: string;
  at?: string;
  timezone?: string;
}

/** GET /health: the fields clients read (docs/sidecar.md has the whole shape). */
export interface HealthReport {
  status: 'ok' | 'degraded' | 'error';
  reasons: string[];
  version: string;
  uptime_s: number;
  bridge: { state: BridgeStateEvent['state']; call_id?: string; since?: number; reason?: string };
  connections?: { discord?: string; model?: string };
  /** The bot's gateway login (stays up between calls); `connections.discord` is the voice connection of a call. */
  discord_bot?: { configured: boolean; logged_in: boolean };
  talk?: { muted: boolean; ptt: { enabled: boolean; held: boolean }; to_model: boolean };
  usage?: Record<string, unknown>;
  [field: string]: unknown;
}

export class SidecarClient {
  readonly baseUrl: string;
  readonly #token: string | undefined;
  readonly #missingToken: () => Error;

  constructor(options: SidecarClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/$/, '');
    this.#token = options.token;
    this.#missingToken = options.missingToken ?? (() => new SidecarUnavailableError('no sidecar token'));
  }

  get hasToken(): boolean {
    return this.#token !== undefined;
  }

  /** The bearer header (empty without a token), for callers with their own transport (MCP, /events). */
  authHeaders(): Record<string, string> {
    return this.#token ? { authorization: `Bearer ${this.#token}` } : {};
  }

  async request<Body = unknown>(
    method: SidecarMethod,
    path: string,
    body?: unknown,
    options: SidecarRequestOptions = {},
  ): Promise<SidecarResponse<Body>> {
    const base = this.baseUrl;
    const timeoutMs = options.timeoutMs ?? 30_000;
    // Every route but /health needs the token: say so rather than send a doomed request.
    if (!this.#token && path !== '/health') throw this.#missingToken();
    const headers: Record<string, string> = { ...options.headers, ...this.authHeaders() };
    const raw = options.contentType !== undefined && body instanceof Uint8Array;
    const payload = body === undefined ? undefined : raw ? Buffer.from(body) : Buffer.from(JSON.stringify(body));
    if (payload) {
      headers['content-type'] = raw ? options.contentType! : 'application/json';
      headers['content-length'] = String(payload.length);
    }
    // node:http, not fetch: loading undici is a third of a CLI call's start-up CPU (bench/cli.ts).
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      let answered = false;
      const request = http.request(new URL(base + path), { method, headers, agent: false }, (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', (err) =>
          reject(
            new SidecarNoAnswerError(`the sidecar's answer (HTTP ${response.statusCode}) was cut off: ${err.message}`),
          ),
        );
        response.on('aborted', () =>
          reject(new SidecarNoAnswerError(`the sidecar's answer (HTTP ${response.statusCode}) was cut off`)),
        );
      });
      const timer = setTimeout(() => {
        // A timeout is not "cannot reach": the request went out and the sidecar is still working on it.
        reject(
          new SidecarNoAnswerError(
            `no answer from the sidecar at ${base} within ${formatSeconds(timeoutMs)}: the request may still be carried out (outcome unknown)`,
          ),
        );
        request.destroy();
      }, timeoutMs);
      request.on('close', () => clearTimeout(timer));
      request.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (answered) return; // the response's own error/aborted handler says it was cut off
        if (err.code === 'ECONNREFUSED') {
          reject(new SidecarUnavailableError(notRunningMessage(base)));
        } else if (method !== 'GET' && !NOT_CONNECTED.has(err.code ?? '')) {
          // A POST/PUT/DELETE whose connection broke once it may have gone out may still be acted on.
          reject(
            new SidecarNoAnswerError(
              `the connection to the sidecar at ${base} failed after the request may have been sent (${err.message}): outcome unknown`,
            ),
          );
        } else {
          reject(new SidecarUnavailableError(`cannot reach the sidecar at ${base}: ${err.message}`));
        }
      });
      request.end(payload);
    });
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: keep the text.
    }
    return { status, body: parsed as Body };
  }

  health(): Promise<SidecarResponse<HealthReport>> {
    return this.request('GET', '/health');
  }

  join(target?: { guild_id: string; channel_id: string }): Promise<SidecarResponse> {
    return this.request('POST', '/join', target ?? {}, { timeoutMs: 60_000 });
  }

  /** "Stop talking": cut the model's current reply. */
  interrupt(): Promise<SidecarResponse> {
    return this.request('POST', '/interrupt', {});
  }

  mute(muted: boolean): Promise<SidecarResponse<TalkState>> {
    return this.request('POST', '/mute', { muted });
  }

  /** Push-to-talk mode (`enabled`) or the talk key (`held`). */
  ptt(change: { enabled?: boolean; held?: boolean }): Promise<SidecarResponse<TalkState>> {
    return this.request('POST', '/ptt', change);
  }

  /** An image for the model to see (POST /frame, the raw body). */
  pushFrame(image: Uint8Array, mime: 'image/png' | 'image/jpeg' | 'image/webp'): Promise<SidecarResponse> {
    return this.request('POST', '/frame', image, { contentType: mime });
  }

  /**
   * GET `path` as a stream (`/events`), until `signal` aborts: the response once it answered 200,
   * else a SidecarRequestError with the status (connection failures as in request()).
   */
  stream(path: string, signal: AbortSignal): Promise<http.IncomingMessage> {
    const base = this.baseUrl;
    return new Promise((resolve, reject) => {
      const request = http.request(
        new URL(base + path),
        { method: 'GET', headers: { accept: 'text/event-stream', ...this.authHeaders() }, signal, agent: false },
        (response) => {
          if (response.statusCode === 200) return resolve(response);
          response.resume();
          reject(
            response.statusCode === 401
              ? new SidecarTokenRefusedError('unauthorized', TOKEN_REFUSED_HINT)
              : new SidecarRequestError(
                  response.statusCode ?? 0,
                  'http_error',
                  `GET ${path} answered ${response.statusCode}`,
                ),
          );
        },
      );
      request.on('error', (err: NodeJS.ErrnoException) =>
        reject(err.code === 'ECONNREFUSED' ? new SidecarUnavailableError(notRunningMessage(base)) : err),
      );
      request.end();
    });
  }

  leave(by: StoppedBy): Promise<SidecarResponse<{ stopped: boolean; status: unknown }>> {
    return this.request('GET', `/leave?by=${by}`);
  }

  /** The model speaks `text` verbatim (`announce`, or the spec's `say`) or answers it (`message`, /ask). */
  hand(
    verb: 'announce' | 'message' | 'say',
    text: string,
    source?: string,
  ): Promise<SidecarResponse<SpokenTextAnswer>> {
    const path = verb === 'message' ? '/ask' : verb === 'say' ? '/say' : '/announce';
    return this.request('POST', path, { text, ...(source ? { source } : {}) });
  }

  /** What became of a /say, /announce or /ask (or a voice notification's `say_id`). */
  sayOutcome(id: string): Promise<SidecarResponse<SayOutcome>> {
    return this.request('GET', `/say/${encodeURIComponent(id)}`);
  }

  notify(request: NotifyRequest, options: SidecarRequestOptions = {}): Promise<SidecarResponse<NotifyResult>> {
    return this.request('POST', '/notify', request, options);
  }

  schedule(
    request: ScheduleRequestBody,
    options: SidecarRequestOptions = {},
  ): Promise<SidecarResponse<ScheduleCreated>> {
    return this.request('POST', '/schedule', request, options);
  }

  listSchedule(
    query: { limit?: number; cursor?: string; state?: ScheduleState } = {},
  ): Promise<SidecarResponse<ScheduleListPage>> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const search = params.toString();
    return this.request('GET', `/schedule${search ? `?${search}` : ''}`);
  }

  cancelSchedule(id: string): Promise<SidecarResponse<{ cancelled: string; entry: ScheduleEntryView }>> {
    return this.request('DELETE', `/schedule/${encodeURIComponent(id)}`);
  }

  /** The patience setting, the call's, and each speaker the learner lengthened it for. */
  patience(): Promise<SidecarResponse<PatienceView>> {
    return this.request('GET', '/room/patience');
  }

  /** Forget what was learnt of one speaker's pauses (404 unknown_speaker when nothing was). */
  resetPatience(speakerId: string): Promise<SidecarResponse<{ reset: SpeakerPatienceView }>> {
    return this.request('DELETE', `/room/patience/${encodeURIComponent(speakerId)}`);
  }

  loginUrl(): Promise<SidecarResponse<{ url: string }>> {
    return this.request('POST', '/login/url');
  }
}
