#!/usr/bin/env node
// Headless entry and thin CLI clients. `live-voice-bridge` with no command runs headless.
// Lean on purpose: the client commands (status, join, announce, schedule, …) load only the typed
// sidecar client, the address reader and the printers; the core (headless), the demo, the MCP bridge
// and the helper tools are imported when their command runs, so a client call starts in ~100 ms.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { NotifyRequest } from './core/api-types.ts';
import type { ScheduleRequestBody, SidecarResponse } from './core/sidecar-client/client.ts';
import { AddressError, readSidecarAddress } from './cli/address.ts';
import { parseAt, parseIn, resolveZone, TimeInputError } from './cli/human-time.ts';
import { handedLine, notifyLine, scheduledLine, scheduleTable, statusSummary } from './cli/output.ts';
import { talkRequest } from './cli/talk-command.ts';
import { errorMessageOf, EXIT, notifyVerdict, sidecarClient, SidecarNoAnswerError, SidecarUnavailableError, type SidecarAddress } from './cli/sidecar-client.ts';

const USAGE = `live-voice-bridge — talk with a live speech model in Discord voice; steer it over a loopback sidecar.

Usage:
  live-voice-bridge [headless]                 run the core and the sidecar (prints the dashboard login URL)
  live-voice-bridge status                     one screen: the call, the microphone, the next reminder, problems
  live-voice-bridge join [--guild ID --channel ID]   start a call (default: the voice channel the owner is in)
  live-voice-bridge leave                      end the call
  live-voice-bridge announce "text"            the model SAYS this, word for word, at the next pause
  live-voice-bridge ask "text"                 a message TO the model: it answers (e.g. ask "Tell me a joke")
  live-voice-bridge say "text"                 the same as announce (the spec's /say)
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
  live-voice-bridge health                     print GET /health (JSON)
  live-voice-bridge tool NAME < args.json      run a helper tool (sora_redact, ...) on JSON from stdin
  live-voice-bridge mute on|off                mute or unmute: while muted no voice reaches the model
  live-voice-bridge ptt down|up|on|off         push-to-talk: hold/release the talk key, or switch the mode on/off
  live-voice-bridge dashboard                  print a fresh one-time dashboard login URL
  live-voice-bridge mcp                        MCP over stdio for agents (relays to the running sidecar's /mcp)
  live-voice-bridge demo                       a whole simulated call on local fakes (no accounts)

Output: sentences and tables on a terminal; JSON with --json, or whenever the output is not a terminal.
Configuration comes from the environment and ./.env (see README).

notify and schedule send an Idempotency-Key (generated unless --idempotency-key is given): running the
same command again with the same key gets the first answer and never delivers or schedules twice
(the sidecar keeps /notify keys in memory for 24 h, /schedule keys in the schedule file).

Exit codes:
  0  ok (notify: delivered, status "ok")
  1  the sidecar answered with an error; notify: not delivered (status "error"), safe to send again
  2  bad usage or configuration
  3  the sidecar is not running (nothing was sent)
  4  notify: partly delivered (status "partial"); sending again would deliver it twice where it arrived
  5  notify: may have been delivered (status "unknown"); it was not re-sent, do not send it again
  6  no answer in time: the request may still be carried out (outcome unknown); notify/schedule print
     their key: repeat the same command with --idempotency-key KEY to get the answer without sending twice`;

/** Worst case of a synchronous /notify under auto: voice bound, two Discord sends, webhook retries. */
const NOTIFY_TIMEOUT_MS = 180_000;

class UsageError extends Error {}

function address(): SidecarAddress {
  return readSidecarAddress(process.env, path.resolve('.env'));
}

/** How to print: JSON for scripts (asked for, or stdout is no terminal), sentences and tables for people. */
interface Output {
  json: boolean;
  width: number;
}

function print(out: Output, body: unknown, human: () => string): void {
  process.stdout.write(out.json ? `${JSON.stringify(body, null, 2)}\n` : `${human()}\n`);
}

/** An error answer → stderr and exit 1; else the printer's output and exit 0. */
function answer<Body>(out: Output, response: SidecarResponse<Body>, human: (body: Body) => string): number {
  if (response.status >= 400) {
    process.stderr.write(`error ${response.status}: ${errorMessageOf(response.body)}\n`);
    return EXIT.failed;
  }
  print(out, response.body, () => human(response.body));
  return EXIT.ok;
}

