#!/usr/bin/env node
// Headless entry and thin CLI clients. `live-voice-bridge` with no command runs headless.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './core/config/index.ts';
import { createLogger } from './core/log/logger.ts';
import { SHUTDOWN_BUDGET_MS, startCore } from './core/core.ts';
import { handleShutdownSignals } from './core/shutdown-signals.ts';
import { installLastResortHandlers } from './core/process-guard.ts';
import { createConfSettingsStore } from './core/settings/conf-store.ts';
import { startRestartableCore } from './core/setup/restartable-core.ts';
import { privateFileVault } from './core/setup/private-file-vault.ts';
import { DashboardSessions } from './core/sidecar/sessions.ts';
import { redactText } from './core/tools/helpers/index.ts';
import { terminalLogFormat, unconfiguredParagraph } from './cli/terminal.ts';
import { talkRequest } from './cli/talk-command.ts';
import { callSidecar, errorMessageOf, EXIT, notifyVerdict, sidecarBaseUrl, sidecarToken, SidecarNoAnswerError, SidecarUnavailableError } from './cli/sidecar-client.ts';

const USAGE = `live-voice-bridge — talk with a live speech model in Discord voice; steer it over a loopback sidecar.

Usage:
  live-voice-bridge [headless]                 run the core and the sidecar (prints the dashboard login URL)
  live-voice-bridge health                     print GET /health
  live-voice-bridge say "text"                 the model speaks this in its next turn
  live-voice-bridge notify [--mode M] [--title T] [--idempotency-key K] "text"
                                               deliver a notification (M: voice, dm, channel, webhook, auto, all)
  live-voice-bridge schedule --in SECONDS [--mode M] "text" | schedule --repeat daily|weekdays|"CRON" [--at HH:MM] [--tz ZONE] "text" | schedule --list | schedule --cancel ID
                                               (creating takes --idempotency-key K too)
  live-voice-bridge tool NAME < args.json      run a helper tool (sora_redact, ...) on JSON from stdin
  live-voice-bridge mute on|off                mute or unmute: while muted no voice reaches the model
  live-voice-bridge ptt down|up|on|off         push-to-talk: hold/release the talk key, or switch the mode on/off
  live-voice-bridge dashboard                  print a fresh one-time dashboard login URL
  live-voice-bridge mcp                        MCP over stdio for agents (relays to the running sidecar's /mcp)
  live-voice-bridge demo                       a whole simulated call on local fakes (no accounts)

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

function loadCliConfig(): Config {
  return loadConfig({ env: process.env, envFile: path.resolve('.env') });
}

async function runHeadless(): Promise<number> {
  // Settings saved from the dashboard live under the agent home, which the environment names:
  // read the environment once to find them, then load again with them on top.
  const envConfig = loadCliConfig();
  // No keychain here: secrets typed on /setup go to the settings file, owner-only (0600).
  const settingsStore = createConfSettingsStore({ dir: envConfig.paths.voiceUsers, vault: privateFileVault() });
  const load = async () => loadConfig({ env: process.env, envFile: path.resolve('.env'), settings: await settingsStore.configValues(), settingsFile: path.join(envConfig.paths.voiceUsers, 'settings.json') });
  const config = await load();
  const logger = createLogger({ level: config.logLevel, secrets: config.secretValues, redactText, ...terminalLogFormat(config.logFormat, process.stderr, process.env) });
  installLastResortHandlers(logger);
  // "Restart now" on the page restarts the core in this process with the saved settings; dashboard
  // sign-ins survive it, so the page reconnects by itself.
  const sessions = new DashboardSessions();
  // Neither the saved settings nor the previous ones start after a restart: nothing runs, so exit 1.
  let exitLost: (code: number) => void = (code) => void (process.exitCode = code);
  const running = await startRestartableCore({
    initial: config,
    load,
    start: (next, restart, lastRestart) => startCore({ config: next, logger, settingsStore, environment: process.env, restart, lastRestart, sessions }),
    onRestarted: (next) => process.stdout.write(`Restarted with the saved settings: sidecar on ${next.sidecarUrl}\n`),
    onFailed: (err) => logger.error({ problems: err instanceof ConfigError ? err.problems : [err instanceof Error ? err.message : String(err)] }, 'restart: the saved settings were not applied; the core runs with the previous ones'),
    onLost: (err) => {
      logger.fatal({ problems: [err.message] }, 'restart: no core could be started; exiting');
      exitLost(1);
    },
  });
  process.stdout.write(`Live Voice Bridge sidecar on ${running.core.sidecarUrl} — dashboard: ${running.core.loginUrl()}\n`);
  const unconfigured = unconfiguredParagraph(running.core.missing, path.resolve('.env'));
  if (unconfigured) process.stdout.write(`\n${unconfigured}\n\n`);
  return await new Promise<number>((resolve) => {
    exitLost = resolve;
    // Ours alone: no library may re-raise the signal or exit on our behalf (see shutdown-signals.ts).
    handleShutdownSignals((signal) => {
      logger.info({ signal }, 'shutting down');
      // core.stop() bounds itself (SHUTDOWN_BUDGET_MS); this is the net under it.
      setTimeout(() => {
        logger.error('shutdown did not finish in time; exiting');
        resolve(0);
      }, SHUTDOWN_BUDGET_MS + 1000).unref();
      // A restart in progress finishes first, so the core it starts is the one stopped.
      running.settled().then(() => running.core.stop()).then(
        () => resolve(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          resolve(1);
        },
      );
    });
  });
}

async function printSidecar(method: 'GET' | 'POST' | 'DELETE', route: string, body?: unknown, timeoutMs?: number): Promise<number> {
  const response = await callSidecar(loadCliConfig(), method, route, body, timeoutMs);
  if (response.status >= 400) {
    process.stderr.write(`error ${response.status}: ${errorMessageOf(response.body)}\n`);
    return EXIT.failed;
  }
  process.stdout.write(JSON.stringify(response.body, null, 2) + '\n');
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
async function postKeyed(route: '/notify' | '/schedule', body: unknown, key: string, timeoutMs?: number): Promise<number> {
  const what = route === '/notify' ? 'the notification may still be delivered' : 'the entry may have been scheduled';
  // /notify keys live in the sidecar's memory, /schedule keys in the schedule file (routes/notify.ts).
  const kept = route === '/notify' ? ' (the sidecar remembers it until it restarts)' : ' (remembered for 24 h)';
  let response;
  try {
    response = await callSidecar(loadCliConfig(), 'POST', route, body, timeoutMs, { 'idempotency-key': key });
  } catch (err) {
    if (!(err instanceof SidecarNoAnswerError)) throw err;
    process.stderr.write(
      `live-voice-bridge: ${err.message}: ${what}. Do not send it again as a new request; to get its outcome without ` +
        `doing it twice, run the same command again with --idempotency-key ${key}${kept}\n`,
    );
    return EXIT.noAnswer;
  }
  if (response.status >= 400) {
    process.stderr.write(`error ${response.status}: ${errorMessageOf(response.body)}\n`);
    return EXIT.failed;
  }
  process.stdout.write(JSON.stringify(response.body, null, 2) + '\n');
  if (route !== '/notify') return EXIT.ok;
  const verdict = notifyVerdict(response.body);
  if (verdict.message) process.stderr.write(`live-voice-bridge: ${verdict.message}\n`);
  return verdict.exitCode;
}

async function main(argv: string[]): Promise<number> {
  const [command = 'headless', ...rest] = argv;
  switch (command) {
    case 'headless':
      return runHeadless();
    case 'health':
      return printSidecar('GET', '/health');
    case 'say': {
      const text = rest.join(' ').trim();
      if (!text) throw new UsageError('say needs the text to speak');
      return printSidecar('POST', '/say', { text });
    }
    case 'notify': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { mode: { type: 'string' }, title: { type: 'string' }, urgent: { type: 'boolean' }, 'idempotency-key': { type: 'string' } } });
      const text = positionals.join(' ').trim();
      if (!text) throw new UsageError('notify needs the text to deliver');
      const key = idempotencyKeyFrom(values['idempotency-key']);
      // /notify answers with the final outcome: a voice text may wait for a pause (20 s), then the other modes.
      return postKeyed('/notify', { text, mode: values.mode ?? 'auto', title: values.title, urgent: values.urgent, source: 'cli' }, key, NOTIFY_TIMEOUT_MS);
    }
    case 'schedule': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { in: { type: 'string' }, mode: { type: 'string' }, title: { type: 'string' }, list: { type: 'boolean' }, cancel: { type: 'string' }, repeat: { type: 'string' }, at: { type: 'string' }, tz: { type: 'string' }, 'idempotency-key': { type: 'string' } },
      });
      if (values.list) return printSidecar('GET', '/schedule');
      if (values.cancel) return printSidecar('DELETE', `/schedule/${encodeURIComponent(values.cancel)}`);
      const text = positionals.join(' ').trim();
      if (!text || (values.in === undefined && values.repeat === undefined)) throw new UsageError('schedule needs --in SECONDS (or --repeat RULE) and the text (or --list / --cancel ID)');
      const repeat = values.repeat === undefined ? {} : { repeat: values.repeat, at: values.at, timezone: values.tz };
      const key = idempotencyKeyFrom(values['idempotency-key']);
      return postKeyed('/schedule', { text, delay_seconds: values.in === undefined ? undefined : Number(values.in), mode: values.mode ?? 'auto', title: values.title, source: 'cli', ...repeat }, key);
    }
    case 'mute':
    case 'ptt': {
      const request = talkRequest(command, rest[0]);
      if ('error' in request) throw new UsageError(request.error);
      return printSidecar('POST', request.route, request.body);
    }
    case 'dashboard': {
      const response = await callSidecar(loadCliConfig(), 'POST', '/login/url');
      if (response.status >= 400) throw new Error(errorMessageOf(response.body));
      process.stdout.write(`${(response.body as { url: string }).url}\n`);
      return 0;
    }
    case 'tool': {
      const { runToolCommand } = await import('./core/tools/cli-tool.ts');
      return runToolCommand(rest, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
    }
    case 'mcp': {
      const config = loadCliConfig();
      const { runStdioBridge } = await import('./core/mcp/stdio-bridge.ts');
      await runStdioBridge({ url: `${sidecarBaseUrl(config)}/mcp`, token: sidecarToken(config), warn: (line) => process.stderr.write(`live-voice-bridge mcp: ${line}\n`) });
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

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ConfigError || err instanceof UsageError) {
      process.stderr.write(`live-voice-bridge: ${err.message}\n${err instanceof UsageError ? '\n' + USAGE + '\n' : ''}`);
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
