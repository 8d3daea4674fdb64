// The package checked offline (issue 20, item 7): electron-builder builds the unpacked Linux app
// (`--linux dir`) from electron-builder.yml against a stub Electron dist, with every download
// route pointed at a trap; then the archive and the unpacked tree are checked, and the packaged
// core is started headless under plain Node from the extracted archive and asked for /health.
// What only a real Electron binary can show is listed in docs/desktop.md.
//
// Staging: the app is compiled with the project's own build configs (the two tsconfig*.build.json
// of `npm run build`) into a scratch project next to copies of package.json, electron-builder.yml,
// resources/ and renderer/, so the checkout's dist/ is never rewritten while other tests read it.
// node_modules is a link to the checkout's; `npm ls` (electron-builder's default collector) does
// not follow such a link (nor the linked node_modules of a git worktree), so the scratch project
// uses electron-builder's `traversal` collector, which reads node_modules itself.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthReport } from '../../main/core/api-types.ts';
import { freePort } from '../helpers/net.ts';
import { extractAsar, packedNativeBinaries, readAsarFiles, type AsarFile } from './asar-natives.ts';
import { loadBuilderConfig, repoRoot, type BuilderConfig } from './builder-config.ts';
import { startDownloadTrap, type DownloadTrap } from './download-trap.ts';
import { readFuses, STUB_MARKER, writeStubElectronDist } from './stub-electron.ts';

const require = createRequire(import.meta.url);
const onLinux = process.platform === 'linux';
if (!onLinux)
  console.log(`offline package check skipped: it builds and runs the Linux app (this is ${process.platform})`);

const FEED_URL = 'https://updates.example.invalid/live-voice-bridge/';
const BUILD_BUDGET_MS = 240_000;

interface Run {
  code: number | null;
  output: string;
}

/** Runs a child to its end without blocking this process (the download trap must keep answering). */
function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

function must(step: string, result: Run): void {
  if (result.code !== 0) throw new Error(`${step} failed (exit ${result.code}):\n${result.output.slice(-4000)}`);
}

const scratch = mkdtempSync(path.join(tmpdir(), 'lvb-package-'));
const project = path.join(scratch, 'project');
const outDir = path.join(scratch, 'out');
const appDir = path.join(outDir, 'linux-unpacked');
const resourcesDir = path.join(appDir, 'resources');
const archive = path.join(resourcesDir, 'app.asar');
const unpackedDir = `${archive}.unpacked`;
const checked: string[] = [];
let config: BuilderConfig;
let trap: DownloadTrap;
let files: AsarFile[];

async function stageProject(): Promise<void> {
  mkdirSync(project, { recursive: true });
  const tsc = require.resolve('typescript/bin/tsc');
  const dist = path.join(project, 'dist');
  const builds = await Promise.all(
    ['tsconfig.build.json', 'main/app/tsconfig.build.json'].map((tsconfig) =>
      run(process.execPath, [tsc, '-p', tsconfig, '--outDir', dist], { cwd: repoRoot }),
    ),
  );
  builds.forEach((result, i) => must(`tsc (${i === 0 ? 'main' : 'preload and renderer'})`, result));
  for (const entry of ['package.json', 'electron-builder.yml', 'resources', 'renderer'])
    cpSync(path.join(repoRoot, entry), path.join(project, entry), { recursive: true });
  symlinkSync(realpathSync(path.join(repoRoot, 'node_modules')), path.join(project, 'node_modules'), 'dir');
}

