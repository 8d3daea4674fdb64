// npm run soak -- [--profile day (bench/soak-day.ts)] [--provider gemini|openai-realtime|openai-live] [--minutes N] [--rotate-s S]
//                 [--drop-every-s D] [--stall-every-s T] [--voice-reset-every-s V] [--deadline-s L]
//                 [--seed X] [--out FILE]
// (--deadline-s, gemini: the service session's hard deadline every L s, as 3.8 closes at 58:00.)
// A whole simulated call for N minutes, in real time (audio is paced like a real call; see
// bench/lib/soak-call.ts), through forced rotations, drops, stalls and voice socket resets. Prints a
// table with the targets beside the measured values and writes the provider's result file
// (bench/results/soak.json for gemini, soak-<provider>.json for the others; --out overrides).
// Reports; never fails on a number (the CI test asserts the counts it cares about).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { percentiles, runSoak, type SoakCycle, type SoakEventKind } from './lib/soak-call.ts';
import { parseProviders } from './lib/model-fakes.ts';
import { soakResultFile, soakRows } from './lib/soak-report.ts';

// `--profile day`: the day-long call under every fault at once (bench/soak-day.ts, its own options).
const profileAt = process.argv.indexOf('--profile');
if (profileAt >= 0 && process.argv[profileAt + 1] === 'day') {
  const { main } = await import('./soak-day.ts');
  await main(process.argv.slice(2).filter((_, i) => i !== profileAt - 2 && i !== profileAt - 1));
  process.exit(0);
}
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    'rotate-s': { type: 'string', default: '60' },
    'drop-every-s': { type: 'string', default: '300' },
    'stall-every-s': { type: 'string', default: '0' },
    'voice-reset-every-s': { type: 'string', default: '0' },
    'deadline-s': { type: 'string', default: '0' },
    seed: { type: 'string', default: '16' },
    provider: { type: 'string', default: 'gemini' },
    out: { type: 'string' },
  },
});
const [provider] = parseProviders(values.provider);
if (!provider || values.provider.includes(',')) throw new Error('--provider takes one provider');
const out = values.out ?? fileURLToPath(new URL(`./results/${soakResultFile(provider)}`, import.meta.url));
const num = (name: Exclude<keyof typeof values, 'provider' | 'out'>): number => {
  const value = Number(values[name]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a number >= 0`);
  return value;
};

function machine() {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {
    // not Linux: keep os.cpus()
  }
  return {
    cpu,
    cores: os.cpus().length,
    node: process.version,
    loadAverage1m: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)]! : 0;
}

/** Extra silence the user heard in one exchange: beyond a normal reply's latency, or inside the reply. */
function gapOf(cycle: SoakCycle, baselineMs: number): number | null {
  if (cycle.latencyMs === null) return null;
  return Math.max(cycle.innerGapMs ?? 0, cycle.latencyMs - baselineMs, 0);
}

const options = {
  minutes: num('minutes'),
  rotateS: num('rotate-s'),
  dropEveryS: num('drop-every-s'),
  stallEveryS: num('stall-every-s'),
  voiceResetEveryS: num('voice-reset-every-s'),
  deadlineS: num('deadline-s'),
  seed: num('seed'),
};
console.log(
  `soak (${provider}): ${options.minutes} min, rotation every ${options.rotateS} s, drop every ${options.dropEveryS || '—'} s, stall every ${options.stallEveryS || '—'} s, voice reset every ${options.voiceResetEveryS || '—'} s, session deadline every ${options.deadlineS || '—'} s (real time)`,
);
const machineAtStart = machine();
const run = await runSoak({ ...options, provider, progress: (line) => console.log(line) });

const cycles = run.cycles;
const quiet = cycles.filter((c) => c.events.length === 0 && c.latencyMs !== null).map((c) => c.latencyMs!);
const baselineMs = median(quiet);
const gaps = cycles.map((c) => gapOf(c, baselineMs)).filter((g): g is number => g !== null);
const gapStats = percentiles(gaps);
const byKind = (kind: SoakEventKind) => {
  const list = cycles
    .filter((c) => c.events.includes(kind))
    .map((c) => gapOf(c, baselineMs))
    .filter((g): g is number => g !== null);
  return { exchanges: list.length, maxGapMs: list.length ? Math.round(Math.max(...list)) : null };
};
const count = (kind: SoakEventKind) => run.events.filter((e) => e.kind === kind).length;
const utterancesSent = cycles.length;
const utterancesHeard = cycles.filter((c) => c.heard).length;
const repliesDoubled = cycles.filter((c) => c.replies > 1).length;
const result = {
  provider: run.provider,
  model: run.model,
  minutes: options.minutes,
  rotations: run.rotations,
  drops: count('drop'),
  stalls: count('stall'),
  voiceResets: count('voiceReset'),
  deadlines: run.deadlines,
  freshSessions: run.freshSessions,
  replayedMs: run.replayedMs,
  utterancesSent,
  utterancesHeard,
  utterancesLost: utterancesSent - utterancesHeard,
  repliesDoubled,
  strayReplies: cycles.reduce((n, c) => n + c.strayReplies, 0),
  repliesUnheard: run.repliesUnheard,
  maxGapMs: gapStats.max_ms === null ? null : Math.round(gapStats.max_ms),
  p95GapMs: gapStats.p95_ms === null ? null : Math.round(gapStats.p95_ms),
  gapsByEvent: {
    rotation: byKind('rotation'),
    drop: byKind('drop'),
    stall: byKind('stall'),
    voiceReset: byKind('voiceReset'),
    deadline: byKind('deadline'),
  },
  baselineReplyLatencyMs: Math.round(baselineMs),
  rssStartMb: Math.round(run.rssStartMb * 10) / 10,
  rssEndMb: Math.round(run.rssEndMb * 10) / 10,
  peakRssMb: Math.round(run.peakRssMb * 10) / 10,
  cpuPercent: Math.round(run.coreCpuPercent * 10) / 10,
  overlapsRefused: run.overlapsRefused,
  modelSockets: run.fakeSockets,
  options,
  machine: { ...machineAtStart, loadAverage1mAtEnd: machine().loadAverage1m },
  health: { bridge: run.healthAtEnd.bridge.state, reconnects: run.healthAtEnd.metrics.reconnects },
  definitions: {
    utterancesHeard:
      'utterances the fake model received and transcribed as the phrase the fake user said (pitch-coded phrase number)',
    repliesDoubled:
      'utterances the model answered more than once with audio (a reply counts once its first audio left the fake)',
    repliesUnheard:
      "replies the fake began on a socket that dropped before their first audio (inside the service's modelled first-audio delay): nobody heard them, and the bridge said those words again on the next socket",
    deadlines:
      'service sessions that met their hard deadline in the fake model (--deadline-s; 3.8 closes at 58:00 with 1011 and refuses the resume with 1007): closed at it, or, passed with no socket open (parked, in an outage), their next resume refused',
    freshSessions:
      'service sessions begun after the first: fresh sessions the core opened, seeded with the call so far, after a refused resume or a renewal before the deadline',
    replayedMs:
      'user audio the resumed sessions had not consumed (heard after the handle they resumed from), which the client had to send again (transparent resumption)',
    gap: 'per exchange, the extra silence the user hears: max(longest silence inside the played reply, speech end → first reply audio minus the median of exchanges with no event); maxGapMs/p95GapMs over all exchanges',
    gapsByEvent: 'max gap over exchanges during which (or up to 1.5 s before which) that event happened',
    rssStartMb: 'core RSS (from /proc) one fifth into the call, at most 60 s in (warm); rssEndMb at the end',
    cpuPercent: 'core process CPU over the call, % of one core (from /proc)',
    pacing:
      'real time: the fake user sends 20 ms RTP per 20 ms, the fake model 40 ms chunks every 20 ms (2x, like the service), the core plays 20 ms per 20 ms',
    machine: 'shared machine: other helpers were running builds and tests at the same time (see loadAverage1m)',
  },
  events: run.events.map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
  cycles: cycles.map((c) => ({
    n: c.n,
    heard: c.heard,
    replies: c.replies,
    latencyMs: c.latencyMs,
    innerGapMs: c.innerGapMs,
    events: c.events,
  })),
  rssSeries: run.rssSeries,
};

mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');

const rows = soakRows(result);
const width = Math.max(...rows.map((r) => r[0].length));
const mwidth = Math.max(...rows.map((r) => r[1].length));
console.log(`\n${'metric'.padEnd(width)}  ${'measured'.padEnd(mwidth)}  target`);
for (const [metric, measured, target] of rows)
  console.log(`${metric.padEnd(width)}  ${measured.padEnd(mwidth)}  ${target}`);
console.log(
  `\nwritten ${path.relative(process.cwd(), out)}; machine load (1 min) ${result.machine.loadAverage1m} → ${result.machine.loadAverage1mAtEnd} on ${result.machine.cores} cores`,
);
