// The CLI's help and its usage mistakes. A mistake is one line that says what was wrong (with a
// "did you mean" for a misspelt option or command) and a pointer to --help, exit 2: the whole help
// after the one useful line buried it, and Node's parser text for an unknown option ("place it at
// the end of the command after '--'…") answered a question nobody asked.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CodedError } from '../core/contracts/coded-error.ts';

export const USAGE = `live-voice-bridge — talk with a live speech model in Discord voice; steer it over a loopback sidecar.

Usage:
  live-voice-bridge [headless]                 run the core and the sidecar (prints the dashboard login URL)
  live-voice-bridge status                     one screen: the call, the microphone, the next reminder, problems
  live-voice-bridge join [--guild ID --channel ID]   start a call (default: the voice channel the owner is in)
  live-voice-bridge leave                      end the call
  live-voice-bridge announce [--no-wait] "text"   the model SAYS this, word for word, at the next pause;
                                               waits and prints the outcome (Spoken. / Cut off after "…" / why not)
  live-voice-bridge ask [--no-wait] "text"     a message TO the model: it answers (e.g. ask "Tell me a joke")
  live-voice-bridge say [--no-wait] "text"     the same as announce (the spec's /say)
  live-voice-bridge notify [--mode M] [--title T] [--urgent] [--idempotency-key K] "text"
                                               deliver a notification (M: voice, dm, channel, webhook, auto, all)
  live-voice-bridge schedule --in 10m|1h30m|90 [--mode M] "text"       once, after a while (a bare number is seconds)
  live-voice-bridge schedule --at 09:30|"tomorrow 9:00"|"2026-12-01 08:15" [--tz ZONE] "text"   once, at a time
  live-voice-bridge schedule --repeat daily|weekdays|"CRON" [--at HH:MM] [--tz ZONE] "text"     again and again
  live-voice-bridge schedule --list [--cursor C] | schedule --cancel ID
                                               (creating takes --idempotency-key K too; ZONE: an IANA name
                                               such as Europe/Berlin, default this machine's)
  live-voice-bridge calls [--limit N] [--before C]   past calls, newest first
  live-voice-bridge notes search "words" [--since EPOCH_S]   full-text search of every past call
  live-voice-bridge notes export CALL [--md]   one call with its summary (JSON, or Markdown)
  live-voice-bridge health                     the health report: a summary on a terminal, JSON with --json
  live-voice-bridge tool NAME < args.json      run a helper tool (sora_redact, ...) on JSON from stdin
  live-voice-bridge mute on|off                mute or unmute: while muted no voice reaches the model
  live-voice-bridge ptt down|up|on|off         push-to-talk: hold/release the talk key, or switch the mode on/off
  live-voice-bridge patience [quick|natural|patient|MS]   how long a pause may last before the service ends
                                               your turn: show it and each speaker's learnt one, or save it
                                               (the next call takes it; MS: 200-5000)
  live-voice-bridge patience reset NAME|ID     forget what was learnt of one speaker's pauses
  live-voice-bridge dashboard                  print a fresh one-time dashboard login URL
  live-voice-bridge mcp                        MCP over stdio for agents (relays to the running sidecar's /mcp)
  live-voice-bridge demo [--room] [--provider NAME]   a whole simulated call on local fakes (no accounts);
                                               --room: three named people; demo --help: all its options

Output: sentences and tables on a terminal (times as 2026-12-02 09:00 Europe/Berlin); JSON with --json,
or whenever the output is not a terminal, with an ISO 8601 time beside each epoch field (docs/sidecar.md).
Configuration comes from the environment and ./.env (see README).

notify and schedule send an Idempotency-Key (generated unless --idempotency-key is given): running the
same command again with the same key gets the first answer and never delivers or schedules twice
(the sidecar keeps /notify keys in memory for 24 h, /schedule keys in the schedule file).

Exit codes:
  0  ok (notify: delivered, status "ok"; announce/ask/say: spoken)
  1  the sidecar answered with an error; notify: not delivered (status "error"), safe to send again;
     announce/ask/say: not spoken (dropped)
  2  bad usage or configuration (including a token the sidecar refuses)
  3  the sidecar is not running (nothing was sent)
  4  notify: partly delivered (status "partial"); sending again would deliver it twice where it arrived;
     announce/ask/say: cut off part-way
  5  notify: may have been delivered (status "unknown"); it was not re-sent, do not send it again
  6  no answer in time: the request may still be carried out (outcome unknown); notify/schedule print
     their key: repeat the same command with --idempotency-key KEY to get the answer without sending twice`;

/** The commands, for "did you mean" on an unknown one. */
export const COMMANDS = [
  'headless',
  'status',
  'calls',
  'notes',
  'join',
  'leave',
  'announce',
  'ask',
  'say',
  'notify',
  'schedule',
  'health',
  'tool',
  'mute',
  'ptt',
  'patience',
  'dashboard',
  'mcp',
  'demo',
  'help',
] as const;

/** A usage mistake: one line, printed with a pointer to --help (exit 2). */
export class UsageError extends CodedError {
  constructor(message: string) {
    super('usage', message);
  }
}

/** The pointer printed under a usage mistake. */
export const HELP_POINTER = 'Every command and option: live-voice-bridge --help';

/** Edit distance (insert, delete, replace, swap two neighbours): how far a typo is from a word. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate a typo most likely meant: a prefix of it or it of one, or within a third of its length. */
export function closest(typed: string, candidates: readonly string[]): string | null {
  const word = typed.toLowerCase();
  const prefixed = candidates.filter((c) => word.length >= 2 && (c.startsWith(word) || word.startsWith(c)));
  if (prefixed.length === 1) return prefixed[0]!;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(word, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== null && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : null;
}

export function unknownCommand(command: string): UsageError {
  const meant = closest(command, COMMANDS);
  return new UsageError(`unknown command ${JSON.stringify(command)}${meant ? ` (did you mean ${meant}?)` : ''}`);
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** What parseArgs' error says was typed: `Unknown option '--mod'. …` → `--mod`. */
function quotedIn(message: string): string | undefined {
  return /'([^']+)'/.exec(message)?.[1];
}

/** parseArgs' refusal, worded for a person: the option typed, and what was likely meant. */
function parseMistake(command: string, options: Options, err: NodeJS.ErrnoException): UsageError {
  const names = Object.keys(options);
  const typed = quotedIn(err.message) ?? '';
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const meant = closest(typed.replace(/^-+/, ''), names);
    const known = names.length ? `; its options: ${names.map((n) => `--${n}`).join(', ')}` : ' (it takes no options)';
    return new UsageError(
      `${command}: unknown option ${typed}${meant ? ` (did you mean --${meant}?)` : `${known}; text that starts with "-" goes after --`}`,
    );
  }
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = typed.split(' ')[0] ?? typed;
    const type = options[option.replace(/^-+/, '')]?.type;
    return new UsageError(
      type === 'boolean' ? `${command}: ${option} takes no value` : `${command}: ${option} needs a value`,
    );
  }
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return new UsageError(`${command} takes no text (got ${JSON.stringify(typed)})`);
  return new UsageError(`${command}: ${err.message}`);
}

/** parseArgs for `command`, its mistakes as one-line UsageErrors. */
export function parseOptions<T extends ParseArgsConfig & { args: string[]; options: Options }>(
  command: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS'))
      throw parseMistake(command, config.options, err as NodeJS.ErrnoException);
    throw err;
  }
}