async function buildPackage(): Promise<void> {
  const stub = writeStubElectronDist(path.join(scratch, 'stub-electron'));
  const cli = require.resolve('electron-builder/cli.js');
  const started = Date.now();
  const result = await run(
    process.execPath,
    [
      cli,
      '--projectDir',
      project,
      '--linux',
      'dir',
      '--publish',
      'never',
      '--config',
      'electron-builder.yml',
      `-c.electronDist=${stub}`,
      `-c.directories.output=${outDir}`,
      '-c.npmRebuild=false',
      ...trap.builderArgs,
    ],
    {
      cwd: project,
      env: {
        ...process.env,
        ...trap.env,
        // An empty cache: a cached Electron zip or tool could hide a download the build needs.
        ELECTRON_BUILDER_CACHE: path.join(scratch, 'electron-builder-cache'),
        npm_config_user_agent: 'traversal',
        LVB_UPDATE_FEED_URL: FEED_URL,
      },
    },
  );
  if (trap.attempts.length > 0)
    throw new Error(
      `the package build attempted downloads (refused): ${trap.attempts.join(', ')}\n${result.output.slice(-2000)}`,
    );
  must('electron-builder --linux dir', result);
  console.log(`offline package: electron-builder --linux dir took ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

beforeAll(async () => {
  if (!onLinux) return;
  const started = Date.now();
  config = await loadBuilderConfig();
  trap = await startDownloadTrap();
  await stageProject();
  console.log(`offline package: compiled with the build tsconfigs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await buildPackage();
  files = readAsarFiles(archive);
}, BUILD_BUDGET_MS);

afterAll(async () => {
  await trap?.close();
  rmSync(scratch, { recursive: true, force: true });
  if (checked.length > 0) console.log(`offline package check:\n${checked.map((line) => `  - ${line}`).join('\n')}`);
});

