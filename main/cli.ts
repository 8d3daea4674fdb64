#!/usr/bin/env node
// Headless entry and thin CLI clients. `live-voice-bridge` with no command runs headless.
// Lean on purpose: the client commands (status, join, announce, schedule, …) load only the typed
// sidecar client, the address reader and the printers; the core (headless), the demo, the MCP bridge
// and the helper tools are imported when their command runs, so a client call starts in ~100 ms.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { NotifyRequest } from './core/api-types.ts';
import type { ScheduleRequestBody, SidecarClient, SidecarResponse } from './core/sidecar-client/client.ts';
import { AddressError, readSidecarAddress } from './cli/address.ts';
import { sidecarErrorLine, type ErrorContext } from './cli/errors.ts';
import { parseAt, parseIn, resolveZone, TimeInputError } from './cli/human-time.ts';
import { withIsoTimes } from './cli/json-times.ts';
import { handedLine, healthSummary, notifyLine, scheduledLine, scheduleTable, statusSummary } from './cli/output.ts';
import { talkRequest } from './cli/talk-command.ts';
import {
  EXIT,
  notifyVerdict,
  sidecarClient,
  SidecarNoAnswerError,
  SidecarUnavailableError,
  tokenSource,
} from './cli/sidecar-client.ts';
import { HELP_POINTER, parseOptions, unknownCommand, USAGE, UsageError } from './cli/usage.ts';

/** Worst case of a synchronous /notify under auto: voice bound, two Discord sends, webhook retries. */
const NOTIFY_TIMEOUT_MS = 180_000;

/** The running sidecar's client, and what an error line needs to say where the token came from. */
interface Sidecar {
  client: SidecarClient;
  context: ErrorContext;
}

function connect(): Sidecar {
  const config = readSidecarAddress(process.env, path.resolve('.env'));
  return { client: sidecarClient(config), context: { token: tokenSource(config) } };
}

/** How to print: JSON for scripts (asked for, or stdout is no terminal), sentences and tables for people. */
interface Output {
  json: boolean;
  width: number;
}

function print(out: Output, body: unknown, human: () => string): void {
  process.stdout.write(out.json ? `${JSON.stringify(withIsoTimes(body), null, 2)}\n` : `${human()}\n`);
}

/**
 * An error answer → its line on stderr (words, then the code: cli/errors.ts); exit 2 for a refused
 * token (configuration), else 1.
 */
function failed(sidecar: Sidecar, response: SidecarResponse, extra: ErrorContext = {}): number {
  process.stderr.write(
    `${sidecarErrorLine(response.status, response.body, { ...sidecar.context, ...extra }, sidecar.client.baseUrl)}\n`,
  );
  return response.status === 401 ? EXIT.usage : EXIT.failed;
}

/** An error answer → failed(); else the printer's output and exit 0. */
function answer<Body>(
  out: Output,
  sidecar: Sidecar,
  response: SidecarResponse<Body>,
  human: (body: Body) => string,
  extra: ErrorContext = {},
): number {
  if (response.status >= 400) return failed(sidecar, response, extra);
  print(out, response.body, () => human(response.body));
  return EXIT.ok;
}

/** What the sidecar accepts as an Idempotency-Key (routes/notify.ts): 1–200 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

/** The caller's --idempotency-key, or a fresh one. */
function idempotencyKeyFrom(given: string | undefined): string {
  if (given === undefined) return `cli-${randomUUID()}`;
  if (!IDEMPOTENCY_KEY.test(given))
    throw new UsageError('--idempotency-key: 1 to 200 visible ASCII characters (no spaces)');
  return given;
}

/**
 * POST /notify or /schedule with an Idempotency-Key. With no answer in time the key is printed, so
 * the same command run again with it gets the first request's answer instead of a second delivery.
 */
async function postKeyed<Body>(
  route: '/notify' | '/schedule',
  send: () => Promise<SidecarResponse<Body>>,
  key: string,
): Promise<SidecarResponse<Body> | number> {
  const what = route === '/notify' ? 'the notification may still be delivered' : 'the entry may have been scheduled';
  // /notify keys live in the sidecar's memory, /schedule keys in the schedule file (routes/notify.ts).
  const kept = route === '/notify' ? ' (the sidecar remembers it until it restarts)' : ' (remembered for 24 h)';
  try {
    return await send();
  } catch (err) {
    if (!(err instanceof SidecarNoAnswerError)) throw err;
    process.stderr.write(
      `live-voice-bridge: ${err.message}: ${what}. Do not send it again as a new request; to get its outcome without ` +
        `doing it twice, run the same command again with --idempotency-key ${key}${kept}\n`,
    );
    return EXIT.noAnswer;
  }
}

