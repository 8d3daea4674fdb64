// `./scripts/demo.sh` / `npm run demo` / `live-voice-bridge demo`: a whole simulated call with no
// accounts and no internet. The fake Discord, the fake Gemini and the fake owner (who speaks every few
// seconds) run in a child process; this process runs the real core alone. Once the call is up it
// prints the dashboard login URL and lines to paste into another terminal, then the live transcript.
// Ctrl-C or SIGTERM ends the call, stops the fakes and removes the temporary agent home (token
// included). `--once` plays one exchange and exits (tests).
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { parseArgs } from 'node:util';
import type { NoteEvent } from '../core/api-types.ts';
import { isLiveProviderName, LIVE_PROVIDERS } from '../core/config/index.ts';
import { handleShutdownSignals } from '../core/shutdown-signals.ts';
import { findAppRoot } from '../core/sidecar/routes/dashboard.ts';
import { terminalLogFormat } from '../core/log/terminal-format.ts';
import { errorMessageOf, SidecarClient } from '../core/sidecar-client/client.ts';
import { startFakesChild, type FakesChild } from './fakes-child.ts';
import { startCoreOnFakes, type CoreOnFakes } from './simulated-call.ts';

const UTTERANCE_SECONDS = 2;
const TURN_EVERY_MS = 9_000;
const DEFAULT_PORT = 18943;

function formatNote(note: NoteEvent): string {
  const time = new Date(note.ts * 1000).toLocaleTimeString();
  // A `say` note is one request: `asked` (a message the model answers) or `announce` (words it says).
  const said = note.speaker?.endsWith('· message') ? 'asked' : 'announce';
  const who = note.kind === 'output_transcript' ? 'model' : note.kind === 'input_transcript' ? 'owner' : note.kind === 'say' ? said : note.kind;
  return `[${time}] ${who.padEnd(8)} ${note.text}`;
}

/** A word for a POSIX shell: left bare when it is safe, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The folder that puts `live-voice-bridge` on PATH without npx (npx alone costs a second or more per
 * call): bin/ holds a shim of that name (bin/live-voice-bridge). Null where it is missing (a package
 * that ships only the .js): the lines then fall back to npx.
 */
export function cliShimDir(projectRoot: string): string | null {
  const dir = path.join(projectRoot, 'bin');
  return existsSync(path.join(dir, 'live-voice-bridge')) ? dir : null;
}

/** Lines that work against this demo when pasted into another terminal, exactly as printed. */
export function pasteLines(facts: { projectRoot: string; nodeBinDir: string | null; shimDir?: string | null; port: number; tokenFile: string }): string[] {
  const lines = [`cd ${shellWord(facts.projectRoot)}`];
  const onPath = [facts.shimDir, facts.nodeBinDir].filter((dir): dir is string => Boolean(dir));
  if (onPath.length) lines.push(`export PATH=${onPath.map(shellWord).join(':')}:"$PATH"`);
  const cli = facts.shimDir ? 'live-voice-bridge' : 'npx live-voice-bridge';
  lines.push(
    `export DISCORD_VOICE_LIVE_PORT=${facts.port}`,
    `export DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE=${shellWord(facts.tokenFile)}`,
    `${cli} status`,
    `${cli} ask "Tell me a one-line joke"`,
    `${cli} announce "The build is green"`,
    `${cli} notify --mode voice "The build finished"`,
    'curl -sG -w "\\n" -H "Authorization: Bearer $(cat "$DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE")" --data-urlencode "limit=10" "http://127.0.0.1:$DISCORD_VOICE_LIVE_PORT/notes"',
  );
  return lines;
}

const FAKES_ENDED = 'fakes-exit';

/** What ended the demo's call, in words: a signal (Ctrl-C is SIGINT) or the fakes process dying. */
export function demoStopReason(trigger: string): string {
  if (trigger === FAKES_ENDED) return 'the fakes process ended';
  if (trigger === 'SIGINT') return 'interrupted (Ctrl-C, SIGINT)';
  return `signal ${trigger}`;
}

/** The test CA of the fake voice gateway (in the child) must be trusted here, where the core dials it. */
function trustFakeGateway(caPath: string): void {
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), readFileSync(caPath, 'utf8')]);
}

