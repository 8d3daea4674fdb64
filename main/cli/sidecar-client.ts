// The thin CLI client: one HTTP call to the running sidecar with the token read from the 0600
// file (or the configured token), so local use stays one line and the token never hits argv.
import type { ApiErrorBody } from '../core/api-types.ts';
import type { Config } from '../core/config/index.ts';
import { readSidecarToken } from '../core/sidecar/token.ts';

export class SidecarUnavailableError extends Error {}

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
): Promise<SidecarResponse> {
  const base = sidecarBaseUrl(config);
  const token = sidecarToken(config);
  // Every route but /health needs the token: say which file was missing rather than send a doomed request.
  if (!token && path !== '/health') throw new MissingTokenError(config.sidecar.tokenFile);
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    if (cause?.code === 'ECONNREFUSED') {
      throw new SidecarUnavailableError(`the sidecar is not running at ${base} (start it with \`npm run headless\` or the desktop app)`);
    }
    throw new SidecarUnavailableError(`cannot reach the sidecar at ${base}: ${(err as Error).message}`);
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, body: parsed };
}

export function errorMessageOf(body: unknown): string {
  const error = (body as Partial<ApiErrorBody> | null)?.error;
  return error && typeof error.message === 'string' ? `${error.code}: ${error.message}` : JSON.stringify(body);
}