function textOf(positionals: string[], what: string): string {
  const text = positionals.join(' ').trim();
  if (!text) throw new UsageError(what);
  return text;
}

async function status(out: Output): Promise<number> {
  const sidecar = connect();
  const { client } = sidecar;
  // Both at once; reminders need the token, and without one the summary still shows the rest.
  // /health is public, so a refused token shows only here: it fails the command (never a screen
  // that says "ok" with the reminders silently missing).
  const [health, reminders] = await Promise.all([
    client.health(),
    client.hasToken ? client.listSchedule({ state: 'scheduled', limit: 1 }) : null,
  ]);
  if (health.status >= 400) return failed(sidecar, health);
  if (reminders && reminders.status >= 400) return failed(sidecar, reminders);
  // Without a token the reminders cannot be read: the screen says so instead of leaving the line out.
  const page = reminders
    ? reminders.body
    : `no sidecar token to read them with (${sidecar.context.token?.file ?? 'the token file'} does not exist or is empty)`;
  const now = Date.now() / 1000;
  print(out, { health: health.body, reminders: typeof page === 'string' ? null : page }, () =>
    statusSummary(health.body, page, resolveZone(undefined), now),
  );
  return EXIT.ok;
}

async function schedule(rest: string[], out: Output): Promise<number> {
  const { values, positionals } = parseOptions('schedule', {
    args: rest,
    allowPositionals: true,
    options: {
      in: { type: 'string' },
      at: { type: 'string' },
      tz: { type: 'string' },
      repeat: { type: 'string' },
      mode: { type: 'string' },
      title: { type: 'string' },
      list: { type: 'boolean' },
      cursor: { type: 'string' },
      cancel: { type: 'string' },
      'idempotency-key': { type: 'string' },
    },
  });
  const sidecar = connect();
  const { client } = sidecar;
  const now = Date.now() / 1000;
  if (values.list) {
    const zone = resolveZone(values.tz);
    return answer(out, sidecar, await client.listSchedule({ cursor: values.cursor }), (page) =>
      scheduleTable(page, zone, now, out.width),
    );
  }
  if (values.cancel) {
    const cancelled = await client.cancelSchedule(values.cancel);
    return answer(
      out,
      sidecar,
      cancelled,
      (body) => `Cancelled ${body.cancelled}${body.entry.repeat ? ' (the whole series)' : ''}: ${body.entry.text}`,
      { id: values.cancel },
    );
  }
  const text = textOf(
    positionals,
    'schedule needs the text, and --in 10m, --at 09:30 or --repeat RULE (or --list / --cancel ID)',
  );
  const request: ScheduleRequestBody = { text, mode: values.mode ?? 'auto', title: values.title, source: 'cli' };
  let zone = resolveZone(values.tz);
  if (values.repeat !== undefined) {
    if (values.in !== undefined) throw new UsageError('schedule: give --repeat (with --at HH:MM) or --in, not both');
    Object.assign(request, { repeat: values.repeat, at: values.at, timezone: zone });
  } else if (values.in !== undefined && values.at !== undefined) {
    throw new UsageError('schedule: give --in or --at, not both');
  } else if (values.in !== undefined) {
    request.delay_seconds = parseIn(values.in);
  } else if (values.at !== undefined) {
    const at = parseAt(values.at, { zone: values.tz });
    zone = at.zone;
    // The moment itself, not a delay the sidecar adds to its own clock: it fires at the second typed.
    request.fire_at_epoch = at.fireAt;
  } else {
    throw new UsageError(
      'schedule needs a time: --in 10m, --at 09:30 (or "tomorrow 9:00"), or --repeat daily|weekdays|"CRON"',
    );
  }
  const key = idempotencyKeyFrom(values['idempotency-key']);
  const response = await postKeyed(
    '/schedule',
    () => client.schedule(request, { headers: { 'idempotency-key': key } }),
    key,
  );
  if (typeof response === 'number') return response;
  return answer(out, sidecar, response, (created) => scheduledLine(created, zone, now));
}

