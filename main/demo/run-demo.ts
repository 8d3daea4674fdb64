// `./scripts/demo.sh` / `npm run demo` / `live-voice-bridge demo`: a whole simulated call with no
// accounts and no internet. The fake Discord, the fake Gemini and the fake owner (who speaks every few
// seconds) run in a child process; this process runs the real core alone. Once the call is up it
// prints the dashboard login URL and lines to paste into another terminal, then the live transcript.
// Ctrl-C or SIGTERM ends the call, stops the fakes and removes the temporary agent home (token
// included). `--once` plays one exchange and exits (tests).
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import type { NoteEvent } from '../core/api-types.ts';
import { handleShutdownSignals } from '../core/shutdown-signals.ts';
import { findAppRoot } from '../core/sidecar/routes/dashboard.ts';
import { terminalLogFormat } from '../core/log/terminal-format.ts';
import { errorMessageOf, SidecarClient } from '../core/sidecar-client/client.ts';
import { DEMO_HELP, parseDemoArgs, type DemoOptions } from './demo-options.ts';
import { demoScene, enterRoom, playScene, type PlayingScene } from './demo-scenes.ts';
import { CAST } from './demo-script.ts';
import type { FakeServicesInfo } from './fake-services.ts';
import { startFakesChild, type FakesChild } from './fakes-child.ts';
import { startCoreOnFakes, type CoreOnFakes } from './simulated-call.ts';

/** How long --once waits for the model's answer to the last line. */
const ONCE_REPLY_TIMEOUT_MS = 20_000;

/** The time of day as the core's own log lines print it (24 h, this machine's clock): one format, not the locale's "2:08:46 AM". */
function clockTime(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function formatNote(note: NoteEvent): string {
  const time = clockTime(note.ts * 1000);
  // A `say` note is one request: `asked` (a message the model answers) or `announce` (words it says).
  const said = note.speaker?.endsWith('· message') ? 'asked' : 'announce';
  const who =
    note.kind === 'output_transcript'
      ? 'model'
      : note.kind === 'input_transcript'
        ? (note.speaker_name ?? 'owner')
        : note.kind === 'say'
          ? said
          : note.kind;
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
export function pasteLines(facts: {
  projectRoot: string;
  nodeBinDir: string | null;
  shimDir?: string | null;
  port: number;
  tokenFile: string;
}): string[] {
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

/**
 * Where the demo prints: stdout and stderr, until a pipe's reader is gone. Ctrl-C in a terminal
 * running `./scripts/demo.sh | tee log` ends tee too, and a write to the broken pipe then fails with
 * EPIPE, an 'error' event that, unhandled, killed the demo mid-cleanup and left its home behind
 * (token included). Output is best effort; the cleanup is not.
 */
function demoOutput(): { out: (line: string) => void; err: (line: string) => void } {
  const open = { stdout: true, stderr: true };
  process.stdout.on('error', () => (open.stdout = false));
  process.stderr.on('error', () => (open.stderr = false));
  return {
    out: (line) => void (open.stdout && process.stdout.write(line + '\n')),
    err: (line) => void (open.stderr && process.stderr.write(line + '\n')),
  };
}

/**
 * Signals are taken from the start, so Ctrl-C during start-up still cleans up; the first one ends
 * the demo and later ones (or ones a library re-raises) cannot kill it mid-cleanup.
 */
function stopSignals(): { requested: Promise<string>; request(trigger: string): void; trigger(): string | undefined } {
  let first: string | undefined;
  let resolve: (trigger: string) => void = () => undefined;
  const requested = new Promise<string>((r) => (resolve = r));
  const request = (trigger: string) => {
    first ??= trigger;
    resolve(trigger);
  };
  handleShutdownSignals((signal) => request(signal));
  return { requested, request, trigger: () => first };
}

interface Transcript {
  /** Model replies so far. */
  readonly replies: number;
  /** Resolves at the next model reply. */
  nextReply(): Promise<void>;
  /** Prints the lines held back so far, and every later one as it comes. */
  goLive(): void;
  unsubscribe(): void;
}

/** The call's notes as terminal lines, held back until the banner is out. */
function followTranscript(core: CoreOnFakes['core'], out: (line: string) => void): Transcript {
  const held: string[] = [];
  let live = false;
  let replies = 0;
  let waiter: (() => void) | null = null;
  const unsubscribe = core.hub.subscribe((event) => {
    if (event.type !== 'note') return;
    const line = formatNote(event.data);
    if (live) out(line);
    else held.push(line);
    if (event.data.kind === 'output_transcript') {
      replies += 1;
      waiter?.();
    }
  });
  return {
    get replies() {
      return replies;
    },
    nextReply: () => new Promise<void>((resolve) => (waiter = resolve)),
    goLive() {
      live = true;
      for (const line of held.splice(0)) out(line);
    },
    unsubscribe,
  };
}

/** The states with no call to speak into: it was left (or never started). */
const NO_CALL = new Set(['idle', 'stopping', 'stopped']);

/**
 * The scripted people, who speak only into a call: after a Leave (the CLI, the dashboard) the demo
 * says once that they wait for a join, instead of an error at every line until the next one.
 */
function speakersInCall(
  fakes: FakesChild,
  core: CoreOnFakes['core'],
  out: (line: string) => void,
): Pick<FakesChild, 'say'> {
  let waiting = false;
  return {
    say(who, text) {
      if (!NO_CALL.has(core.bridge.status().state)) {
        waiting = false;
        return fakes.say(who, text);
      }
      if (!waiting)
        out(
          `[${clockTime(Date.now())}] demo     no call: the simulated people wait until you join again (live-voice-bridge join, or Join voice on the dashboard)`,
        );
      waiting = true;
      return Promise.resolve();
    },
  };
}

/** What went wrong, once: the fakes child sends an error's text, which already starts "Error: ". */
function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/^(Error: )+/, '');
}

/** --once: the scene was played and the model answered its last line in time (false: it did not; a signal counts as done). */
async function answeredInTime(
  scene: PlayingScene,
  transcript: Transcript,
  stopRequested: Promise<string>,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const answered = scene.playedOnce.then(() =>
    Promise.race([
      transcript.nextReply().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ONCE_REPLY_TIMEOUT_MS).unref())),
    ]),
  );
  try {
    return await Promise.race([answered, stopRequested.then(() => true)]);
  } finally {
    clearTimeout(timer);
  }
}

