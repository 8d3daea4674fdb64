// npm run bench:audio — our resamplers side by side with the anchor's method, libsamplerate-js,
// ffmpeg's soxr and Opus decoding straight to 16 kHz, on the same signals. Prints a table with the
// targets beside our measured values and writes bench/results/audio.json and audio-response.png.
// Benchmarks report; nothing here asserts (timing on a shared machine is noisy: compare, don't gate).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import {
  Downsampler48kTo16k,
  Upsampler24kTo48k,
  designDownsamplerTaps,
  designUpsamplerTaps,
  firMagnitude,
} from '../main/core/audio/index.ts';
import {
  SRC_SINC_BEST,
  SRC_SINC_FASTEST,
  anchorDownsampler,
  anchorUpsampler,
  ffmpegAvailable,
  libsamplerateDownsampler,
  libsamplerateUpsampler,
  opusDirect16k,
  opusRoundTrip48k,
  ourDownsampler,
  ourUpsampler,
  soxrDownsampler,
  soxrUpsampler,
  type Candidate,
} from './lib/resampler-candidates.ts';
import {
  DOWN_TONES,
  SWEEP_STEP_HZ,
  UP_TONES,
  alignedSnr,
  allocationsPerFrame,
  analyseSweep,
  bandLimit,
  channel0,
  delaySignal,
  measuredDelayMs,
  passbandDeviation,
  runWhole,
  throughput,
  toneSweep,
  worstPerKiloHertz,
  worstRejection,
  type ToneResult,
} from './lib/resampler-metrics.ts';
import { responseSvg, type Series } from './lib/response-plot.ts';
import { speechLike, toInt16Mono } from './lib/speech-like.ts';
import { prng } from './lib/tone-analysis.ts';

const RESULTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
const SPEECH_S = 6;
const THROUGHPUT_S = 30;
/** Below this the meter reads noise (0-2 B/frame measured); the smallest V8 heap object is 12-16 B. */
const NO_ALLOCATION_BYTES = 4;
const TARGETS = { worstRejectionDb: 90, passbandDeviationDb: 0.1, realTimeFactor: 300, bytesPerFrame: 0, delayMs: 3 };
/** Passband edges the targets apply to (docs/audio.md). */
const PASSBAND_HZ = { down: 7_000, up: 10_000 };

/** What each number in audio.json means: printed under the tables and written beside the rows. */
const DEFINITIONS = {
  worstRejectionDb: `worst case over ALL input frequencies, swept every ${SWEEP_STEP_HZ} Hz with dithered -0.8 dBFS tones: down, every input from 8 to 24 kHz (all a 16 kHz output cannot carry) and its alias at the folded frequency; up, every input from 0 to 12 kHz and its image at 24 kHz - f; level of that component re. the input tone`,
  inBandRejectionDb:
    'the same, only over aliases landing in the 0-7 kHz passband (down) / images of the 0-10 kHz passband (up)',
  passbandDeviationDb: 'max |gain| of the swept tones up to 7 kHz (down) / 10 kHz (up)',
  delayMs:
    'group delay at 1 kHz, measured from the phase slope between 1000 and 1010 Hz tones (ours: equals the designed delay). ffmpeg soxr and libsamplerate trim their own filter delay from the output, so ~0 there is not their streaming latency (soxr VHQ streams with 21-38 ms)',
  realTimeFactor:
    'audio seconds processed per CPU second of one thread (process.cpuUsage; ffmpeg: its -benchmark utime+stime), 30 s of speech-like signal in 20 ms frames, best of 3',
  soxrRatio: 'realTimeFactor / ffmpeg soxr VHQ realTimeFactor in the same run (> 1: faster than soxr)',
  bytesPerFrame:
    'JS heap + ArrayBuffer bytes per 20 ms frame (slope of 2 window sizes, no GC inside, the smallest of 3 such pairs); < 4 is meter noise',
  snrVsSoxrDb:
    'SNR vs soxr VHQ on speech-like audio after best (fractional) alignment, both low-passed to 6.8 / 10.2 kHz; a passband ripple of ±0.04 dB alone limits it to about 50 dB',
} as const;

