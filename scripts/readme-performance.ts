// npm run docs:perf — regenerates README.md's performance tables between the perf markers from
// bench/results/*.json: audio.json and latency.json (this project's benches), and store.json and
// voice.json when present. README figures come from the benchmarks' JSON, never typed by hand; a
// result file that is absent is skipped, one that does not parse stops the script. The soak table
// has its own markers (npm run soak:readme). Usage: npm run docs:perf [-- --check] (--check: exit 1
// if README.md is not up to date, change nothing).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const RESULTS = fileURLToPath(new URL('../bench/results/', import.meta.url));
export const BEGIN = '<!-- perf:begin (npm run docs:perf) -->';
export const END = '<!-- perf:end -->';

const num = z.number().nullable().optional();
const machine = z
  .object({ cpu: z.string().nullable().optional(), cores: z.number().optional(), node: z.string().optional() })
  .passthrough();

const audioSchema = z
  .object({
    generatedAt: z.string(),
    machine,
    targets: z.record(z.string(), z.number()),
    definitions: z.record(z.string(), z.string()).optional(),
    rows: z.array(
      z
        .object({
          direction: z.enum(['down', 'up']),
          name: z.string(),
          ours: z.boolean(),
          skipped: z.string().optional(),
          worstRejectionDb: num,
          worstAt: z.object({ inputHz: z.number(), spurHz: z.number() }).optional(),
          inBandRejectionDb: num,
          passbandDeviationDb: num,
          realTimeFactor: num,
          soxrRatio: num,
          delayMs: num,
          bytesPerFrame: num,
        })
        .passthrough(),
    ),
  })
  .passthrough();

const percentiles = z.object({ count: z.number(), p50_ms: num, p95_ms: num, p99_ms: num }).passthrough();
const providerRowSchema = z
  .object({
    provider: z.string(),
    model: z.string(),
    ingressP50Ms: num,
    ingressP95Ms: num,
    ingressN: z.number(),
    egressP50Ms: num,
    egressP95Ms: num,
    egressN: z.number(),
    bargeInP50Ms: num,
    bargeInP95Ms: num,
    bargeInN: z.number(),
    // The service's signal → the cut, beside the user's barge-in (issue #44); absent from results written before.
    serviceSignalToCutP95Ms: num,
    coreCpuCallPercent: num,
    coreCpuCallWorst10sPercent: num.optional(),
    // The turn (issue #44; #52's fields below); absent from results written before them.
    endOfSpeechToStreamEndP50Ms: num,
    endOfSpeechToStreamEndP95Ms: num,
    endOfSpeechToStreamEndCorpusP95Ms: num,
    falseCutoffPercent: num,
    endOfSpeechToFirstAudioP50Ms: num,
    endOfSpeechToFirstAudioP95Ms: num,
    modelledFirstAudioAfterTurnEndMs: num,
    modelledDelayApplied: z.boolean().optional(),
    // Issue #52: the service decides the turn; what the bridge adds to its window, and the corpus cut-offs.
    serviceWindowP50Ms: num,
    bridgeTurnShareP50Ms: num,
    bridgeTurnShareP95Ms: num,
    bridgeTurnShareWorstMs: num,
    bridgeTurnShareN: z.number().optional(),
    serviceRule: z.string().optional(),
    bridgeCutoffPercent: num,
    serviceCutoffPercent: num,
    // The core's CPU over the library floor's in the same run (issue 51 item 6); absent from results written before.
    cpuVsFloor: num.optional(),
  })
  .passthrough();
// rssMb and seconds are absent from results written before they were added to the row.
const floorFieldsSchema = z
  .object({
    provider: z.string().optional(),
    cpuPercent: num,
    cpuWorst10sPercent: num,
    rssMb: num.optional(),
    seconds: num.optional(),
  })
  .passthrough();
