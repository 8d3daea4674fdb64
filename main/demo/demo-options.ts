// The demo's command line: `./scripts/demo.sh [options]` (also `npm run demo -- …` and
// `live-voice-bridge demo …`). A mistake gets one line naming it, a "did you mean" for a near
// miss, and a pointer to --help, never the parser's own text.
import { parseArgs } from 'node:util';
import { isLiveProviderName, LIVE_PROVIDERS, type LiveProviderName } from '../core/config/index.ts';

export const DEFAULT_DEMO_PORT = 18943;

export interface DemoOptions {
  room: boolean;
  once: boolean;
  port: number;
  provider: LiveProviderName;
}

const OPTIONS = {
  room: { type: 'boolean' },
  once: { type: 'boolean' },
  port: { type: 'string' },
  provider: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const DEMO_HELP = `Usage: ./scripts/demo.sh [options]
       (the same: npm run demo -- [options], live-voice-bridge demo [options])

A whole simulated call on 127.0.0.1 with no accounts and no internet: fake Discord and fake
Gemini / OpenAI models in a child process, the real core in this one, and simulated people who say
scripted sentences that the fake model transcribes and answers. It prints the dashboard login link
and lines to paste into another terminal. Ctrl-C ends the call and removes the temporary home.

Options:
  --room             three simulated people: Olga (the owner), Priya (who talks over her once) and
                     Gus, a guest who opts out with /optout, so his words never reach the model or
                     the notes; live captions in the voice channel's chat. See the Room card.
  --provider NAME    the live model's fake: ${LIVE_PROVIDERS.join(', ')}
                     (default gemini, or DISCORD_VOICE_LIVE_PROVIDER)
  --port N           the dashboard and sidecar port (default ${DEFAULT_DEMO_PORT}, or DISCORD_VOICE_LIVE_PORT)
  --once             play one exchange (with --room: the room's scene once) and exit
  -h, --help         print this help`;

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The demo option nearest `typed` (`--rom` → `--room`), or null when none is close. */
export function nearestOption(typed: string): string | null {
  const bare = typed.replace(/^-+/, '').split('=')[0]!;
  const [best] = Object.keys(OPTIONS)
    .map((name) => ({ name, d: distance(bare, name) }))
    .sort((x, y) => x.d - y.d);
  return best && best.d <= 2 ? `--${best.name}` : null;
}

function usageError(message: string): { error: string } {
  return { error: `demo: ${message}. See ./scripts/demo.sh --help` };
}

/** What the demo was asked to do, `help`, or a one-line error (exit 2). */
export function parseDemoArgs(argv: string[], env: NodeJS.ProcessEnv): DemoOptions | 'help' | { error: string } {
  let values: { room?: boolean; once?: boolean; port?: string; provider?: string; help?: boolean };
  try {
    values = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const typed = /'([^' ]+)/.exec((err as Error).message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const near = nearestOption(typed);
      return usageError(`unknown option ${typed}${near ? ` (did you mean ${near}?)` : ''}`);
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
      return usageError(`unexpected argument ${JSON.stringify(typed)} (the demo takes options only)`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return usageError(`${typed || 'an option'} needs a value`);
    return usageError((err as Error).message.split('.')[0]!);
  }
  if (values.help) return 'help';
  const port = Number(values.port ?? env.DISCORD_VOICE_LIVE_PORT ?? DEFAULT_DEMO_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return usageError(
      `--port must be a port number, got ${JSON.stringify(values.port ?? env.DISCORD_VOICE_LIVE_PORT)}`,
    );
  // --provider wins, then the variable the demo's own banner names, then gemini.
  const provider = values.provider ?? (env.DISCORD_VOICE_LIVE_PROVIDER?.trim() || 'gemini');
  if (!isLiveProviderName(provider)) {
    const from = values.provider !== undefined ? '--provider' : 'DISCORD_VOICE_LIVE_PROVIDER';
    return usageError(`${from} must be one of ${LIVE_PROVIDERS.join(', ')}, got ${JSON.stringify(provider)}`);
  }
  return { room: Boolean(values.room), once: Boolean(values.once), port, provider };
}