interface Row {
  direction: 'down' | 'up';
  name: string;
  ours: boolean;
  skipped?: string;
  note?: string;
  /** Worst alias/image over every input frequency (DEFINITIONS.worstRejectionDb). */
  worstRejectionDb?: number;
  worstAt?: { inputHz: number; spurHz: number };
  /** Worst alias/image landing in the passband (DEFINITIONS.inBandRejectionDb). */
  inBandRejectionDb?: number;
  worstRejectionPerKHz?: { fromHz: number; worstDb: number }[];
  passbandDeviationDb?: number;
  /** SNR vs soxr with both band-limited to the common passband (0-6.8 kHz down, 0-10.2 kHz up). */
  snrVsSoxrDb?: number | 'reference' | null;
  /** The same over the full output band (dominated by how each method shapes its transition band). */
  snrVsSoxrFullBandDb?: number | 'reference' | null;
  realTimeFactor?: number;
  soxrRatio?: number | null;
  bytesPerFrame?: number | null;
  delayMs?: number;
  /** The delay our filter is designed for (ours only). */
  designedDelayMs?: number;
  tones?: ToneResult[];
}

function repeatTo(x: Int16Array, times: number): Int16Array {
  const out = new Int16Array(x.length * times);
  for (let i = 0; i < times; i++) out.set(x, i * x.length);
  return out;
}

async function measure(
  direction: 'down' | 'up',
  candidate: Candidate,
  signals: { sweep: Int16Array; speech: Int16Array; long: Int16Array; delay: Int16Array; reference: Int16Array | null },
  extra: { ours: boolean; designedDelayMs?: number; isReference?: boolean; referenceOverride?: Int16Array | null },
): Promise<Row> {
  const row: Row = { direction, name: candidate.name, ours: extra.ours, note: candidate.note };
  if (candidate.unavailable !== undefined) return { ...row, skipped: candidate.unavailable };
  process.stdout.write(`  measuring ${direction}: ${candidate.name} ...\n`);
  const outRate = direction === 'down' ? 16_000 : 48_000;
  const channels = 1; // every stage inside the bridge is mono (docs/audio.md "Mono inside")
  const sweepOut = await runWhole(candidate, signals.sweep);
  const tones = analyseSweep(sweepOut, outRate, channels, direction === 'down' ? DOWN_TONES : UP_TONES, direction);
  row.tones = tones;
  const passbandHz = PASSBAND_HZ[direction];
  row.passbandDeviationDb = passbandDeviation(tones, passbandHz);
  const worst = worstRejection(tones, () => true);
  row.worstRejectionDb = worst.db;
  row.worstAt = { inputHz: worst.inputHz, spurHz: worst.spurHz };
  row.inBandRejectionDb = worstRejection(tones, (t) =>
    direction === 'down' ? t.spuriousHz <= passbandHz : t.freqHz <= passbandHz,
  ).db;
  row.worstRejectionPerKHz = worstPerKiloHertz(tones);
  row.delayMs = measuredDelayMs(await runWhole(candidate, signals.delay), outRate, channels);
  const speechOut = await runWhole(candidate, signals.speech);
  const reference = extra.referenceOverride !== undefined ? extra.referenceOverride : signals.reference;
  if (extra.isReference === true) row.snrVsSoxrDb = row.snrVsSoxrFullBandDb = 'reference';
  else if (reference === null) row.snrVsSoxrDb = row.snrVsSoxrFullBandDb = null;
  else {
    const out0 = channel0(speechOut, channels);
    const ref0 = channel0(reference, channels);
    const maxLag = 20 * (outRate / 1000);
    row.snrVsSoxrFullBandDb = alignedSnr(out0, ref0, maxLag, outRate).snrDb;
    const [cutoff, taps] = direction === 'down' ? [6800, 255] : [10_200, 511];
    row.snrVsSoxrDb = alignedSnr(
      bandLimit(out0, outRate, cutoff, taps),
      bandLimit(ref0, outRate, cutoff, taps),
      maxLag,
      outRate,
    ).snrDb;
  }
  row.realTimeFactor = await throughput(candidate, signals.long, THROUGHPUT_S);
  row.bytesPerFrame = await allocationsPerFrame(candidate, signals.speech);
  if (extra.designedDelayMs !== undefined) row.designedDelayMs = extra.designedDelayMs;
  return row;
}

