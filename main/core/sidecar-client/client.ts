// A typed client for the sidecar's HTTP API, on node:http alone: the CLI uses it, and the desktop
// shell and the MCP stdio bridge can share it (the renderer its wire types). It knows the routes
// and the shapes they answer with (api-types.ts); where the base URL and the token come from is the
// caller's business. Errors say whether the request may have been carried out:
// - SidecarUnavailableError: nothing was sent (not running, refused connection);
// - SidecarNoAnswerError: it may have been sent and may still be acted on (timeout, cut-off answer);
// - an HTTP error status is an answer (`SidecarResponse.status`), not an exception.
import http from 'node:http';
import type { ApiErrorBody, BridgeStateEvent, NotifyRequest, NotifyResult, ScheduleState } from '../api-types.ts';
import type { ScheduleEntryView, ScheduleListPage } from '../notify/scheduler.ts';

/** Nothing was sent: the sidecar is not running or could not be connected to. */
export class SidecarUnavailableError extends Error {}

/**
 * No answer in time, or the connection broke after the request may have gone out: the sidecar may
 * still carry the request out (a /notify keeps delivering), so its outcome is unknown.
 */
export class SidecarNoAnswerError extends Error {}

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
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ETIMEDOUT']);

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** `code: message` of an error body, else the body as JSON. */
export function errorMessageOf(body: unknown): string {
  const error = (body as Partial<ApiErrorBody> | null)?.error;
  return error && typeof error.message === 'string' ? `${error.code}: ${error.message}` : JSON.stringify(body);
}

/** Who ended a call, as `GET /leave?by=` names it (routes/bridge.ts STOPPED_BY). */
export type StoppedBy = 'cli' | 'dashboard' | 'tray' | 'discord' | 'mcp';

/** `/announce` speaks the text verbatim; `/ask` is a message the model answers (routes/spoken-text.ts). */
export interface SpokenTextAnswer {
  status: 'queued';
  chars: number;
  as: 'announce' | 'message';
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
  talk?: { muted: boolean; ptt: { enabled: boolean; held: boolean }; to_model: boolean };
  usage?: Record<string, unknown>;
  [field: string]: unknown;
}

export class SidecarClient {
  readonly baseUrl: string;
  readonly #token: string | undefined;
  readonly #missingToken: () => Error;

  constructor(options: SidecarClientOptions) {
    this.baseUrl = options.baseUrl;
    this.#token = options.token;
    this.#missingToken = options.missingToken ?? (() => new SidecarUnavailableError('no sidecar token'));
  }

  get hasToken(): boolean {
    return this.#token !== undefined;
  }

  async request<Body = unknown>(method: SidecarMethod, path: string, body?: unknown, options: SidecarRequestOptions = {}): Promise<SidecarResponse<Body>> {
    const base = this.baseUrl;
    const timeoutMs = options.timeoutMs ?? 30_000;
    // Every route but /health needs the token: say so rather than send a doomed request.
    if (!this.#token && path !== '/health') throw this.#missingToken();
    const headers: Record<string, string> = { ...options.headers };
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    // node:http, not fetch: loading undici is a third of a CLI call's start-up CPU (bench/cli.ts).
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      let answered = false;
      const request = http.request(new URL(base + path), { method, headers, agent: false }, (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', (err) => reject(new SidecarNoAnswerError(`the sidecar's answer (HTTP ${response.statusCode}) was cut off: ${err.message}`)));
        response.on('aborted', () => reject(new SidecarNoAnswerError(`the sidecar's answer (HTTP ${response.statusCode}) was cut off`)));
      });
      const timer = setTimeout(() => {
        // A timeout is not "cannot reach": the request went out and the sidecar is still working on it.
        reject(new SidecarNoAnswerError(`no answer from the sidecar at ${base} within ${formatSeconds(timeoutMs)}: the request may still be carried out (outcome unknown)`));
        request.destroy();
      }, timeoutMs);
      request.on('close', () => clearTimeout(timer));
      request.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (answered) return; // the response's own error/aborted handler says it was cut off
        if (err.code === 'ECONNREFUSED') {
          reject(new SidecarUnavailableError(`the sidecar is not running at ${base} (start it with \`npm run headless\` or the desktop app)`));
        } else if (method !== 'GET' && !NOT_CONNECTED.has(err.code ?? '')) {
          // A POST/PUT/DELETE whose connection broke once it may have gone out may still be acted on.
          reject(new SidecarNoAnswerError(`the connection to the sidecar at ${base} failed after the request may have been sent (${err.message}): outcome unknown`));
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

  leave(by: StoppedBy): Promise<SidecarResponse<{ stopped: boolean; status: unknown }>> {
    return this.request('GET', `/leave?by=${by}`);
  }

  /** The model speaks `text` verbatim (`announce`, the spec's /say) or answers it (`message`, /ask). */
  hand(verb: 'announce' | 'message', text: string, source?: string): Promise<SidecarResponse<SpokenTextAnswer>> {
    return this.request('POST', verb === 'announce' ? '/announce' : '/ask', { text, ...(source ? { source } : {}) });
  }

  notify(request: NotifyRequest, options: SidecarRequestOptions = {}): Promise<SidecarResponse<NotifyResult>> {
    return this.request('POST', '/notify', request, options);
  }

  schedule(request: ScheduleRequestBody, options: SidecarRequestOptions = {}): Promise<SidecarResponse<ScheduleCreated>> {
    return this.request('POST', '/schedule', request, options);
  }

  listSchedule(query: { limit?: number; cursor?: string; state?: ScheduleState } = {}): Promise<SidecarResponse<ScheduleListPage>> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const search = params.toString();
    return this.request('GET', `/schedule${search ? `?${search}` : ''}`);
  }

  cancelSchedule(id: string): Promise<SidecarResponse<{ cancelled: string; entry: ScheduleEntryView }>> {
    return this.request('DELETE', `/schedule/${encodeURIComponent(id)}`);
  }

  loginUrl(): Promise<SidecarResponse<{ url: string }>> {
    return this.request('POST', '/login/url');
  }
}