// perProvider: one floor per provider of the run; absent from results with the Gemini floor alone.
const libraryFloorSchema = floorFieldsSchema.extend({
  cpuVsFloorTarget: z.number(),
  perProvider: z.array(floorFieldsSchema).optional(),
});
const turnCorpusSchema = z.record(
  z.string(),
  z
    .object({
      provider: z.string(),
      serviceRule: z.string(),
      pauses: z.number(),
      bridgeCutoffPercent: z.number(),
      serviceCutoffPercent: z.number(),
    })
    .passthrough(),
);
const hangoverSweepSchema = z.array(
  z.object({ hangoverMs: z.number(), falseCutoffPercent: z.number(), endOfSpeechToStreamEndP95Ms: num }).passthrough(),
);
const latencySchema = z
  .object({
    date: z.string(),
    machine,
    coreCpuIdleCallPercent: num,
    coreCpuCallPercent: num,
    coreCpuCallWorst10sPercent: num.optional(),
    rssIdleMb: num,
    rssMaxMb: num,
    rssEndMb: num,
    // From `bench:latency -- --memory` (bench/lib/latency-memory.ts); absent after a default run.
    rssIdleSourceMb: num.optional(),
    rssFlatness10minMb: num.optional(),
    coreCpuLongCallPercent: num.optional(),
    coreCpuLongCallAfter60sPercent: num.optional(),
    coreCpuLongCallWorst10sPercent: num.optional(),
    rssAfterRequestsIdleMb: num.optional(),
    rssAfterRequestsMb: num.optional(),
    rssAfterRequestsSettledMb: num.optional(),
    speakers: z
      .array(
        z
          .object({
            speakers: z.number(),
            seconds: z.number(),
            framesSent: z.number(),
            framesDecoded: z.number(),
            framesDropped: z.number(),
            decodedPercent: z.number(),
            ingress: percentiles,
            coreCpuPercent: z.number().optional(),
          })
          .passthrough(),
      )
      .optional(),
    providers: z.array(providerRowSchema).optional(),
    libraryFloor: libraryFloorSchema.nullable().optional(),
    endOfTurnHangoverSweep: hangoverSweepSchema.optional(),
    // Issue #52 (absent from results written before it).
    turnCorpus: turnCorpusSchema.optional(),
    adaptiveCutoffsLearning: num,
    adaptiveCutoffsAfter: num,
    phantomStartsPerHour: num,
    definitions: z.record(z.string(), z.string()).optional(),
    setup: z
      .object({ call_s: z.number(), provider: z.string().optional(), model_id: z.string().optional() })
      .passthrough(),
    targets: z.record(z.string(), z.number()).optional(),
    latency: z
      .object({
        ingress: percentiles,
        egress: percentiles,
        barge_in: percentiles,
        wire: z.object({ egress: percentiles.optional(), barge_in: percentiles.optional() }).passthrough().optional(),
      })
      .passthrough(),
    cpu: z
      .object({
        audio_path: z.object({ total_percent_of_core: z.number() }).passthrough(),
        core_call_per_audio_path: num.optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();

/** Other helpers' results: shown as their scalar fields, with their own definitions when given. */
const genericSchema = z.record(z.string(), z.unknown());

const f = (v: number | null | undefined, digits: number, unit = ''): string =>
  v === null || v === undefined || !Number.isFinite(v)
    ? '—'
    : `${(Math.abs(v) < 0.5 * 10 ** -digits ? 0 : v).toFixed(digits)}${unit}`;
const check = (ok: boolean | null): string => (ok === null ? '' : ok ? ' ✓' : ' ✗');
/** A call's worst 10 s window beside its average (absent in results from before the field existed). */
const worst = (v: number | null | undefined, limit?: number): string =>
  v === undefined
    ? ''
    : ` (worst 10 s: ${f(v, 2)} %${typeof v === 'number' && limit !== undefined ? check(v <= limit) : ''})`;
const machineLine = (m: z.infer<typeof machine>, when: string): string => {
  const load =
    Array.isArray(m.load_avg_before) && typeof m.load_avg_before[0] === 'number'
      ? `, load average ${m.load_avg_before[0]} (shared machine)`
      : '';
  return `${m.cpu ?? 'unknown CPU'}, ${m.cores ?? '?'} cores, Node ${m.node ?? '?'}${load}; ${when}`;
};

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

function audioSection(audio: z.infer<typeof audioSchema>): string[] {
  const t = audio.targets;
  const lines = [
    `**Resamplers** (\`npm run bench:audio\`, bench/results/audio.json; ${machineLine(audio.machine, audio.generatedAt.slice(0, 10))}):`,
    '',
  ];
  for (const direction of ['down', 'up'] as const) {
    lines.push(direction === 'down' ? '48 kHz → 16 kHz (mono):' : '24 kHz → 48 kHz (mono):', '');
    const rows = audio.rows
      .filter((r) => r.direction === direction && r.skipped === undefined)
      .map((r) => {
        const worst = r.worstRejectionDb ?? null;
        return [
          r.ours ? `**${r.name}**` : r.name,
          `${f(worst, 1)}${r.worstAt ? ` (at ${(r.worstAt.inputHz / 1000).toFixed(3)} kHz)` : ''}${r.ours && worst !== null ? check(worst >= (t.worstRejectionDb ?? 90)) : ''}`,
          f(r.inBandRejectionDb, 1),
          `${f(r.passbandDeviationDb, 4)}${r.ours && typeof r.passbandDeviationDb === 'number' ? check(r.passbandDeviationDb <= (t.passbandDeviationDb ?? 0.1)) : ''}`,
          `${f(r.realTimeFactor, 0)}${r.ours && typeof r.realTimeFactor === 'number' ? check(r.realTimeFactor >= (t.realTimeFactor ?? 300)) : ''}`,
          f(r.soxrRatio, 2, '×'),
          `${f(r.delayMs, 2)}${r.ours && typeof r.delayMs === 'number' ? check(r.delayMs <= (t.delayMs ?? 3)) : ''}`,
          r.bytesPerFrame === null ? 'n/a' : f(r.bytesPerFrame, 1),
        ];
      });
    lines.push(
      ...table(
        [
          'method',
          'worst alias/image dB, any input',
          'in-band dB',
          'passband dev. dB',
          '× real time (CPU)',
          'vs soxr',
          'delay ms',
          'heap B/frame',
        ],
        rows,
      ),
      '',
    );
    const skipped = audio.rows.filter((r) => r.direction === direction && r.skipped !== undefined);
    for (const r of skipped) lines.push(`(${r.name}: skipped, ${r.skipped})`, '');
  }
  lines.push(
    `Targets for ours: worst ≥ ${t.worstRejectionDb ?? 90} dB, passband ≤ ${t.passbandDeviationDb ?? 0.1} dB, ≥ ${t.realTimeFactor ?? 300}× real time, 0 heap bytes per frame, delay ≤ ${t.delayMs ?? 3} ms.`,
  );
  for (const key of ['worstRejectionDb', 'realTimeFactor', 'delayMs'] as const) {
    const text = audio.definitions?.[key];
    if (text) lines.push(`*${key}*: ${text}.`);
  }
  return lines;
}

function latencySection(lat: z.infer<typeof latencySchema>): string[] {
  const tg = lat.targets ?? {};
  const p = (s: z.infer<typeof percentiles> | undefined) =>
    s ? `p50 ${f(s.p50_ms, 2)} / p95 ${f(s.p95_ms, 2)} ms (n=${s.count})` : '—';
  const le = (v: number | null | undefined, limit: number | undefined) =>
    typeof v === 'number' && limit !== undefined ? check(v <= limit) : '';
  // Issue 18's memory targets (bench/lib/latency-memory.ts MEMORY_TARGETS, copied into latency.json's targets).
  const flatnessMb = tg.rss_flatness_mb ?? 10;
  const afterRequestsMb = tg.rss_after_requests_over_idle_mb ?? 20;
  const rows: string[][] = [
    [
      'core CPU in a call, nobody speaking',
      `${f(lat.coreCpuIdleCallPercent, 2)} % of a core${le(lat.coreCpuIdleCallPercent, tg.core_cpu_idle_call_percent)}`,
      `≤ ${tg.core_cpu_idle_call_percent ?? 0.5} %`,
    ],
    [
      'core CPU in a call, one speaker, model replying',
      `${f(lat.coreCpuCallPercent, 2)} % of a core${le(lat.coreCpuCallPercent, tg.core_cpu_call_percent)}${worst(lat.coreCpuCallWorst10sPercent, tg.core_cpu_call_worst_10s_percent)}`,
      `≤ ${tg.core_cpu_call_percent ?? 3} %${tg.core_cpu_call_worst_10s_percent === undefined ? '' : ` (worst 10 s ≤ ${tg.core_cpu_call_worst_10s_percent} %)`}`,
    ],
    [
      'core RSS idle / max in the call / at the end',
      `${f(lat.rssIdleMb, 1)} / ${f(lat.rssMaxMb, 1)} / ${f(lat.rssEndMb, 1)} MB${le(lat.rssIdleMb, tg.rss_idle_mb)}`,
      `idle ≤ ${tg.rss_idle_mb ?? 120} MB`,
    ],
    [
      'ingress (packet PCM in → model socket)',
      `${p(lat.latency.ingress)}${le(lat.latency.ingress.p95_ms, tg.ingress_p95_ms)}`,
      `p95 ≤ ${tg.ingress_p95_ms ?? 25} ms`,
    ],
    [
      'egress, on the wire (model sends → first RTP at Discord)',
      `${p(lat.latency.wire?.egress)}${le(lat.latency.wire?.egress?.p95_ms, tg.egress_p95_ms)}`,
      `p95 ≤ ${tg.egress_p95_ms ?? 40} ms`,
    ],
    [
      userBargeIn(lat.providers)
        ? "barge-in, on the wire (speaker's first sounding packet → reply's last speech RTP)"
        : 'barge-in, on the wire (interrupted → last speech RTP)',
      `${p(lat.latency.wire?.barge_in)}${le(lat.latency.wire?.barge_in?.p95_ms, tg.barge_in_ms)}`,
      `≤ ${tg.barge_in_ms ?? 20} ms`,
    ],
  ];
  if (lat.rssIdleSourceMb !== undefined)
    rows.push([
      'core RSS idle, run from TypeScript source instead (no launcher does)',
      `${f(lat.rssIdleSourceMb, 1)} MB`,
      "comparison: Node's type stripper in the process",
    ]);
  if (lat.coreCpuLongCallAfter60sPercent !== undefined) {
    rows.push([
      'core CPU over a 10-minute call, one speaker, model replying: whole / after the first minute',
      `${f(lat.coreCpuLongCallPercent, 2)} / ${f(lat.coreCpuLongCallAfter60sPercent, 2)} % of a core${le(Math.max(lat.coreCpuLongCallPercent ?? Infinity, lat.coreCpuLongCallAfter60sPercent ?? Infinity), tg.core_cpu_call_percent)}${worst(lat.coreCpuLongCallWorst10sPercent)}`,
      `≤ ${tg.core_cpu_call_percent ?? 3} %`,
    ]);
  }
  if (lat.rssFlatness10minMb !== undefined)
    rows.push([
      'core RSS range over a 10-minute call (20 s → end)',
      `${f(lat.rssFlatness10minMb, 1)} MB${le(lat.rssFlatness10minMb, flatnessMb)}`,
      `flat: ± 5 MB (range ≤ ${flatnessMb})`,
    ]);
  if (lat.rssAfterRequestsSettledMb !== undefined && lat.rssAfterRequestsIdleMb !== undefined) {
    const over =
      typeof lat.rssAfterRequestsSettledMb === 'number' && typeof lat.rssAfterRequestsIdleMb === 'number'
        ? lat.rssAfterRequestsSettledMb - lat.rssAfterRequestsIdleMb
        : null;
    rows.push([
      'core RSS, 8,000 requests: idle / right after / a minute after',
      `${f(lat.rssAfterRequestsIdleMb, 1)} / ${f(lat.rssAfterRequestsMb, 1)} / ${f(lat.rssAfterRequestsSettledMb, 1)} MB${le(over, afterRequestsMb)}`,
      `a minute after ≤ idle + ${afterRequestsMb} MB`,
    ]);
  }
  if (lat.cpu) {
    const ratio =
      typeof lat.cpu.core_call_per_audio_path === 'number'
        ? ` (the call above: ${f(lat.cpu.core_call_per_audio_path, 2)} × this, a machine-speed reference)`
        : '';
    rows.push([
      'audio path alone, timed per stage',
      `${f(lat.cpu.audio_path.total_percent_of_core, 2)} % of a core${ratio}`,
      `≤ ${tg.audio_path_percent_of_core ?? 2} %`,
    ]);
  }
  for (const s of lat.speakers ?? []) {
    rows.push([
      `${s.speakers} speaker(s) at once, ${s.seconds} s: frames sent / decoded / dropped`,
      `${s.framesSent} / ${s.framesDecoded} (${s.decodedPercent.toFixed(2)} %) / ${s.framesDropped}${check(s.framesDropped === 0 && s.decodedPercent >= 99.9)}; ingress p95 ${f(s.ingress.p95_ms, 2)} ms${s.coreCpuPercent === undefined ? '' : `; core CPU ${f(s.coreCpuPercent, 2)} %${s.speakers >= 10 ? le(s.coreCpuPercent, tg.ten_speakers_cpu_percent) : ''}`}`,
      `0 dropped, ≥ 99.9 % decoded${s.speakers >= 10 && tg.ten_speakers_cpu_percent !== undefined ? `; core ≤ ${tg.ten_speakers_cpu_percent} %` : ''}`,
    ]);
  }
  const carrier = lat.setup.provider
    ? `, carried by ${lat.setup.provider}${lat.setup.model_id ? ` ${lat.setup.model_id}` : ''}`
    : '';
  const lines = [
    `**A call** (\`npm run bench:latency\`, bench/results/latency.json; ${lat.setup.call_s} s call${carrier}, the core alone in its own process, CPU time and RSS from /proc; ${machineLine(lat.machine, lat.date.slice(0, 10))}):`,
    '',
  ];
  lines.push(...table(['metric', 'measured', 'target'], rows));
  if (lat.providers?.length)
    lines.push('', ...providerSection(lat.providers, tg, lat.setup.call_s, lat.libraryFloor ?? null));
  if (lat.providers?.some((r) => r.bridgeTurnShareP95Ms !== undefined))
    lines.push('', ...serviceTurnSection(lat, lat.providers, tg));
  else if (lat.providers?.some((r) => r.endOfSpeechToStreamEndP95Ms !== undefined))
    lines.push('', ...turnSection(lat.providers, tg, lat.endOfTurnHangoverSweep ?? []));
  const defs = lat.definitions ?? {};
  for (const key of [
    'coreCpuIdleCallPercent',
    'coreCpuCallPercent',
    'coreCpuCallWorst10sPercent',
    'rssIdleMb',
    'rssIdleSourceMb',
    'coreCpuLongCallPercent',
    'coreCpuLongCallAfter60sPercent',
    'coreCpuLongCallWorst10sPercent',
    'rssFlatness10minMb',
    'rssAfterRequestsMb',
    'rssAfterRequestsSettledMb',
    'speakers',
    'providers',
    ...(lat.libraryFloor ? ['libraryFloor'] : []),
  ])
    if (defs[key]) lines.push('', `*${key}*: ${defs[key]}.`);
  return lines;
}

/**
 * Whether the results measure barge-in as a user lives it (the speaker's onset → the reply's cut,
 * issue #44, with the service's signal beside it as serviceSignalToCut*); results written before
 * counted from the service's signal, and keep that label.
 */
const userBargeIn = (rows: readonly z.infer<typeof providerRowSchema>[] | undefined): boolean =>
  rows?.some((r) => r.serviceSignalToCutP95Ms !== undefined) ?? false;

/** Provider × hop: the same call once per live model provider (bench/results/latency.json `providers`). */
function providerSection(
  rows: z.infer<typeof providerRowSchema>[],
  tg: Record<string, number>,
  callS: number,
  floor: z.infer<typeof libraryFloorSchema> | null,
): string[] {
  const vsFloor = (r: z.infer<typeof providerRowSchema>): string[] =>
    floor
      ? [
          `${f(r.cpuVsFloor, 2)} ×${typeof r.cpuVsFloor === 'number' ? check(r.cpuVsFloor <= floor.cpuVsFloorTarget) : ''}`,
        ]
      : [];
  const hop = (p50: number | null | undefined, p95: number | null | undefined, n: number, limit: number | undefined) =>
    `${f(p50, 2)} / ${f(p95, 2)} (n=${n})${typeof p95 === 'number' && limit !== undefined ? check(p95 <= limit) : ''}`;
  const body = rows.map((r) => [
    `${r.provider} (${r.model})`,
    hop(r.ingressP50Ms, r.ingressP95Ms, r.ingressN, tg.ingress_p95_ms),
    hop(r.egressP50Ms, r.egressP95Ms, r.egressN, tg.egress_p95_ms),
    hop(r.bargeInP50Ms, r.bargeInP95Ms, r.bargeInN, tg.barge_in_ms),
    `${f(r.coreCpuCallPercent, 2)}${typeof r.coreCpuCallPercent === 'number' && tg.core_cpu_call_percent !== undefined ? check(r.coreCpuCallPercent <= tg.core_cpu_call_percent) : ''}${worst(r.coreCpuCallWorst10sPercent, tg.core_cpu_call_worst_10s_percent)}`,
    ...vsFloor(r),
  ]);
  body.push([
    'target',
    `p95 ≤ ${tg.ingress_p95_ms ?? 25}`,
    `p95 ≤ ${tg.egress_p95_ms ?? 40}`,
    `p95 ≤ ${tg.barge_in_ms ?? 20}`,
    `≤ ${tg.core_cpu_call_percent ?? 3}`,
    ...(floor ? [`≤ ${floor.cpuVsFloorTarget} ×`] : []),
  ]);
  const floorRow = (x: z.infer<typeof floorFieldsSchema>, who: string): string[] => [
    `library floor (bare @discordjs/voice + ws, ${who})`,
    '',
    '',
    '',
    `${f(x.cpuPercent, 2)} (worst 10 s ${f(x.cpuWorst10sPercent, 2)}${typeof x.rssMb === 'number' ? `; RSS ${f(x.rssMb, 1)} MB` : ''})`,
    '1 ×',
  ];
  if (floor?.perProvider?.length) for (const x of floor.perProvider) body.push(floorRow(x, x.provider ?? '?'));
  else if (floor) body.push(floorRow(floor, 'Gemini'));
  return [
    `**Per provider** (the same ${callS} s call once per live model provider, a fresh core each, in one run${floor ? '; the library floor: the same call with a bare script on the same libraries in the core\'s place, bench/library-floor.ts, docs/performance.md "The library floor"' : ''}):`,
    '',
    ...table(
      [
        'provider (model)',
        'ingress p50 / p95 ms',
        'egress, on the wire p50 / p95 ms',
        userBargeIn(rows) ? "barge-in, speaker's onset → cut p50 / p95 ms" : 'barge-in, on the wire p50 / p95 ms',
        'core CPU % of a core',
        ...(floor ? ['CPU vs library floor'] : []),
      ],
      body,
    ),
  ];
}

/** The turn per provider (issue #44): end of speech → the service's end of turn → first reply audio, and the pause corpus. */
function turnSection(
  rows: z.infer<typeof providerRowSchema>[],
  tg: Record<string, number>,
  sweep: z.infer<typeof hangoverSweepSchema>,
): string[] {
  const limit = (value: number | null | undefined, max: number | undefined) =>
    typeof value === 'number' && max !== undefined ? check(value <= max) : '';
  const body = rows.map((r) => [
    r.provider,
    `${f(r.endOfSpeechToStreamEndP50Ms, 0)} / ${f(r.endOfSpeechToStreamEndP95Ms, 0)}${limit(r.endOfSpeechToStreamEndP95Ms, tg.end_of_speech_to_stream_end_p95_ms)} (corpus p95 ${f(r.endOfSpeechToStreamEndCorpusP95Ms, 0)})`,
    `${f(r.falseCutoffPercent, 1)}${limit(r.falseCutoffPercent, tg.false_cutoff_percent)}`,
    `${f(r.endOfSpeechToFirstAudioP50Ms, 0)} / ${f(r.endOfSpeechToFirstAudioP95Ms, 0)} (service ${f(r.modelledFirstAudioAfterTurnEndMs, 0)}${r.modelledDelayApplied === false ? ', not applied in this run' : ''})`,
    `${f(r.bargeInP95Ms, 2)}${limit(r.bargeInP95Ms, tg.barge_in_ms)}`,
    `${f(r.coreCpuCallPercent, 2)}${limit(r.coreCpuCallPercent, tg.core_cpu_call_percent)}`,
  ]);
  body.push([
    'target',
    `p95 ≤ ${tg.end_of_speech_to_stream_end_p95_ms ?? 250}`,
    `≤ ${tg.false_cutoff_percent ?? 5}`,
    '',
    `≤ ${tg.barge_in_ms ?? 20}`,
    `≤ ${tg.core_cpu_call_percent ?? 3}`,
  ]);
  const curve = sweep.map((s) => `${s.hangoverMs} ms → ${f(s.falseCutoffPercent, 1)} %`).join(', ');
  return [
    '**The turn, per provider** (same run; the false cut-offs: the provider\'s voice gate on the labelled pause corpus, 30 mid-sentence pauses of 200–900 ms; docs/performance.md "End of turn"):',
    '',
    ...table(
      [
        'provider',
        'end of speech → stream end p50 / p95 ms',
        'false cut-offs %',
        'end of speech → first audio p50 / p95 ms (modelled service delay)',
        'barge-in p95 ms',
        'core CPU % (one speaker)',
      ],
      body,
    ),
    ...(curve ? ['', `Gate hangover → pauses cut on the corpus: ${curve}.`] : []),
  ];
}

/**
 * The turn per provider since issue #52 (the service ends it): what the bridge adds to the
 * service's own window, the pause corpus's cut-offs (the bridge's and the service's own), the wait
 * to the first reply audio beside the modelled service delay, the adaptive run and phantom turns.
 */
function serviceTurnSection(
  lat: z.infer<typeof latencySchema>,
  rows: z.infer<typeof providerRowSchema>[],
  tg: Record<string, number>,
): string[] {
  const le = (value: number | null | undefined, max: number | undefined) =>
    typeof value === 'number' && max !== undefined ? check(value <= max) : '';
  const body = rows.map((r) => [
    r.provider,
    r.serviceRule ?? '—',
    `${f(r.bridgeTurnShareP50Ms, 0)} / ${f(r.bridgeTurnShareP95Ms, 0)}${le(r.bridgeTurnShareP95Ms, tg.bridge_turn_share_p95_ms)} / ${f(r.bridgeTurnShareWorstMs, 0)} (n=${r.bridgeTurnShareN ?? 0})`,
    `${f(r.bridgeCutoffPercent, 1)}${le(r.bridgeCutoffPercent, tg.bridge_cutoff_percent)}`,
    f(r.serviceCutoffPercent, 1),
    `${f(r.endOfSpeechToStreamEndP50Ms, 0)} / ${f(r.endOfSpeechToStreamEndP95Ms, 0)} (window ${f(r.serviceWindowP50Ms, 0)})`,
    `${f(r.endOfSpeechToFirstAudioP50Ms, 0)} / ${f(r.endOfSpeechToFirstAudioP95Ms, 0)} (service ${f(r.modelledFirstAudioAfterTurnEndMs, 0)}${r.modelledDelayApplied === false ? ', not applied in this run' : ''})`,
  ]);
  const called = new Set(rows.map((r) => r.provider));
  for (const c of Object.values(lat.turnCorpus ?? {}).filter((c) => !called.has(c.provider))) {
    body.push([
      `${c.provider} (corpus only: no bench call)`,
      c.serviceRule,
      '—',
      `${f(c.bridgeCutoffPercent, 1)}${le(c.bridgeCutoffPercent, tg.bridge_cutoff_percent)}`,
      f(c.serviceCutoffPercent, 1),
      '—',
      '—',
    ]);
  }
  body.push([
    'target',
    '',
    `p95 ≤ ${tg.bridge_turn_share_p95_ms ?? 40}`,
    `= ${tg.bridge_cutoff_percent ?? 0}`,
    '(patience decides)',
    '(information)',
    '',
  ]);
  const lines = [
    "**The turn, per provider** (issue #52: the service's detector ends it; same run; the cut-offs: the labelled pause corpus, 30 mid-sentence pauses of 200–900 ms, through the call's gate and the service's rule at patience natural; docs/performance.md \"End of turn\"):",
    '',
    ...table(
      [
        'provider',
        'service rule (natural)',
        "bridge's turn share p50 / p95 / worst ms",
        'bridge cut-offs %',
        'service cut-offs %',
        'end of speech → service end p50 / p95 ms (its window)',
        'end of speech → first audio p50 / p95 ms (modelled service delay)',
      ],
      body,
    ),
  ];
  const extra: string[] = [];
  if (typeof lat.adaptiveCutoffsLearning === 'number')
    extra.push(
      `Adaptive patience, a speaker who pauses 1.2 s mid-sentence: cut ${lat.adaptiveCutoffsLearning} times while learning${le(lat.adaptiveCutoffsLearning, tg.adaptive_cutoffs_learning)} (≤ ${tg.adaptive_cutoffs_learning ?? 2}), ${lat.adaptiveCutoffsAfter ?? '—'} in the next 20 turns${le(lat.adaptiveCutoffsAfter, tg.adaptive_cutoffs_after)} (= ${tg.adaptive_cutoffs_after ?? 0}).`,
    );
  if (typeof lat.phantomStartsPerHour === 'number')
    extra.push(`Phantom turns: ${f(lat.phantomStartsPerHour, 0)} gate opens per hour of noise (the noise corpus).`);
  const sweep = (lat.endOfTurnHangoverSweep ?? [])
    .map((s) => `${s.hangoverMs} ms → ${f(s.falseCutoffPercent, 1)} %`)
    .join(', ');
  if (sweep)
    extra.push(
      `Information only: the gate closing at a hangover (how every turn ended before #52; now only an utterance nobody downstream owns) → pauses cut: ${sweep}.`,
    );
  if (extra.length) lines.push('', ...extra);
  const defs = lat.definitions ?? {};
  for (const key of ['turnCorpus', 'adaptiveCutoffsLearning', 'adaptiveCutoffsAfter', 'phantomStartsPerHour'])
    if (defs[key]) lines.push('', `*${key}*: ${defs[key]}.`);
  return lines;
}

/** The latency bench's README part from its JSON (exported for the tests). */
export function latencyMarkdown(json: unknown): string {
  return latencySection(latencySchema.parse(json)).join('\n');
}

function genericSection(name: string, data: Record<string, unknown>): string[] {
  const defs = (typeof data.definitions === 'object' && data.definitions !== null ? data.definitions : {}) as Record<
    string,
    unknown
  >;
  const rows: string[][] = [];
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== 'number' && typeof value !== 'boolean') continue;
    const definition = typeof defs[key] === 'string' ? (defs[key] as string) : '';
    rows.push([
      key,
      typeof value === 'number' ? String(Math.round(value * 1000) / 1000) : String(value),
      definition.replace(/\|/g, '\\|'),
    ]);
  }
  if (rows.length === 0) return [];
  return [`**${name}** (bench/results/${name}.json):`, '', ...table(['field', 'value', 'definition'], rows)];
}

const voiceChurnSchema = z
  .object({
    churn: z
      .object({
        membershipChanges: z.number(),
        rekeys: z.number(),
        silentRekeys: z.number().optional(),
        maxDeafMs: z.number(),
        maxMuteMs: z.number(),
        framesSent: z.number(),
        framesDecoded: z.number(),
        decodedOutsideDeafWindowsPercent: z.number(),
        rejoins: z.number(),
        callSeconds: z.number().optional(),
        measuredAt: z.string().optional(),
        targets: z.object({
          maxDeafMs: z.number(),
          maxMuteMs: z.number(),
          decodedOutsideDeafWindowsPercent: z.number(),
          rejoins: z.number(),
        }),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();

/** The `churn` row of voice.json (`npm run bench:voice -- --churn N`): a DAVE call in a room that keeps changing. */
function voiceChurnSection(c: NonNullable<z.infer<typeof voiceChurnSchema>['churn']>): string[] {
  const t = c.targets;
  const rows = [
    [
      'membership changes / MLS commits (re-keys)',
      `${c.membershipChanges} / ${c.rekeys}${c.silentRekeys === undefined ? '' : ` (${c.silentRekeys} silent re-keys)`}`,
      '',
    ],
    [
      'longest deaf stretch (a talking speaker not decoded)',
      `${c.maxDeafMs} ms${check(c.maxDeafMs <= t.maxDeafMs)}`,
      `≤ ${t.maxDeafMs} ms`,
    ],
    [
      'longest mute stretch (bot audio the listener cannot play)',
      `${c.maxMuteMs} ms${check(c.maxMuteMs <= t.maxMuteMs)}`,
      `≤ ${t.maxMuteMs} ms`,
    ],
    ['speaker frames sent / decoded', `${c.framesSent} / ${c.framesDecoded}`, ''],
    [
      'decoded outside the deaf stretches',
      `${f(c.decodedOutsideDeafWindowsPercent, 3, ' %')}${check(c.decodedOutsideDeafWindowsPercent >= t.decodedOutsideDeafWindowsPercent)}`,
      `≥ ${t.decodedOutsideDeafWindowsPercent} %`,
    ],
    ['fresh voice joins', `${c.rejoins}${check(c.rejoins <= t.rejoins)}`, `≤ ${t.rejoins}`],
  ];
  const when = c.measuredAt ? `; ${c.measuredAt.slice(0, 10)}, shared loaded machine` : '';
  return [
    `**DAVE in a changing room** (\`npm run bench:voice -- --churn ${c.membershipChanges}\`, bench/results/voice.json \`churn\`${c.callSeconds === undefined ? '' : `, ${c.callSeconds} s call`}${when}):`,
    '',
    ...table(['metric', 'value', 'target'], rows),
  ];
}

const scheduleFiguresSchema = z
  .object({ entries: z.number(), createP95Ms: num, cancelP95Ms: num, listP95Ms: num, idleCpuPercent: num })
  .passthrough()
  .nullable();
/** `database` in store.json: the year of calls (notes) and the schedule on SQLite, each beside release 0.3.5's JSONL. */
const databaseSchema = z
  .object({
    transcriptLines: z.number().optional(),
    fileMb: num.optional(),
    insertP95Ms: num.optional(),
    searchP95Ms: num.optional(),
    startupMs: num.optional(),
    jsonl: z
      .object({ release: z.string(), fileMb: num, insertP95Ms: num, searchP95Ms: num, startupMs: num })
      .nullable()
      .optional(),
    schedule1k: scheduleFiguresSchema.optional(),
    schedule10k: scheduleFiguresSchema.optional(),
    schedule100k: scheduleFiguresSchema.optional(),
    scheduleJsonl: z
      .object({
        ref: z.string(),
        schedule1k: scheduleFiguresSchema,
        schedule10k: scheduleFiguresSchema,
        schedule100k: scheduleFiguresSchema,
      })
      .optional(),
    loadAverage: z.array(z.number()).optional(),
  })
  .passthrough();

const storeSchema = z
  .object({
    generated_at: z.string(),
    targets: z.object({
      createP95Ms: z.number(),
      cancelP95Ms: z.number(),
      listP95Ms: z.number(),
      idleCpuPercent: z.number(),
      rssGrowthMb: z.number(),
      startupMs: z.number(),
    }),
    baseline: z.object({ rssMb: num, httpFloorP95Ms: num, diskAppendFsyncP95Ms: num }).passthrough(),
    schedule: z.array(
      z
        .object({
          entries: z.number(),
          createP95Ms: num,
          createCoreP95Ms: num.optional(),
          cancelP95Ms: num,
          cancelCoreP95Ms: num.optional(),
          listP95Ms: num,
          idleCpuPercent: num,
          idleWakeupsPerMin: num.optional(),
          settleCpuMs: num.optional(),
          settleS: num.optional(),
          rssMb: num,
          rssGrowthMb: num,
          rssAfterWorkMb: num.optional(),
          startupMs: num,
        })
        .passthrough(),
    ),
    notes: z
      .object({
        calls: z.number(),
        totalMb: num,
        calls_p95_ms: num,
        recent_p95_ms: num,
        call_p95_ms: num,
        search_p95_ms: num,
        rssMb: num,
      })
      .passthrough(),
    database: databaseSchema.optional(),
  })
  .passthrough();

/** A year of calls in the database beside release 0.3.5's JSONL files, from the same run. */
function databaseLines(
  db: NonNullable<z.infer<typeof storeSchema>['database']>,
  v: (x: number | null | undefined) => string,
): string[] {
  if (db.transcriptLines === undefined) return [];
  const j = db.jsonl;
  const rows = [
    ['search p95 ms (target ≤ 50)', v(db.searchP95Ms), j ? v(j.searchP95Ms) : '—'],
    ['start-up ms (target ≤ 1000)', v(db.startupMs), j ? v(j.startupMs) : '—'],
    ['insert one line p95 ms', v(db.insertP95Ms), j ? v(j.insertP95Ms) : '—'],
    ['size on disk MB', v(db.fileMb), j ? v(j.fileMb) : '—'],
  ];
  return [
    '',
    `**A year of calls** (${db.transcriptLines.toLocaleString('en')} transcript lines; each side in a fresh process, same run; definitions in bench/results/store.json):`,
    '',
    ...table(['', 'database (SQLite + FTS5)', `JSONL files (release ${j?.release ?? '—'})`], rows),
  ];
}

/** The schedule on the database beside the last release's JSONL store, one size (store.json `database`). */
function databaseRows(db: z.infer<typeof databaseSchema>): string[][] {
  const v = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : String(x));
  const j = db.scheduleJsonl;
  if (!j) return [];
  const sizes = [
    ['1k', db.schedule1k, j.schedule1k],
    ['10k', db.schedule10k, j.schedule10k],
    ['100k', db.schedule100k, j.schedule100k],
  ] as const;
  return sizes
    .filter(([, sql]) => sql)
    .map(([n, sql, jsonl]) => [
      n,
      `${v(sql?.createP95Ms)} / ${v(jsonl?.createP95Ms)}`,
      `${v(sql?.cancelP95Ms)} / ${v(jsonl?.cancelP95Ms)}`,
      `${v(sql?.listP95Ms)} / ${v(jsonl?.listP95Ms)}`,
      `${v(sql?.idleCpuPercent)} / ${v(jsonl?.idleCpuPercent)}`,
    ]);
}

/** The schedule store per size, beside its targets, and the notes archive (bench/results/store.json). */
function storeSection(store: z.infer<typeof storeSchema>): string[] {
  const t = store.targets;
  const v = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : String(x));
  // rssAfterWorkMb (newer runs): the transient before V8's memory reducer, shown beside the steady state.
  const afterWork = (r: { rssAfterWorkMb?: number | null }): string =>
    typeof r.rssAfterWorkMb === 'number' ? `; ${v(r.rssAfterWorkMb)} right after the requests` : '';
  // createCoreP95Ms/cancelCoreP95Ms (newer runs): the core's own share of the round trip.
  const withCore = (roundTrip: number | null | undefined, core: number | null | undefined): string =>
    typeof core === 'number' ? `${v(roundTrip)} (core ${v(core)})` : v(roundTrip);
  // settleCpuMs (runs from 2026-12): V8's one settling pass after the requests, beside the steady idle.
  const settled = store.schedule.some((r) => typeof r.settleCpuMs === 'number');
  const idle = (r: (typeof store.schedule)[number]): string =>
    settled
      ? `${v(r.idleCpuPercent)}; ${v(r.idleWakeupsPerMin)} wake-ups/min; settling ${v(r.settleCpuMs)} ms once, ${v(r.settleS)} s after`
      : v(r.idleCpuPercent);
  const rows = store.schedule.map((r) => [
    r.entries.toLocaleString('en'),
    withCore(r.createP95Ms, r.createCoreP95Ms),
    withCore(r.cancelP95Ms, r.cancelCoreP95Ms),
    v(r.listP95Ms),
    idle(r),
    `${v(r.rssMb)} (+${v(r.rssGrowthMb)})${afterWork(r)}`,
    v(r.startupMs),
  ]);
  rows.push([
    'target',
    `≤ ${t.createP95Ms}`,
    `≤ ${t.cancelP95Ms}`,
    `≤ ${t.listP95Ms}`,
    `≤ ${t.idleCpuPercent}`,
    `growth ≤ ${t.rssGrowthMb}`,
    `≤ ${t.startupMs}`,
  ]);
  const n = store.notes;
  return [
    `**Schedule and notes** (\`npm run bench:store\`, bench/results/store.json; ${store.generated_at.slice(0, 10)}; the core alone in its own process, latency = HTTP round trip on loopback (in brackets the core's own share), CPU/RSS from /proc, ${settled ? "idle CPU over 60 s once V8's memory reducer has run its one settling pass after the requests (its CPU beside it; docs/performance.md, Idle)" : 'idle CPU over 60 s from 8 s after the last request'}; floors on that run: a request doing no store work p95 ${v(store.baseline.httpFloorP95Ms)} ms, one write + fdatasync p95 ${v(store.baseline.diskAppendFsyncP95Ms)} ms):`,
    '',
    ...table(
      [
        'pending entries',
        'create p95 ms',
        'cancel p95 ms',
        'list page p95 ms',
        'idle CPU % of a core',
        'RSS MB after an idle minute (growth)',
        'start-up ms',
      ],
      rows,
    ),
    '',
    ...(store.database?.scheduleJsonl
      ? [
          `The schedule on the database beside release ${store.database.scheduleJsonl.ref}'s JSONL store, same run (\`database\` in store.json; load average then ${(store.database.loadAverage ?? []).join(' / ')}):`,
          '',
          ...table(
            ['entries', 'create p95 ms (database / JSONL)', 'cancel p95 ms', 'list page p95 ms', 'idle CPU %'],
            databaseRows(store.database),
          ),
          '',
        ]
      : []),
    `Notes, ${n.calls} calls of an hour (${v(n.totalMb)} MB): GET /calls p95 ${v(n.calls_p95_ms)} ms, /notes p95 ${v(n.recent_p95_ms)} ms, /notes?call= (500 events) p95 ${v(n.call_p95_ms)} ms, /notes?q= (a substring filter: a scan, not the index; the word search is /notes/search, the year-of-calls table below) worst of 5 ${v(n.search_p95_ms)} ms, RSS ${v(n.rssMb)} MB.`,
    ...(store.database ? databaseLines(store.database, v) : []),
  ];
}

function readResult(name: string): unknown | null {
  const file = `${RESULTS}${name}.json`;
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as unknown) : null;
}

export function performanceBlock(): string {
  const parts: string[][] = [];
  const audio = readResult('audio');
  if (audio !== null) parts.push(audioSection(audioSchema.parse(audio)));
  const latency = readResult('latency');
  if (latency !== null) parts.push(latencySection(latencySchema.parse(latency)));
  const voice = readResult('voice');
  if (voice !== null) parts.push(genericSection('voice', genericSchema.parse(voice)));
  const churn = voice === null ? undefined : voiceChurnSchema.safeParse(voice).data?.churn;
  if (churn) parts.push(voiceChurnSection(churn));
  const store = readResult('store');
  if (store !== null) parts.push(storeSection(storeSchema.parse(store)));
  if (readResult('soak') !== null)
    parts.push([
      'Long calls: the soak table below (`npm run soak:readme`, bench/results/soak.json and soak-<provider>.json, a column per provider).',
    ]);
  return parts
    .filter((p) => p.length > 0)
    .map((p) => p.join('\n'))
    .join('\n\n');
}

function main(): void {
  const readme = readFileSync(README, 'utf8');
  const from = readme.indexOf(BEGIN);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`README.md has no ${BEGIN} … ${END} block`);
  const updated = `${readme.slice(0, from + BEGIN.length)}\n${performanceBlock()}\n${readme.slice(to)}`;
  if (process.argv.includes('--check')) {
    if (updated !== readme) {
      console.error('README.md performance tables are out of date: run npm run docs:perf');
      process.exit(1);
    }
    return;
  }
  writeFileSync(README, updated);
  console.log('README.md performance tables updated from bench/results/*.json');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
