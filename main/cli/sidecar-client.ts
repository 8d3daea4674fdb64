// The thin CLI client: one HTTP call to the running sidecar with the token read from the 0600
// file (or the configured token), so local use stays one line and the token never hits argv.
import type { ApiErrorBody, NotifyResult } from '../core/api-types.ts';
import type { Config } from '../core/config/index.ts';
import { NOTIFY_STATUS_MEANING } from '../core/notify/format.ts';
import { readSidecarToken } from '../core/sidecar/token.ts';

/** Nothing was sent: the sidecar is not running or could not be connected to. */
export class SidecarUnavailableError extends Error {}

/**
 * No answer in time, or the connection broke after the request may have gone out: the sidecar may
 * still carry the request out (a /notify keeps delivering), so its outcome is unknown.
 */
export class SidecarNoAnswerError extends Error {}

/** The CLI's exit codes (see its help, README and docs/notifications.md). */
export const EXIT = {
  ok: 0,
  /** The sidecar answered with an error, or a notification was not delivered (status `error`). */
  failed: 1,
  usage: 2,
  /** The sidecar is not running / cannot be connected to: nothing was sent. */
  unavailable: 3,
  /** A notification reached some destinations but not all (status `partial`). */
  partial: 4,
  /** A notification may have been delivered (status `unknown`); it was not re-sent. */
  unknown: 5,
  /** No answer in time: the request may still be carried out. */
  noAnswer: 6,
} as const;

/** Exit code and a line for stderr (null when it delivered) for a /notify answer's body. */
export function notifyVerdict(body: unknown): { exitCode: number; message: string | null } {
  const status = (body as Partial<NotifyResult> | null)?.status;
  if (status === 'ok') return { exitCode: EXIT.ok, message: null };
  if (status === 'partial' || status === 'unknown' || status === 'error') return { exitCode: status === 'error' ? EXIT.failed : EXIT[status], message: NOTIFY_STATUS_MEANING[status] };
  return { exitCode: EXIT.failed, message: `unexpected answer from the sidecar: ${JSON.stringify(body)}` };
}

/** No token to send: names the file that was looked for and the variables that point elsewhere. */
export class MissingTokenError extends SidecarUnavailableError {
  constructor(file: string) {
    super(
      `no sidecar token: ${file} does not exist or is empty. Start the app first (npm run headless), or point ` +
        'DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE at the token file of the one that is running (the demo prints that export line), ' +
        'or set DISCORD_VOICE_LIVE_SIDECAR_TOKEN.',
    );
  }
}

export interface SidecarResponse {
  status: number;
  body: unknown;
}

export function sidecarBaseUrl(config: Config): string {
  const host = config.sidecar.host === '0.0.0.0' ? '127.0.0.1' : config.sidecar.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.sidecar.port}`;
}

/** The configured token, else the one in the 0600 token file the sidecar wrote. */
export function sidecarToken(config: Config): string | undefined {
  return config.sidecar.token ?? readSidecarToken(config.paths.voiceUsers, config.sidecar.tokenFile);
}

export async function callSidecar(
  config: Config,
  method: 'GET' | 'POST' | 'DELETE' | 'PUT',
  path: string,
  body?: unknown,
  /** Default 30 s; /notify answers with the final outcome, which may take longer (see docs/notifications.md). */
  timeoutMs = 30_000,
  /** Extra request headers (e.g. `idempotency-key`). */
  extraHeaders: Record<string, string> = {},
): Promise<SidecarResponse> {
  const base = sidecarBaseUrl(config);
  const token = sidecarToken(config);
  // Every route but /health needs the token: say which file was missing rather than send a doomed request.
  if (!token && path !== '/health') throw new MissingTokenError(config.sidecar.tokenFile);
  const headers: Record<string, string> = { ...extraHeaders };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const timeUp = AbortSignal.timeout(timeoutMs);
  const noAnswer = (): SidecarNoAnswerError =>
    new SidecarNoAnswerError(`no answer from the sidecar at ${base} within ${formatSeconds(timeoutMs)}: the request may still be carried out (outcome unknown)`);
  let response: Response;
  try {
    response = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: timeUp });
  } catch (err) {
    // A timeout is not "cannot reach": the request went out and the sidecar is still working on it.
    if (timeUp.aborted) throw noAnswer();
    const cause = (err as { cause?: { code?: string } }).cause;
    if (cause?.code === 'ECONNREFUSED') {
      throw new SidecarUnavailableError(`the sidecar is not running at ${base} (start it with \`npm run headless\` or the desktop app)`);
    }
    // A POST/PUT/DELETE whose connection broke once it may have gone out may still be acted on.
    if (method !== 'GET' && !NOT_CONNECTED.has(cause?.code ?? '')) {
      throw new SidecarNoAnswerError(`the connection to the sidecar at ${base} failed after the request may have been sent (${(err as Error).message}): outcome unknown`);
    }
    throw new SidecarUnavailableError(`cannot reach the sidecar at ${base}: ${(err as Error).message}`);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    if (timeUp.aborted) throw noAnswer();
    throw new SidecarNoAnswerError(`the sidecar's answer (HTTP ${response.status}) was cut off: ${(err as Error).message}`);
  }
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, body: parsed };
}

/** Connection errors that mean no request went out (nothing can have been acted on). */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

export function errorMessageOf(body: unknown): string {
  const error = (body as Partial<ApiErrorBody> | null)?.error;
  return error && typeof error.message === 'string' ? `${error.code}: ${error.message}` : JSON.stringify(body);
}
