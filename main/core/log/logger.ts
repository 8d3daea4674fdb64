// pino with secrets scrubbed before a line is written. Two layers: exact known secret values from
// the configuration (always), and a pattern redactor (the same one `sora_redact` uses) for secrets
// that arrive at run time inside strings (tokens in URLs, webhook URLs in error messages).
import pino, { type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';

export type { Logger } from 'pino';

export interface CreateLoggerOptions {
  level?: string;
  /** Values that must never appear in a log line (tokens, keys, webhook URLs from config). */
  secrets?: readonly string[];
  /** Pattern redactor for strings (tokens, JWTs, webhook URLs found at run time). */
  redactText?: (text: string) => string;
  /** Where lines go: default stderr (headless). The Electron shell passes a log file stream. */
  destination?: DestinationStream;
  /**
   * How lines look on stderr when no destination is given: `json` (one object a line, for programs and
   * log files; the default) or `pretty` (time, level and message first, for a person at a terminal).
   */
  format?: 'json' | 'pretty';
  /** Colour the pretty lines (a TTY that did not ask for NO_COLOR). */
  colorize?: boolean;
  name?: string;
}

/**
 * Object keys whose values are secrets whatever they hold. The webhook's URL and secret are
 * (`webhook_url`, `webhookUrl`, `webhook_secret`); a bare `webhook` key is NOT: it is the name of
 * a delivery mode, e.g. `outcomes: { webhook: "ok" }` in "notification dispatched", and hiding it
 * hid that mode's outcome. A URL that lands under any key is still caught by value (the configured
 * URL is a known secret; webhook URL patterns by the redactor).
 */
const SECRET_KEYS =
  /^(authorization|token|bot_?token|api_?key|apikey|secret|password|webhook_?(url|secret)|cookie|set-cookie)$/i;

export function createScrubber(
  secrets: readonly string[],
  redactText?: (text: string) => string,
): (text: string) => string {
  const known = [...new Set(secrets.filter((s) => s.length >= 8))].sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = text;
    for (const secret of known) if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
    return redactText ? redactText(out) : out;
  };
}

function scrubValue(value: unknown, scrub: (text: string) => string, depth: number): unknown {
  if (typeof value === 'string') return scrub(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    return {
      type: value.name,
      message: scrub(value.message),
      stack: value.stack ? scrub(value.stack) : undefined,
      code: (value as NodeJS.ErrnoException).code,
    };
  }
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, scrub, depth + 1));
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value))
    out[key] = SECRET_KEYS.test(key) ? '[REDACTED]' : scrubValue(v, scrub, depth + 1);
  return out;
}

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const scrub = createScrubber(options.secrets ?? [], options.redactText);
  return pino(
    {
      name: options.name ?? 'live-voice-bridge',
      level: options.level ?? 'info',
      base: { pid: process.pid },
      formatters: {
        log: (object) => scrubValue(object, scrub, 0) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          // Message strings (and printf-style arguments) are scrubbed too, not only the merged object.
          const scrubbed = args.map((a) => (typeof a === 'string' ? scrub(a) : a)) as typeof args;
          method.apply(this, scrubbed);
        },
      },
    },
    options.destination ??
      (options.format === 'pretty' ? prettyStderr(options.colorize ?? false) : pino.destination({ fd: 2, sync: true })),
  );
}

/** Lines are scrubbed before they get here (formatters and hooks above); this only lays them out. */
function prettyStderr(colorize: boolean): DestinationStream {
  return pinoPretty({
    destination: 2,
    sync: true,
    colorize,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,name',
    singleLine: true,
  });
}

/** A child logger per module: `moduleLogger(root, 'sidecar')`. */
export function moduleLogger(root: Logger, module: string): Logger {
  return root.child({ module });
}

/** A logger that writes nothing (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