/** The core's extra settings for the room: all three may be heard (consent decides), captions on. */
function roomEnv(info: FakeServicesInfo): Record<string, string> {
  return {
    DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS: info.people.map((p) => p.id).join(','),
    DISCORD_VOICE_LIVE_CAPTIONS: 'true',
  };
}

function whoSpeaks(options: DemoOptions): string[] {
  if (!options.room)
    return [
      `${CAST.owner.name}, the fake owner, says a scripted line every 9 s; the fake model transcribes it and answers from its words. Ctrl-C ends the demo.`,
    ];
  return [
    `A room of three: ${CAST.owner.name} (the owner), ${CAST.teammate.name} (who talks over her once) and ${CAST.guest.name}, a guest who opts out,`,
    `so his words never reach the model or the notes. The dashboard's Room card shows who is heard; live captions go to`,
    `the voice channel's chat. Ctrl-C ends the demo.`,
  ];
}

export async function runDemo(argv: string[]): Promise<number> {
  const { out, err } = demoOutput();
  const parsed = parseDemoArgs(argv, process.env);
  if (parsed === 'help') {
    out(DEMO_HELP);
    return 0;
  }
  if ('error' in parsed) {
    err(parsed.error);
    return 2;
  }
  const stop = stopSignals();
  out('Live Voice Bridge demo: a simulated call on 127.0.0.1 (no accounts, no internet). Starting…');
  const run: DemoRun = { code: 0, finishing: false, out, err, stop };
  try {
    return await playCall(run, parsed);
  } finally {
    await finishDemo(run);
  }
}

/** One demo run: what it started (for finishDemo to stop), its exit code so far, how it speaks and stops. */
interface DemoRun {
  fakes?: FakesChild;
  started?: CoreOnFakes;
  transcript?: Transcript;
  scene?: PlayingScene;
  code: number;
  /** The demo is ending: the fakes going away now is expected, not an error. */
  finishing: boolean;
  out: (line: string) => void;
  err: (line: string) => void;
  stop: ReturnType<typeof stopSignals>;
}