async function notify(rest: string[], out: Output): Promise<number> {
  const { values, positionals } = parseOptions('notify', {
    args: rest,
    allowPositionals: true,
    options: {
      mode: { type: 'string' },
      title: { type: 'string' },
      urgent: { type: 'boolean' },
      'idempotency-key': { type: 'string' },
    },
  });
  const text = textOf(positionals, 'notify needs the text to deliver');
  const key = idempotencyKeyFrom(values['idempotency-key']);
  const sidecar = connect();
  const { client } = sidecar;
  // /notify answers with the final outcome: a voice text may wait for a pause (20 s), then the other modes.
  const request = {
    text,
    mode: (values.mode ?? 'auto') as NotifyRequest['mode'],
    title: values.title,
    urgent: values.urgent,
    source: 'cli',
  };
  const response = await postKeyed(
    '/notify',
    () => client.notify(request, { timeoutMs: NOTIFY_TIMEOUT_MS, headers: { 'idempotency-key': key } }),
    key,
  );
  if (typeof response === 'number') return response;
  if (response.status >= 400) return failed(sidecar, response);
  print(out, response.body, () => notifyLine(response.body));
  const verdict = notifyVerdict(response.body);
  if (verdict.message) process.stderr.write(`live-voice-bridge: ${verdict.message}\n`);
  return verdict.exitCode;
}

/** One command: its arguments after the command (`--json` taken out) and how to print. */
type Command = (rest: string[], out: Output) => Promise<number>;

async function headless(): Promise<number> {
  const { runHeadlessCommand } = await import('./cli/headless.ts');
  return runHeadlessCommand();
}

async function notes(command: 'calls' | 'notes', rest: string[], out: Output): Promise<number> {
  const { notesRequest } = await import('./cli/notes-command.ts');
  const request = notesRequest(command, rest);
  const sidecar = connect();
  const response = await sidecar.client.request('GET', request.path);
  return answer(request.raw ? { ...out, json: false } : out, sidecar, response, (body) =>
    request.render(body, out.width).replace(/\n$/, ''),
  );
}

async function health(_rest: string[], out: Output): Promise<number> {
  const sidecar = connect();
  return answer(out, sidecar, await sidecar.client.health(), (body) => healthSummary(body, Date.now() / 1000));
}

async function join(rest: string[], out: Output): Promise<number> {
  const { values } = parseOptions('join', {
    args: rest,
    options: { guild: { type: 'string' }, channel: { type: 'string' } },
  });
  if ((values.guild === undefined) !== (values.channel === undefined))
    throw new UsageError('join: give both --guild ID and --channel ID, or neither');
  const target = values.guild && values.channel ? { guild_id: values.guild, channel_id: values.channel } : undefined;
  const sidecar = connect();
  return answer(
    out,
    sidecar,
    await sidecar.client.join(target),
    () => 'In the call: the model hears the voice channel now.',
  );
}

async function leave(rest: string[], out: Output): Promise<number> {
  parseOptions('leave', { args: rest, options: {} });
  const sidecar = connect();
  return answer(out, sidecar, await sidecar.client.leave('cli'), (body) =>
    body.stopped ? 'Left the call.' : 'There was no call to leave.',
  );
}

/** say, announce, ask: a text handed to the model, then (by default) what became of it. */
async function hand(command: 'say' | 'announce' | 'ask', rest: string[], out: Output): Promise<number> {
  const { values, positionals } = parseOptions(command, {
    args: rest,
    allowPositionals: true,
    options: { 'no-wait': { type: 'boolean' } },
  });
  const text = textOf(
    positionals,
    command === 'ask' ? 'ask needs the message for the model' : `${command} needs the text for the model to say`,
  );
  const sidecar = connect();
  const handed = await sidecar.client.hand(command === 'ask' ? 'message' : command, text, 'cli');
  // By default the command waits for what became of it (spoken, cut, dropped: cli/say-command.ts).
  if (values['no-wait'] || handed.status >= 400) return answer(out, sidecar, handed, handedLine);
  if (!out.json) process.stdout.write(`${handedLine(handed.body)}\n`);
  const { waitForSpoken } = await import('./cli/say-command.ts');
  return waitForSpoken(sidecar.client, handed.body, {
    json: out.json,
    write: (line) => process.stdout.write(`${line}\n`),
    writeError: (line) => process.stderr.write(`${line}\n`),
  });
}

/** mute, ptt: on or off. */
async function talk(command: 'mute' | 'ptt', rest: string[], out: Output): Promise<number> {
  const request = talkRequest(command, rest[0]);
  if ('error' in request) throw new UsageError(request.error);
  const sidecar = connect();
  return answer(out, sidecar, await sidecar.client.request('POST', request.route, request.body), () =>
    command === 'mute'
      ? rest[0] === 'on'
        ? 'Muted: no voice reaches the model.'
        : 'Unmuted: the model hears the call.'
      : `Push-to-talk: ${rest[0]}.`,
  );
}

