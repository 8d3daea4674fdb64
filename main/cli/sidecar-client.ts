// The thin CLI client: one HTTP call to the running sidecar with the token read from the 0600
// file (or the configured token), so local use stays one line and the token never hits argv.
import type { NotifyResult } from '../core/api-types.ts';
import { NOTIFY_STATUS_MEANING } from '../core/notify/format.ts';
import { readSidecarToken } from '../core/sidecar/token.ts';
import type { TokenSource } from './errors.ts';
import {
  SidecarClient,
  SidecarUnavailableError,
  type SidecarMethod,
  type SidecarResponse,
} from '../core/sidecar-client/client.ts';

export {
  errorMessageOf,
  SidecarNoAnswerError,
  SidecarUnavailableError,
  type SidecarResponse,
} from '../core/sidecar-client/client.ts';

/** The CLI's exit codes (see its help, README and docs/notifications.md). */
export const EXIT = {
  ok: 0,
  /** The sidecar answered with an error, or a notification was not delivered (status `error`). */
  failed: 1,
  /** Bad usage or configuration, including a token the sidecar refuses (401). */
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
  if (status === 'partial' || status === 'unknown' || status === 'error')
    return { exitCode: status === 'error' ? EXIT.failed : EXIT[status], message: NOTIFY_STATUS_MEANING[status] };
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

/** Where the sidecar is and how to authenticate: the `sidecar` part of Config (or of cli/address.ts). */
export interface SidecarAddress {
  sidecar: { host: string; port: number; token?: string; tokenFile: string };
  paths: { voiceUsers: string };
}

export function sidecarBaseUrl(config: SidecarAddress): string {
  const host = config.sidecar.host === '0.0.0.0' ? '127.0.0.1' : config.sidecar.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.sidecar.port}`;
}

/** The configured token, else the one in the 0600 token file the sidecar wrote. */
export function sidecarToken(config: SidecarAddress): string | undefined {
  return config.sidecar.token ?? readSidecarToken(config.paths.voiceUsers, config.sidecar.tokenFile);
}

/** Where the token the CLI sends comes from, so a refused one can be traced (cli/errors.ts). */
export function tokenSource(config: SidecarAddress): TokenSource {
  return { from: config.sidecar.token !== undefined ? 'variable' : 'file', file: config.sidecar.tokenFile };
}

/** The typed client for the running sidecar (main/core/sidecar-client), with the CLI's token lookup. */
export function sidecarClient(config: SidecarAddress): SidecarClient {
  return new SidecarClient({
    baseUrl: sidecarBaseUrl(config),
    token: sidecarToken(config),
    missingToken: () => new MissingTokenError(config.sidecar.tokenFile),
  });
}

export async function callSidecar(
  config: SidecarAddress,
  method: SidecarMethod,
  path: string,
  body?: unknown,
  /** Default 30 s; /notify answers with the final outcome, which may take longer (see docs/notifications.md). */
  timeoutMs = 30_000,
  /** Extra request headers (e.g. `idempotency-key`). */
  extraHeaders: Record<string, string> = {},
): Promise<SidecarResponse> {
  return sidecarClient(config).request(method, path, body, { timeoutMs, headers: extraHeaders });
}