/** The fakes, the core on them, the call joined and the scene played until Ctrl-C (or the one exchange of --once). */
async function playCall(run: DemoRun, options: DemoOptions): Promise<number> {
  const { out, err, stop } = run;
  const fakes = (run.fakes = await startFakesChild());
  fakes.onExit((exitCode, signal) => {
    if (!run.finishing) {
      err(`demo: the fakes process ended unexpectedly (${signal ?? exitCode})`);
      run.code = 1;
      stop.request(FAKES_ENDED);
    }
  });
  trustFakeGateway(fakes.info.caPath);
  try {
    run.started = await startCoreOnFakes(fakes.info, {
      port: options.port,
      provider: options.provider,
      logLevel: 'warn',
      logFormat: terminalLogFormat('auto', process.stderr, process.env),
      ...(options.room ? { env: roomEnv(fakes.info) } : {}),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    err(
      `demo: port ${options.port} is in use (is the app already running?). Try: DISCORD_VOICE_LIVE_PORT=18950 ./scripts/demo.sh`,
    );
    return 2;
  }
  const { core } = run.started;

  const transcript = (run.transcript = followTranscript(core, out));
  const joined = await new SidecarClient({ baseUrl: core.sidecarUrl, token: core.token }).join();
  if (joined.status >= 300) {
    err(`demo: could not start the call: ${errorMessageOf(joined.body)}`);
    run.code = 1;
    return run.code;
  }
  printBanner(out, { core, fakes, options });
  for (const line of whoSpeaks(options)) out(line);
  out('');
  transcript.goLive();
  if (options.room) for (const line of await enterRoom(fakes)) out(`[${clockTime(Date.now())}] demo     ${line}`);

  // At the end the fakes go away under a line being said: nothing to report then.
  const onError = (error: unknown) =>
    void (
      !run.finishing &&
      stop.trigger() === undefined &&
      err(`demo: a simulated person could not speak: ${errorText(error)}`)
    );
  const scene = (run.scene = playScene(speakersInCall(fakes, core, out), demoScene(options.room, options.once), {
    repeat: !options.once,
    onError,
  }));
  if (!options.once) await stop.requested;
  else if (!(await answeredInTime(scene, transcript, stop.requested))) {
    err(`demo: no reply from the fake model within ${ONCE_REPLY_TIMEOUT_MS / 1000} s of the last line`);
    run.code = 1;
  }
  scene.stop();
  // The bridge is in this process: stop it directly, with the reason that really ended the call.
  const trigger = stop.trigger();
  const why = trigger === undefined ? 'the demo played its one exchange (--once)' : demoStopReason(trigger);
  await core.bridge.stop(why).catch(() => undefined);
  return run.code;
}

/** Whatever the run started, stopped, newest first, and how many replies the model gave. */
async function finishDemo(run: DemoRun): Promise<void> {
  run.finishing = true;
  run.scene?.stop();
  run.transcript?.unsubscribe();
  await run.started?.close();
  await run.fakes?.close();
  const replies = run.transcript?.replies ?? 0;
  run.out(`demo finished: ${replies} model repl${replies === 1 ? 'y' : 'ies'}; temporary home removed.`);
}

/** The call is up: where things run, the dashboard link and the lines to paste. */
function printBanner(
  out: (line: string) => void,
  facts: { core: CoreOnFakes['core']; fakes: FakesChild; options: DemoOptions },
): void {
  const { core, fakes, options } = facts;
  const sidecarPort = Number(new URL(core.sidecarUrl).port);
  const projectRoot = findAppRoot();
  // The machine's own node may be older than the project needs: when this Node is the one the
  // Quick start put in .tools/, the pasted lines put it first on PATH too.
  const toolsNode = path.join(projectRoot, '.tools', 'node22', 'bin', 'node');
  const nodeBinDir =
    existsSync(toolsNode) && realpathSync(toolsNode) === realpathSync(process.execPath)
      ? path.dirname(toolsNode)
      : null;
  out('');
  out(
    `The call is up: fake Discord, fake Gemini, fake OpenAI Realtime and fake GPT-Live run in process ${fakes.pid}; this process (${process.pid}) is the core.`,
  );
  out(`Live model: ${options.provider} (switch per call: DISCORD_VOICE_LIVE_PROVIDER or the dashboard settings).`);
  out('');
  out('Dashboard (a one-time login link):');
  out(`  ${core.loginUrl()}`);
  out('');
  out('In another terminal, paste:');
  const shimDir = cliShimDir(projectRoot);
  for (const line of pasteLines({ projectRoot, nodeBinDir, shimDir, port: sidecarPort, tokenFile: core.tokenFile }))
    out(`  ${line}`);
  out(`  ${shimDir ? '' : 'npx '}live-voice-bridge dashboard      # a fresh login link, when the one above was used`);
  out('');
}