// ---------------------------------------------------------------------------------------------
// Printing

const fmt = (v: number | undefined | null, digits: number): string =>
  v === undefined || v === null ? '—' : Number.isFinite(v) ? v.toFixed(digits) : v > 0 ? '∞' : '-∞';

function withTarget(row: Row, value: string, ok: boolean | undefined, target: string): string {
  return row.ours && ok !== undefined ? `${value} (${target} ${ok ? '✓' : '✗'})` : value;
}

function tableLines(rows: Row[], direction: 'down' | 'up'): string[] {
  const header = [
    'method',
    direction === 'down' ? 'worst alias dB (any input)' : 'worst image dB (any input)',
    'in-band dB',
    'passband dev. dB',
    'SNR vs soxr dB',
    '× real time (CPU)',
    'vs soxr',
    'heap B/frame',
    'delay ms',
  ];
  const body = rows.map((r) => {
    if (r.skipped !== undefined) return [r.name, `skipped: ${r.skipped}`, '', '', '', '', '', '', ''];
    const at = r.worstAt === undefined ? '' : ` @${(r.worstAt.inputHz / 1000).toFixed(3)}k`;
    return [
      r.name,
      withTarget(
        r,
        fmt(r.worstRejectionDb, 1) + at,
        r.worstRejectionDb === undefined ? undefined : r.worstRejectionDb >= TARGETS.worstRejectionDb,
        '≥ 90',
      ),
      fmt(r.inBandRejectionDb, 1),
      withTarget(
        r,
        fmt(r.passbandDeviationDb, 4),
        r.passbandDeviationDb === undefined ? undefined : r.passbandDeviationDb <= TARGETS.passbandDeviationDb,
        '≤ 0.1',
      ),
      r.snrVsSoxrDb === 'reference' ? 'reference' : fmt(r.snrVsSoxrDb, 1),
      withTarget(
        r,
        fmt(r.realTimeFactor, 0),
        r.realTimeFactor === undefined ? undefined : r.realTimeFactor >= TARGETS.realTimeFactor,
        '≥ 300',
      ),
      r.soxrRatio === undefined || r.soxrRatio === null ? '—' : `${r.soxrRatio.toFixed(2)}×`,
      withTarget(
        r,
        r.bytesPerFrame === null ? 'n/a (process)' : fmt(r.bytesPerFrame, 1),
        r.bytesPerFrame === null || r.bytesPerFrame === undefined ? undefined : r.bytesPerFrame < NO_ALLOCATION_BYTES,
        '0',
      ),
      withTarget(r, fmt(r.delayMs, 3), r.delayMs === undefined ? undefined : r.delayMs <= TARGETS.delayMs, '≤ 3'),
    ];
  });
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((b) => b[c]!.length)));
  const line = (cells: string[]): string => '| ' + cells.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ') + ' |';
  return [line(header), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...body.map(line)];
}

// ---------------------------------------------------------------------------------------------
// Plot

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#8c564b', '#9467bd', '#ff7f0e'];