/** What the sidecar accepts as an Idempotency-Key (routes/notify.ts): 1–200 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

/** The caller's --idempotency-key, or a fresh one. */
function idempotencyKeyFrom(given: string | undefined): string {
  if (given === undefined) return `cli-${randomUUID()}`;
  if (!IDEMPOTENCY_KEY.test(given)) throw new UsageError('--idempotency-key: 1 to 200 visible ASCII characters (no spaces)');
  return given;
}

/**
 * POST /notify or /schedule with an Idempotency-Key. With no answer in time the key is printed, so
 * the same command run again with it gets the first request's answer instead of a second delivery.
 */
async function postKeyed<Body>(route: '/notify' | '/schedule', send: () => Promise<SidecarResponse<Body>>, key: string): Promise<SidecarResponse<Body> | number> {
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
  const client = sidecarClient(address());
  // Both at once; reminders need the token, and without one the summary still shows the rest.
  const [health, reminders] = await Promise.all([client.health(), client.hasToken ? client.listSchedule({ state: 'scheduled', limit: 1 }) : null]);
  if (health.status >= 400) return answer(out, health, () => '');
  const page = reminders && reminders.status < 400 ? reminders.body : null;
  const now = Date.now() / 1000;
  print(out, { health: health.body, reminders: page }, () => statusSummary(health.body, page, resolveZone(undefined), now));
  return EXIT.ok;
}

async function schedule(rest: string[], out: Output): Promise<number> {
  const { values, positionals } = parseArgs({
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
  const client = sidecarClient(address());
  const now = Date.now() / 1000;
  if (values.list) {
    const zone = resolveZone(values.tz);
    return answer(out, await client.listSchedule({ cursor: values.cursor }), (page) => scheduleTable(page, zone, now, out.width));
  }
  if (values.cancel) {
    return answer(out, await client.cancelSchedule(values.cancel), (body) => `Cancelled ${body.cancelled}${body.entry.repeat ? ' (the whole series)' : ''}: ${body.entry.text}`);
  }
  const text = textOf(positionals, 'schedule needs the text, and --in 10m, --at 09:30 or --repeat RULE (or --list / --cancel ID)');
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
    request.delay_seconds = at.delaySeconds;
  } else {
    throw new UsageError('schedule needs a time: --in 10m, --at 09:30 (or "tomorrow 9:00"), or --repeat daily|weekdays|"CRON"');
  }
  const key = idempotencyKeyFrom(values['idempotency-key']);
  const response = await postKeyed('/schedule', () => client.schedule(request, { headers: { 'idempotency-key': key } }), key);
  if (typeof response === 'number') return response;
  return answer(out, response, (created) => scheduledLine(created, zone, now));
}

async function notify(rest: string[], out: Output): Promise<number> {
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { mode: { type: 'string' }, title: { type: 'string' }, urgent: { type: 'boolean' }, 'idempotency-key': { type: 'string' } } });
  const text = textOf(positionals, 'notify needs the text to deliver');
  const key = idempotencyKeyFrom(values['idempotency-key']);
  const client = sidecarClient(address());
  // /notify answers with the final outcome: a voice text may wait for a pause (20 s), then the other modes.
  const request = { text, mode: (values.mode ?? 'auto') as NotifyRequest['mode'], title: values.title, urgent: values.urgent, source: 'cli' };
  const response = await postKeyed('/notify', () => client.notify(request, { timeoutMs: NOTIFY_TIMEOUT_MS, headers: { 'idempotency-key': key } }), key);
  if (typeof response === 'number') return response;
  if (answer(out, response, notifyLine) !== EXIT.ok) return EXIT.failed;
  const verdict = notifyVerdict(response.body);
  if (verdict.message) process.stderr.write(`live-voice-bridge: ${verdict.message}\n`);
  return verdict.exitCode;
}

