// node bench/cpu-tiers.ts [--seconds 60] [--provider gemini]: where the core's CPU time goes in a
// call, by what ran (V8 tier, native library, kernel) and by what woke the process for it (a speaker
// packet, a socket read, a timer), sampled by the OS (docs/performance.md, "CPU time by tier" and
// "What wakes the core in a call"). Runs `bench/latency.ts --quick` for one provider with the core
// started with `--perf-basic-prof`, and records the core with `perf record -g -e cpu-clock` over
// the call's first `--seconds` (from the end of its idle window, as the bench's call CPU figure).
// Needs Linux perf (Debian: apt-get install linux-perf). About 30 s plus the call. Prints only.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePerfScript, PerfMap, tierReport } from './lib/cpu-tiers.ts';

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) =>
  argv.includes(name) ? (argv[argv.indexOf(name) + 1] ?? fallback) : fallback;
const SECONDS = Number(option('--seconds', '60'));
const PROVIDER = option('--provider', 'gemini');
if (!Number.isInteger(SECONDS) || SECONDS < 10 || SECONDS > 600)
  throw new Error('--seconds takes a whole number from 10 to 600');

try {
  execFileSync('perf', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('perf is not installed: apt-get install linux-perf (Debian), then run this again');
  process.exit(2);
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'lvb-cpu-tiers-'));
const data = path.join(dir, 'perf.data');
const bench = spawn(
  process.execPath,
  [fileURLToPath(new URL('./latency.ts', import.meta.url)), '--quick', '--providers', PROVIDER],
  {
    env: { ...process.env, LVB_BENCH_CALL_S: String(SECONDS + 5), LVB_CORE_NODE_OPTIONS: '--perf-basic-prof' },
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);

let pid = 0;
let recording: Promise<void> | null = null;
let output = '';
// The bench's progress (stderr) names the core's pid and the start of the idle window.
const onOutput = (chunk: Buffer) => {
  process.stdout.write(chunk);
  output += chunk.toString();
  pid ||= Number(/core pid (\d+)/.exec(output)?.[1] ?? 0);
  const idle = /nobody speaks for (\d+) s \(idle call\)/.exec(output);
  if (pid && idle && !recording) {
    console.log(`core pid ${pid}: recording ${SECONDS} s of the call after its ${idle[1]} s idle window`);
    recording = new Promise((resolve, reject) => {
      setTimeout(
        () => {
          const perf = spawn(
            'perf',
            [
              'record',
              '-g',
              '-e',
              'cpu-clock',
              '-F',
              '999',
              '-p',
              String(pid),
              '-o',
              data,
              '--',
              'sleep',
              String(SECONDS),
            ],
            { stdio: 'ignore' },
          );
          perf.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`perf record exited ${code}`))));
        },
        Number(idle[1]) * 1000 + 1000,
      );
    });
  }
};
bench.stdout.on('data', onOutput);
bench.stderr.on('data', onOutput);

const benchDone = new Promise<number>((resolve) => bench.on('exit', (code) => resolve(code ?? 1)));
const code = await benchDone;
if (!recording) {
  console.error(`the bench exited (${code}) before the call started:\n${output.slice(-2000)}`);
  process.exit(1);
}
await recording;
const script = execFileSync('perf', ['script', '-i', data, '-F', 'tid,ip,sym,dso'], {
  encoding: 'utf8',
  maxBuffer: 1 << 30,
  stdio: ['ignore', 'pipe', 'ignore'],
});
const mapFile = `/tmp/perf-${pid}.map`;
const map = new PerfMap(readFileSync(mapFile, 'utf8'));
rmSync(dir, { recursive: true, force: true });
rmSync(mapFile, { force: true });

const report = tierReport(parsePerfScript(script, map), pid);
const row = ([name, share]: [string, number]) => `${share.toFixed(1).padStart(6)} %  ${name}`;
console.log(
  `\n${report.samples} CPU samples (999 Hz) of the core in ${SECONDS} s of a ${PROVIDER} call: ${((100 * report.samples) / 999 / SECONDS).toFixed(2)} % of a core while perf ran`,
);
console.log(
  "\nshare of the core's CPU time, by what ran (V8 builtins and runtime count for the JS function that called them)",
);
for (const entry of report.byTier) console.log(row(entry));
console.log('\nCPU in JavaScript not yet optimized (baseline or interpreted), by where the code lives');
for (const entry of report.unoptimizedByOrigin) console.log(row(entry));
console.log('\n... and by function (V8 reuses code addresses: each is named by the code that was there last)');
for (const entry of report.unoptimizedByFunction) console.log(row(entry));
console.log(
  "\nshare of the core's CPU time, by what woke its main thread for it (the event-loop callback at the root of the stack)",
);
for (const entry of report.byWakeSource) console.log(row(entry));
console.log('\n... timers, by the callback the timer ran');
for (const entry of report.timersByCallback) console.log(row(entry));
process.exit(code);