function seriesFor(rows: Row[], direction: 'down' | 'up'): Series[] {
  const measured = rows
    .filter((r) => r.tones !== undefined)
    .map((r, i): Series => {
      const pts: [number, number][] = [];
      for (const t of r.tones!) {
        if (direction === 'down') pts.push([t.freqHz, t.freqHz < 8000 ? t.gainDb[0]! : t.spuriousDb]);
        else {
          pts.push([t.freqHz, t.gainDb[0]!]);
          pts.push([t.spuriousHz, t.spuriousDb]);
        }
      }
      const points = pts.filter(([, level]) => Number.isFinite(level)).sort((a, b) => a[0] - b[0]);
      return { name: r.name, color: COLORS[i % COLORS.length]!, points };
    });
  const taps = direction === 'down' ? designDownsamplerTaps() : designUpsamplerTaps();
  const gain = direction === 'down' ? 1 : 2;
  const designed: [number, number][] = [];
  for (let f = 0; f <= 24_000; f += 100)
    designed.push([f, 20 * Math.log10(Math.max(1e-9, firMagnitude(taps, 48_000, f) / gain))]);
  return [...measured, { name: 'ours, designed response', color: '#1f77b4', points: designed, dashed: true }];
}

async function writePlot(rows: Row[], file: string): Promise<void> {
  const svg = responseSvg(
    [
      {
        title: '48 kHz → 16 kHz: tone gain below 8 kHz, alias level above (lower is better)',
        xMaxHz: 24_000,
        yMinDb: -140,
        yMaxDb: 10,
        series: seriesFor(
          rows.filter((r) => r.direction === 'down'),
          'down',
        ),
        vLines: [
          { hz: 7000, label: 'passband 7k' },
          { hz: 8000, label: 'every input above 8k aliases' },
        ],
        hLines: [{ db: -90, label: 'target -90 dB' }],
      },
      {
        title: '24 kHz → 48 kHz: tone gain below 12 kHz, image level (at 24k − f) above',
        xMaxHz: 24_000,
        yMinDb: -140,
        yMaxDb: 10,
        series: seriesFor(
          rows.filter((r) => r.direction === 'up'),
          'up',
        ),
        vLines: [
          { hz: 10_000, label: 'passband 10k' },
          { hz: 12_000, label: 'images from 12k' },
        ],
        hLines: [{ db: -90, label: 'target -90 dB' }],
      },
    ],
    [
      `Measured: a tone every ${SWEEP_STEP_HZ} Hz at -0.8 dBFS with ±1 LSB TPDF dither through each method's s16 output (0.2 s windows on exact DFT bins;`,
      `measurement floor about -125 dB). The dashed line is our filters' designed response. ${new Date().toISOString()}`,
    ],
  );
  await sharp(Buffer.from(svg)).png().toFile(file);
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const soxrMissing = ffmpegAvailable();
  if (soxrMissing !== null) console.log(`soxr column skipped: ${soxrMissing}; SNR column has no reference`);
  const speechDown = toInt16Mono(speechLike(48_000, SPEECH_S, 1));
  const speechUp = toInt16Mono(speechLike(24_000, SPEECH_S, 2));
  const downSoxr = soxrDownsampler(soxrMissing);
  const upSoxr = soxrUpsampler(soxrMissing);
  const downSignals = {
    sweep: toneSweep(48_000, 1, DOWN_TONES, prng(1)),
    delay: delaySignal(48_000, 1),
    speech: speechDown,
    long: repeatTo(speechDown, THROUGHPUT_S / SPEECH_S),
    reference: downSoxr.runWhole?.(speechDown) ?? null,
  };
  const upSignals = {
    sweep: toneSweep(24_000, 1, UP_TONES, prng(2)),
    delay: delaySignal(24_000, 1),
    speech: speechUp,
    long: repeatTo(speechUp, THROUGHPUT_S / SPEECH_S),
    reference: upSoxr.runWhole?.(speechUp) ?? null,
  };
  // Opus: compare against soxr applied to what the decoder gives at 48 kHz (the codec's own loss is common to both).
  const opusDecoded48k = opusRoundTrip48k(speechDown);
  const opusReference =
    opusDecoded48k !== null && downSoxr.runWhole !== undefined ? downSoxr.runWhole(opusDecoded48k) : null;

  const rows: Row[] = [];
  console.log(
    `Audio resampler benchmark on ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, one thread`,
  );
  rows.push(
    await measure('down', ourDownsampler(), downSignals, {
      ours: true,
      designedDelayMs: new Downsampler48kTo16k().groupDelayMs,
    }),
  );
  rows.push(await measure('down', anchorDownsampler(), downSignals, { ours: false }));
  rows.push(await measure('down', libsamplerateDownsampler(SRC_SINC_BEST), downSignals, { ours: false }));
  rows.push(await measure('down', libsamplerateDownsampler(SRC_SINC_FASTEST), downSignals, { ours: false }));
  rows.push(await measure('down', downSoxr, downSignals, { ours: false, isReference: true }));
  rows.push(await measure('down', opusDirect16k(), downSignals, { ours: false, referenceOverride: opusReference }));
  rows.push(
    await measure('up', ourUpsampler(), upSignals, {
      ours: true,
      designedDelayMs: new Upsampler24kTo48k().groupDelayMs,
    }),
  );
  rows.push(await measure('up', anchorUpsampler(), upSignals, { ours: false }));
  rows.push(await measure('up', libsamplerateUpsampler(SRC_SINC_BEST), upSignals, { ours: false }));
  rows.push(await measure('up', libsamplerateUpsampler(SRC_SINC_FASTEST), upSignals, { ours: false }));
  rows.push(await measure('up', upSoxr, upSignals, { ours: false, isReference: true }));

  for (const direction of ['down', 'up'] as const) {
    const soxr = rows.find(
      (r) => r.direction === direction && r.snrVsSoxrDb === 'reference' && r.realTimeFactor !== undefined,
    );
    for (const r of rows)
      if (r.direction === direction && r.realTimeFactor !== undefined)
        r.soxrRatio = soxr === undefined ? null : r.realTimeFactor / soxr.realTimeFactor!;
  }

  const lines = [
    '',
    '48 kHz → 16 kHz, mono (Discord → model)',
    ...tableLines(
      rows.filter((r) => r.direction === 'down'),
      'down',
    ),
    '',
    '24 kHz → 48 kHz, mono (model → Discord)',
    ...tableLines(
      rows.filter((r) => r.direction === 'up'),
      'up',
    ),
    '',
    'Targets (ours): worst alias/image ≥ 90 dB over every input frequency, passband deviation ≤ 0.1 dB, ≥ 300× real time, 0 heap bytes per 20 ms frame, delay ≤ 3 ms.',
    ...Object.entries(DEFINITIONS).map(([key, text]) => `${key}: ${text}.`),
    ...rows.filter((r) => r.note !== undefined).map((r) => `Note, ${r.direction} ${r.name}: ${r.note}`),
  ];
  console.log(lines.join('\n'));

  mkdirSync(RESULTS_DIR, { recursive: true });
  const json = {
    generatedAt: new Date().toISOString(),
    machine: { cpu: os.cpus()[0]?.model ?? null, cores: os.cpus().length, node: process.version },
    targets: TARGETS,
    definitions: DEFINITIONS,
    signals: {
      speechLikeSeconds: SPEECH_S,
      throughputSeconds: THROUGHPUT_S,
      toneDbfs: -0.8,
      sweepStepHz: SWEEP_STEP_HZ,
      dither: 'TPDF ±1 LSB',
    },
    rows: rows.map(({ tones: _tones, ...rest }) => rest),
  };
  writeFileSync(path.join(RESULTS_DIR, 'audio.json'), JSON.stringify(json, null, 2) + '\n');
  await writePlot(rows, path.join(RESULTS_DIR, 'audio-response.png'));
  console.log(`\nwrote ${path.relative(process.cwd(), path.join(RESULTS_DIR, 'audio.json'))} and audio-response.png`);
}

await main();