async function main(argv: string[]): Promise<number> {
  const [command = 'headless', ...args] = argv;
  // --json anywhere after the command; a `--` ends the options (text may then start with a dash).
  const end = args.indexOf('--');
  const options = end < 0 ? args : args.slice(0, end);
  const rest = options.filter((a) => a !== '--json').concat(end < 0 ? [] : args.slice(end));
  const out: Output = { json: options.includes('--json') || !process.stdout.isTTY, width: process.stdout.columns || 100 };
  switch (command) {
    case 'headless': {
      const { runHeadlessCommand } = await import('./cli/headless.ts');
      return runHeadlessCommand();
    }
    case 'calls':
    case 'notes': {
      const { notesRequest } = await import('./cli/notes-command.ts');
      const request = notesRequest(command, rest);
      const response = await sidecarClient(address()).request('GET', request.path);
      return answer(request.raw ? { ...out, json: false } : out, response, (body) => request.render(body, out.width).replace(/\n$/, ''));
    }
    case 'health':
      return answer({ ...out, json: true }, await sidecarClient(address()).health(), () => '');
    case 'status':
      return status(out);
    case 'join': {
      const { values } = parseArgs({ args: rest, options: { guild: { type: 'string' }, channel: { type: 'string' } } });
      if ((values.guild === undefined) !== (values.channel === undefined)) throw new UsageError('join: give both --guild ID and --channel ID, or neither');
      const target = values.guild && values.channel ? { guild_id: values.guild, channel_id: values.channel } : undefined;
      return answer(out, await sidecarClient(address()).join(target), () => 'In the call: the model hears the voice channel now.');
    }
    case 'leave':
      return answer(out, await sidecarClient(address()).leave('cli'), (body) => (body.stopped ? 'Left the call.' : 'There was no call to leave.'));
    case 'say':
    case 'announce':
    case 'ask': {
      const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
      const text = textOf(positionals, command === 'ask' ? 'ask needs the message for the model' : `${command} needs the text for the model to say`);
      return answer(out, await sidecarClient(address()).hand(command === 'ask' ? 'message' : 'announce', text, 'cli'), handedLine);
    }
    case 'notify':
      return notify(rest, out);
    case 'schedule':
      return schedule(rest, out);
    case 'mute':
    case 'ptt': {
      const request = talkRequest(command, rest[0]);
      if ('error' in request) throw new UsageError(request.error);
      return answer(out, await sidecarClient(address()).request('POST', request.route, request.body), () =>
        command === 'mute' ? (rest[0] === 'on' ? 'Muted: no voice reaches the model.' : 'Unmuted: the model hears the call.') : `Push-to-talk: ${rest[0]}.`,
      );
    }
    case 'dashboard': {
      const response = await sidecarClient(address()).loginUrl();
      if (response.status >= 400) throw new Error(errorMessageOf(response.body));
      process.stdout.write(`${response.body.url}\n`);
      return 0;
    }
    case 'tool': {
      const { runToolCommand } = await import('./core/tools/cli-tool.ts');
      return runToolCommand(rest, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
    }
    case 'mcp': {
      const { runStdioBridge } = await import('./core/sidecar-client/mcp-stdio-bridge.ts');
      await runStdioBridge({ client: sidecarClient(address()), warn: (line) => process.stderr.write(`live-voice-bridge mcp: ${line}\n`) });
      return 0;
    }
    case 'demo': {
      // The demo and the fakes it runs on live in main/demo and main/fakes; loaded only on demand,
      // and not shipped in the installed app (electron-builder.yml), which says so instead of a trace.
      const demo = await import('./demo/run-demo.ts').catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
        return null;
      });
      if (demo === null) {
        process.stderr.write('live-voice-bridge demo: the demo is not part of the installed app; run it from a checkout (README Quick start)\n');
        return 2;
      }
      return demo.runDemo(rest);
    }
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE + '\n');
      return 0;
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    // parseArgs refuses an unknown option or a missing value with a TypeError carrying this code.
    const badOption = (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true;
    if (err instanceof AddressError || err instanceof UsageError || err instanceof TimeInputError || (err as Error).name === 'NotesUsageError' || badOption) {
      const usage = err instanceof UsageError || badOption;
      process.stderr.write(`live-voice-bridge: ${(err as Error).message}\n${usage ? '\n' + USAGE + '\n' : ''}`);
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
