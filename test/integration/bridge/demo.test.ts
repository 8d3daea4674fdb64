// The demo as a newcomer runs it: its fakes in a child process, the core alone in the demo's
// process; the lines it prints work when pasted into another shell; Ctrl-C / SIGTERM end it cleanly
// and remove its temporary home, token included.
import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { freePort } from '../../helpers/net.ts';
import { acceptCut, processAlive, runPasted, signalGroup, startDemo } from '../../helpers/demo-session.ts';

const CLI_ENV: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };

it('prints a login URL and paste lines that work as printed; SIGINT ends it with exit 0 and no temp home left', async () => {
  const port = await freePort();
  const demo = startDemo(`exec "${process.execPath}" main/cli.ts demo`, {
    cwd: process.cwd(),
    env: { ...CLI_ENV, DISCORD_VOICE_LIVE_PORT: String(port) },
    readyTimeoutMs: 60_000,
  });
  try {
    const { dashboardUrl, pasteLines, fakesPid } = await demo.ready;
    expect(dashboardUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/login\\?nonce=[\\w-]+$`));
    // The fakes live in another process than the core.
    expect(fakesPid).toBeGreaterThan(0);
    expect(fakesPid).not.toBe(demo.child.pid);
    expect(pasteLines).toContain(`export DISCORD_VOICE_LIVE_PORT=${port}`);
    const tokenFile = /^export DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE=(\S+)$/m.exec(pasteLines.join('\n'))?.[1];
    expect(tokenFile && existsSync(tokenFile)).toBe(true);

    // Pasted into a shell whose environment knows nothing about the demo.
    const { DISCORD_VOICE_LIVE_PORT: _port, ...plainEnv } = CLI_ENV;
    const pasted = runPasted(acceptCut(pasteLines.filter((line) => !line.includes('dashboard'))), plainEnv);
    expect(pasted.stderr.split('\n').filter((l) => l && !l.startsWith('npm warn'))).toEqual([]);
    expect(pasted.status).toBe(0);
    // announce and ask wait for what became of the text: piped, they print its outcome record.
    expect(pasted.stdout).toMatch(/"outcome": "(spoken|cut)"/);
    expect(pasted.stdout).not.toMatch(/"outcome": "(dropped|waiting)"/);
    // live-voice-bridge is on PATH from the pasted lines (the shim bin/live-voice-bridge): no npx, no second of npm.
    expect(
      pasteLines
        .filter((line) => line.includes('live-voice-bridge '))
        .every((line) => line.startsWith('live-voice-bridge ')),
    ).toBe(true);
    expect(pasted.stdout).toContain('"verb": "ask"');
    expect(pasted.stdout).toContain('"verb": "announce"');
    expect(pasted.stdout).toMatch(/"voice": \{\s*"status": "ok"/);
    const notesJson = JSON.parse(pasted.stdout.trim().split('\n').at(-1)!) as {
      notes: { kind: string; text: string }[];
    };
    // The latest notes include the notification the pasted `notify` line just delivered.
    expect(notesJson.notes.some((n) => n.kind === 'notification' && n.text.includes('The build finished'))).toBe(true);

    signalGroup(demo, 'SIGINT');
    const exit = await demo.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(demo.out()).toMatch(/demo finished: \d+ model repl(y|ies); temporary home removed\./);
    // Transcript lines carry the time of day as the core's log does (24 h), never the locale's "2:08:46 AM".
    expect(demo.out()).toMatch(/^\[\d\d:\d\d:\d\d\] /m);
    expect(demo.out()).not.toMatch(/\d [AP]M\]/);
    // The stop reason says what stopped the call: Ctrl-C, not "requested by sidecar".
    expect(demo.out()).toContain('interrupted (Ctrl-C, SIGINT)');
    expect(demo.out()).not.toContain('requested by sidecar');
    expect(existsSync(tokenFile!)).toBe(false);
    expect(processAlive(fakesPid)).toBe(false);
  } finally {
    if (demo.child.exitCode === null) signalGroup(demo, 'SIGKILL');
  }
}, 180_000);

it('SIGTERM to the demo alone ends the call and the fakes, exit 0', async () => {
  const port = await freePort();
  const demo = startDemo(`exec "${process.execPath}" main/cli.ts demo`, {
    cwd: process.cwd(),
    env: { ...CLI_ENV, DISCORD_VOICE_LIVE_PORT: String(port) },
    readyTimeoutMs: 60_000,
  });
  try {
    const { fakesPid } = await demo.ready;
    demo.child.kill('SIGTERM');
    expect(await demo.exited).toEqual({ code: 0, signal: null });
    expect(demo.out()).toContain('demo finished:');
    expect(processAlive(fakesPid)).toBe(false);
  } finally {
    if (demo.child.exitCode === null) signalGroup(demo, 'SIGKILL');
  }
}, 120_000);

it('--once plays one exchange and exits 0', async () => {
  const port = await freePort();
  const demo = startDemo(`exec "${process.execPath}" main/cli.ts demo --once --port ${port}`, {
    cwd: process.cwd(),
    env: CLI_ENV,
    readyTimeoutMs: 60_000,
  });
  const exit = await demo.exited;
  expect(demo.err()).toBe('');
  expect(exit.code).toBe(0);
  // The owner's scripted line, transcribed under her name, and the fake model's answer to its words.
  expect(demo.out()).toMatch(/\] Olga +Hi, can you hear me\?\n/);
  expect(demo.out()).toContain('model    Loud and clear.');
  expect(demo.out()).not.toContain('ms of speech');
  expect(demo.out()).toContain('demo finished: 1 model reply; temporary home removed.');
}, 90_000);

it('--help prints the options (--room and --provider among them), exit 0; a mistyped option gets one line with a suggestion, exit 2', async () => {
  const help = startDemo(`exec "${process.execPath}" main/cli.ts demo --help`, {
    cwd: process.cwd(),
    env: CLI_ENV,
    readyTimeoutMs: 60_000,
  });
  expect(await help.exited).toEqual({ code: 0, signal: null });
  expect(help.err()).toBe('');
  expect(help.out()).toMatch(/^Usage: \.\/scripts\/demo\.sh \[options\]/);
  for (const option of ['--room', '--provider NAME', '--port N', '--once', '-h, --help'])
    expect(help.out()).toContain(`  ${option}`);
  expect(help.out()).toContain('gemini, openai-realtime, openai-live');
  // Nothing started: no call, no home.
  expect(help.out()).not.toContain('Starting');

  const typo = startDemo(`exec "${process.execPath}" main/cli.ts demo --rom`, {
    cwd: process.cwd(),
    env: CLI_ENV,
    readyTimeoutMs: 60_000,
  });
  expect((await typo.exited).code).toBe(2);
  expect(typo.err()).toBe('demo: unknown option --rom (did you mean --room?). See ./scripts/demo.sh --help\n');
  expect(typo.out()).toBe('');
}, 60_000);

it('honours DISCORD_VOICE_LIVE_PROVIDER (as its banner says); --provider still wins; a bad value names the variable', async () => {
  const port = await freePort();
  const demo = startDemo(`exec "${process.execPath}" main/cli.ts demo --once --port ${port}`, {
    cwd: process.cwd(),
    env: { ...CLI_ENV, DISCORD_VOICE_LIVE_PROVIDER: 'openai-realtime' },
    readyTimeoutMs: 60_000,
  });
  const exit = await demo.exited;
  expect(exit.code).toBe(0);
  expect(demo.out()).toContain('Live model: openai-realtime');
  const bad = startDemo(`exec "${process.execPath}" main/cli.ts demo --once --port ${port}`, {
    cwd: process.cwd(),
    env: { ...CLI_ENV, DISCORD_VOICE_LIVE_PROVIDER: 'gemmini' },
    readyTimeoutMs: 60_000,
  });
  expect((await bad.exited).code).toBe(2);
  expect(bad.err()).toContain('DISCORD_VOICE_LIVE_PROVIDER must be one of');
}, 120_000);