export async function runDemo(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { once: { type: 'boolean' }, port: { type: 'string' }, provider: { type: 'string' } } });
  const port = Number(values.port ?? process.env.DISCORD_VOICE_LIVE_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`demo: --port must be a port number, got ${JSON.stringify(values.port)}\n`);
    return 2;
  }
  // --provider wins, then the variable the demo's own banner names, then gemini.
  const envProvider = process.env.DISCORD_VOICE_LIVE_PROVIDER?.trim() || undefined;
  const provider = values.provider ?? envProvider ?? 'gemini';
  if (!isLiveProviderName(provider)) {
    const from = values.provider !== undefined ? '--provider' : 'DISCORD_VOICE_LIVE_PROVIDER';
    process.stderr.write(`demo: ${from} must be one of ${LIVE_PROVIDERS.join(', ')}, got ${JSON.stringify(provider)}\n`);
    return 2;
  }
  const out = (line: string) => process.stdout.write(line + '\n');

  // Signals are taken from the start, so Ctrl-C during start-up still cleans up; the first one ends
  // the demo and later ones (or ones a library re-raises) cannot kill it mid-cleanup.
  let requestStop: (signal: string) => void = () => undefined;
  let stopTrigger: string | undefined;
  const stopRequested = new Promise<string>(
    (resolve) =>
      (requestStop = (trigger) => {
        stopTrigger ??= trigger;
        resolve(trigger);
      }),
  );
  handleShutdownSignals((signal) => requestStop(signal));

  out('Live Voice Bridge demo: a simulated call on 127.0.0.1 (no accounts, no internet). Starting…');
  let fakes: FakesChild | undefined;
  let started: CoreOnFakes | undefined;
  let code = 0;
  let replies = 0;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe = () => undefined as void;
  let finishing = false;
  try {
    fakes = await startFakesChild();
    fakes.onExit((exitCode, signal) => {
      if (!finishing) {
        process.stderr.write(`demo: the fakes process ended unexpectedly (${signal ?? exitCode})\n`);
        code = 1;
        requestStop(FAKES_ENDED);
      }
    });
    trustFakeGateway(fakes.info.caPath);
    try {
      started = await startCoreOnFakes(fakes.info, { port, provider, logLevel: 'warn', logFormat: terminalLogFormat('auto', process.stderr, process.env) });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      process.stderr.write(`demo: port ${port} is in use (is the app already running?). Try: DISCORD_VOICE_LIVE_PORT=18950 ./scripts/demo.sh\n`);
      return 2;
    }
    const { core } = started;

    let resolveFirstReply: () => void = () => undefined;
    const firstReply = new Promise<void>((resolve) => (resolveFirstReply = resolve));
    const transcript: string[] = [];
    let live = false;
    unsubscribe = core.hub.subscribe((event) => {
      if (event.type !== 'note') return;
      const line = formatNote(event.data);
      if (live) out(line);
      else transcript.push(line);
      if (event.data.kind === 'output_transcript') {
        replies += 1;
        resolveFirstReply();
      }
    });

    const joined = await new SidecarClient({ baseUrl: core.sidecarUrl, token: core.token }).join();
    if (joined.status >= 300) {
      process.stderr.write(`demo: could not start the call: ${errorMessageOf(joined.body)}\n`);
      code = 1;
      return code;
    }

    const sidecarPort = Number(new URL(core.sidecarUrl).port);
    const projectRoot = findAppRoot();
    // The machine's own node may be older than the project needs: when this Node is the one the
    // Quick start put in .tools/, the pasted lines put it first on PATH too.
    const toolsNode = path.join(projectRoot, '.tools', 'node22', 'bin', 'node');
    const nodeBinDir = existsSync(toolsNode) && realpathSync(toolsNode) === realpathSync(process.execPath) ? path.dirname(toolsNode) : null;
    out('');
    out(`The call is up: fake Discord, fake Gemini, fake OpenAI Realtime and fake GPT-Live run in process ${fakes.pid}; this process (${process.pid}) is the core.`);
    out(`Live model: ${provider} (switch per call: DISCORD_VOICE_LIVE_PROVIDER or the dashboard settings).`);
    out('');
    out('Dashboard (a one-time login link):');
    out(`  ${core.loginUrl()}`);
    out('');
    out('In another terminal, paste:');
    const shimDir = cliShimDir(projectRoot);
    for (const line of pasteLines({ projectRoot, nodeBinDir, shimDir, port: sidecarPort, tokenFile: core.tokenFile })) out(`  ${line}`);
    out(`  ${shimDir ? '' : 'npx '}live-voice-bridge dashboard      # a fresh login link, when the one above was used`);
    out('');
    out(`The fake owner speaks every ${TURN_EVERY_MS / 1000} s. Ctrl-C ends the demo.`);
    out('');
    for (const line of transcript) out(line);
    live = true;

    const speak = () => void fakes?.ownerSpeaks(UTTERANCE_SECONDS).catch((err: unknown) => process.stderr.write(`demo: fake owner could not speak: ${String(err)}\n`));
    speak();
    if (values.once) {
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 20_000).unref());
      if ((await Promise.race([firstReply, timeout, stopRequested])) === 'timeout') {
        process.stderr.write('demo: no reply from the fake model within 20 s\n');
        code = 1;
      }
    } else {
      timer = setInterval(speak, TURN_EVERY_MS);
      await stopRequested;
    }
    clearInterval(timer);
    // The bridge is in this process: stop it directly, with the reason that really ended the call.
    const why = stopTrigger === undefined ? 'the demo played its one exchange (--once)' : demoStopReason(stopTrigger);
    await core.bridge.stop(why).catch(() => undefined);
    return code;
  } finally {
    finishing = true;
    clearInterval(timer);
    unsubscribe();
    await started?.close();
    await fakes?.close();
    out(`demo finished: ${replies} model repl${replies === 1 ? 'y' : 'ies'}; temporary home removed.`);
  }
}