async function patience(rest: string[], out: Output): Promise<number> {
  const { runPatience } = await import('./cli/patience-run.ts');
  const sidecar = connect();
  return runPatience(rest, {
    client: sidecar.client,
    json: out.json,
    write: (line) => process.stdout.write(`${line}\n`),
    writeError: (line) => process.stderr.write(`${line}\n`),
    fail: (response) => failed(sidecar, response),
  });
}

async function dashboard(): Promise<number> {
  const sidecar = connect();
  const response = await sidecar.client.loginUrl();
  if (response.status >= 400) return failed(sidecar, response);
  process.stdout.write(`${response.body.url}\n`);
  return 0;
}

async function tool(rest: string[]): Promise<number> {
  const { runToolCommand } = await import('./core/tools/cli-tool.ts');
  return runToolCommand(rest, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
}

async function mcp(): Promise<number> {
  const { runStdioBridge } = await import('./core/sidecar-client/mcp-stdio-bridge.ts');
  await runStdioBridge({
    client: connect().client,
    warn: (line) => process.stderr.write(`live-voice-bridge mcp: ${line}\n`),
  });
  return 0;
}

async function demo(rest: string[]): Promise<number> {
  // The demo and the fakes it runs on live in main/demo and main/fakes; loaded only on demand,
  // and not shipped in the installed app (electron-builder.yml), which says so instead of a trace.
  const loaded = await import('./demo/run-demo.ts').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return null;
  });
  if (loaded === null) {
    process.stderr.write(
      'live-voice-bridge demo: the demo is not part of the installed app; run it from a checkout (README Quick start)\n',
    );
    return 2;
  }
  return loaded.runDemo(rest);
}

/** Every command by its name; a name not here is an unknown command. */
const COMMANDS: Readonly<Record<string, Command>> = {
  headless,
  calls: (rest, out) => notes('calls', rest, out),
  notes: (rest, out) => notes('notes', rest, out),
  health,
  status: (_rest, out) => status(out),
  join,
  leave,
  say: (rest, out) => hand('say', rest, out),
  announce: (rest, out) => hand('announce', rest, out),
  ask: (rest, out) => hand('ask', rest, out),
  notify,
  schedule,
  mute: (rest, out) => talk('mute', rest, out),
  ptt: (rest, out) => talk('ptt', rest, out),
  patience,
  dashboard,
  tool,
  mcp,
  demo,
  help: async () => help(),
  '--help': async () => help(),
  '-h': async () => help(),
};

async function main(argv: string[]): Promise<number> {
  const [command = 'headless', ...args] = argv;
  // --json anywhere after the command; a `--` ends the options (text may then start with a dash).
  const end = args.indexOf('--');
  const options = end < 0 ? args : args.slice(0, end);
  const rest = options.filter((a) => a !== '--json').concat(end < 0 ? [] : args.slice(end));
  const out: Output = {
    json: options.includes('--json') || !process.stdout.isTTY,
    width: process.stdout.columns || 100,
  };
  // `schedule --help` (any client command's) is the help, not an unknown option; the demo and tool have their own.
  if (command !== 'tool' && command !== 'demo' && (options.includes('--help') || options.includes('-h'))) return help();
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) throw unknownCommand(command);
  return run(rest, out);
}

function help(): number {
  process.stdout.write(USAGE + '\n');
  return EXIT.ok;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    // A usage mistake is one line and a pointer to --help (cli/usage.ts), never the whole help.
    if (err instanceof UsageError || err instanceof TimeInputError || (err as Error).name === 'NotesUsageError') {
      process.stderr.write(`live-voice-bridge: ${(err as Error).message}\n${HELP_POINTER}\n`);
      process.exit(EXIT.usage);
    }
    if (err instanceof AddressError) {
      process.stderr.write(`live-voice-bridge: ${err.message}\n`);
      process.exit(EXIT.usage);
    }
    if (err instanceof SidecarUnavailableError) {
      process.stderr.write(`live-voice-bridge: ${err.message}\n`);
      process.exit(EXIT.unavailable);
    }
    if (err instanceof SidecarNoAnswerError) {
      process.stderr.write(`live-voice-bridge: ${err.message}\n`);
      process.exit(EXIT.noAnswer);
    }
    process.stderr.write(`live-voice-bridge: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(EXIT.failed);
  },
);