describe.runIf(onLinux)('the Linux package, built offline against a stub Electron', () => {
  it('was built with no download: no request reached the trap', () => {
    expect(trap.attempts).toEqual([]);
    expect(readFileSync(path.join(appDir, config.linux.executableName), 'utf8')).toContain(STUB_MARKER);
    const version = (require('electron-builder/package.json') as { version: string }).version;
    checked.push(
      `electron-builder ${version} built linux-unpacked from the stub Electron; no download attempted (Electron zip mirror, tool-binaries mirror and HTTP(S) proxies all routed to a refusing loopback trap, empty ELECTRON_BUILDER_CACHE)`,
    );
  });

  it('holds the main process, the preload, the dashboard and the icons in app.asar', () => {
    const paths = new Set(files.map((f) => f.path));
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { main: string };
    const required = [
      'package.json',
      pkg.main,
      'dist/main/cli.js',
      'dist/main/core/core.js',
      'dist/preload/preload.cjs',
      'renderer/index.html',
      'renderer/styles.css',
      'dist/renderer/main.js',
      'resources/tray-idle.png',
    ];
    for (const file of required) expect(paths.has(file), file).toBe(true);
    // Sources and maps stay out (electron-builder.yml `files`).
    expect(files.filter((f) => /\.map$/.test(f.path) && !f.path.startsWith('node_modules/'))).toEqual([]);
    checked.push(`app.asar (${files.length} files) holds ${required.join(', ')}; no source maps of ours`);
  });

  it('ships neither the fakes nor the demo (they import devDependencies; a checkout runs them)', () => {
    const devOnly = files.filter((f) => /^dist\/main\/(fakes|demo)\//.test(f.path)).map((f) => f.path);
    expect(devOnly).toEqual([]);
    // The build itself produced them, so the check above is about the package, not an empty dist.
    expect(existsSync(path.join(project, 'dist/main/fakes')), 'staged build has dist/main/fakes').toBe(true);
    checked.push('app.asar holds no dist/main/fakes/** and no dist/main/demo/** (the staged build had both)');
  });

  it("unpacks every native binary, with the core's addons and the shell's key hook among them", () => {
    expect(packedNativeBinaries(files)).toEqual([]);
    const natives = files.filter((f) => f.unpacked && /\.node$|\.so(\.\d+)*$/.test(f.path));
    for (const file of natives) {
      const onDisk = path.join(unpackedDir, file.path);
      expect(existsSync(onDisk), onDisk).toBe(true);
      expect(statSync(onDisk).size, onDisk).toBe(file.size);
    }
    const host = `${process.platform}-${process.arch}`;
    const expected = [
      'node_modules/@discordjs/opus/',
      `node_modules/@snazzah/davey-${host}`,
      `node_modules/@img/sharp-${host}/`,
      `node_modules/@img/sharp-libvips-${host}/`,
      `node_modules/uiohook-napi/prebuilds/${host}/`,
    ];
    for (const prefix of expected)
      expect(
        natives.some((f) => f.path.startsWith(prefix)),
        `an unpacked native binary under ${prefix}`,
      ).toBe(true);
    checked.push(
      `all ${natives.length} native binaries (.node, .so) are in app.asar.unpacked, none packed; present for ${expected.map((p) => p.replace('node_modules/', '')).join(', ')}`,
    );
  });

  it('flips the fuses electron-builder.yml asks for in the executable', () => {
    const fuses = readFuses(path.join(appDir, config.linux.executableName));
    for (const [name, wanted] of Object.entries(config.electronFuses))
      expect(fuses[name as keyof typeof fuses], name).toBe(wanted);
    checked.push(
      `fuses in ${config.linux.executableName}: ${Object.entries(fuses)
        .map(([n, on]) => `${n}=${on ? 'on' : 'off'}`)
        .join(', ')}`,
    );
  });

  it('carries the update feed given at build time as a generic provider (app-update.yml)', () => {
    const feed = readFileSync(path.join(resourcesDir, 'app-update.yml'), 'utf8');
    expect(feed).toMatch(/^provider: generic$/m);
    expect(feed).toContain(`url: ${FEED_URL}`);
    checked.push(`resources/app-update.yml: generic provider, url from LVB_UPDATE_FEED_URL`);
  });

  it('runs the packaged core headless under plain Node from the extracted archive, natives loaded from the package', async () => {
    const extracted = path.join(scratch, 'extracted');
    extractAsar(archive, extracted);
    const home = path.join(scratch, 'home');
    mkdirSync(home, { recursive: true });
    const port = await freePort();
    const tokenFile = path.join(home, 'sidecar.token');
    // Only what a user's shell would have; nothing from this checkout (no NODE_PATH, cwd elsewhere).
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      HERMES_HOME: home,
      DISCORD_VOICE_LIVE_PORT: String(port),
      DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: tokenFile,
      DISCORD_VOICE_LIVE_LOG_LEVEL: 'warn',
    };
    const child = spawn(process.execPath, [path.join(extracted, 'dist/main/cli.js'), 'headless'], {
      cwd: home,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await printedLoginUrl(child, port);
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      expect(response.status).toBe(200);
      const health = (await response.json()) as HealthReport;
      expect(health.audio.opus).toMatchObject({ impl: 'native', library: '@discordjs/opus' });
      expect(health.native.sharp.available).toBe(true);
      expect(health.native.davey.available).toBe(true);
      // Where the addons came from: the mapped files of the running process.
      const mapped = [
        ...new Set(
          readFileSync(`/proc/${child.pid}/maps`, 'utf8')
            .split('\n')
            .map((l) => l.split(/\s+/).slice(5).join(' '))
            .filter((p) => /\.node$|libvips/.test(p)),
        ),
      ];
      const ours = mapped.filter((p) => p.startsWith(extracted));
      expect(mapped.filter((p) => !p.startsWith(extracted))).toEqual([]);
      for (const piece of ['opus.node', 'davey'])
        expect(
          ours.some((p) => path.basename(p).includes(piece)),
          piece,
        ).toBe(true);
      // The CLI client of the packaged tree finds the sidecar through the token file the core wrote.
      const cli = await run(process.execPath, [path.join(extracted, 'dist/main/cli.js'), 'health'], { cwd: home, env });
      must('live-voice-bridge health (packaged)', cli);
      expect(cli.output).toContain('"opus"');
      checked.push(
        `packaged core (node ${process.version}, extracted app.asar) answered /health: opus ${health.audio.opus.impl} (${health.audio.opus.library}), sharp ${health.native.sharp.available}, davey ${health.native.davey.available}; status ${health.status}`,
      );
      checked.push(`addons mapped from the package: ${ours.map((p) => path.relative(extracted, p)).join(', ')}`);
      checked.push('the packaged CLI `health` reached it with the token file the core wrote');
      // The demo is not shipped: the packaged CLI says so in one line instead of a module trace.
      const demo = await run(process.execPath, [path.join(extracted, 'dist/main/cli.js'), 'demo'], { cwd: home, env });
      expect(demo.code).toBe(2);
      expect(demo.output).toContain('the demo is not part of the installed app');
      expect(demo.output).not.toContain('ERR_MODULE_NOT_FOUND');
      checked.push('the packaged CLI `demo` exits 2 saying the demo needs a checkout');
      // sharp loads on the first screen frame, not at start: convert one image with the packaged copy.
      const probe = `const sharp = require(${JSON.stringify(path.join(extracted, 'node_modules/sharp'))});
        sharp({ create: { width: 2, height: 2, channels: 3, background: '#08f' } }).png().toBuffer().then((png) => {
          const maps = require('node:fs').readFileSync('/proc/self/maps', 'utf8').split('\\n').map((l) => l.split(/\\s+/).slice(5).join(' ')).filter((p) => /sharp|libvips/.test(p));
          console.log(JSON.stringify({ png: png.subarray(1, 4).toString(), maps: [...new Set(maps)] }));
        });`;
      const sharpRun = await run(process.execPath, ['-e', probe], { cwd: home, env: { PATH: env.PATH } });
      must('sharp from the package', sharpRun);
      const sharpResult = JSON.parse(sharpRun.output.trim().split('\n').at(-1)!) as { png: string; maps: string[] };
      expect(sharpResult.png).toBe('PNG');
      expect(sharpResult.maps.filter((p) => !p.startsWith(extracted))).toEqual([]);
      for (const piece of ['sharp-', 'libvips-cpp'])
        expect(
          sharpResult.maps.some((p) => path.basename(p).includes(piece)),
          piece,
        ).toBe(true);
      checked.push(
        `sharp from the package converted an image to PNG with ${sharpResult.maps.map((p) => path.relative(extracted, p)).join(', ')}`,
      );
    } finally {
      // Stopped before the scratch directory (its HERMES_HOME) is removed.
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    }
  });

  it("the shell's key hook (uiohook-napi) resolves and loads from the extracted package where its X11 libraries exist", async () => {
    const extracted = path.join(scratch, 'extracted');
    const probe = `try { require(${JSON.stringify(path.join(extracted, 'node_modules/uiohook-napi'))}); console.log('loaded') } catch (e) { console.log(String(e.message).split('\\n')[0]) }`;
    const result = await run(process.execPath, ['-e', probe], { cwd: scratch, env: { PATH: process.env.PATH ?? '' } });
    // First line only: libuiohook itself writes to stderr when there is no X display.
    const line = result.output.trim().split('\n')[0]!;
    // A packaging fault (module or its loader missing) fails; a machine without libX11/libXtst is said, not failed.
    expect(line).not.toMatch(/Cannot find module/);
    if (line !== 'loaded') expect(line).toMatch(/lib\w+\.so[.\d]*: cannot open shared object file/);
    checked.push(
      line === 'loaded'
        ? 'uiohook-napi loads under plain Node from the extracted package'
        : `uiohook-napi not loadable on this machine: ${line}`,
    );
  });
});

async function printedLoginUrl(child: ChildProcess, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes(`127.0.0.1:${port}/login?nonce=`)) resolve();
    });
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) =>
      reject(new Error(`the packaged core exited with ${code} before listening:\n${out}\n${err.slice(-2000)}`)),
    );
  });
}
