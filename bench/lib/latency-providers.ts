// The latency benchmark's provider dimension: the same simulated call (bench/lib/latency-call.ts)
// run once per live model provider, one after another, each with a fresh core and its own fake,
// and its hop latencies side by side: ingress, egress and barge-in on the wire (latency-wire.ts), core CPU.
import type { CallRunOptions, CallRunResult } from './latency-call.ts';
import { runBenchCall } from './latency-call.ts';
import { round, type Percentiles } from './latency-proc.ts';
import type { BenchProvider } from './model-fakes.ts';
import type { TurnCorpusResult } from './turn-corpus.ts';

export interface ProviderCall {
  provider: BenchProvider;
  call: CallRunResult;
}

export async function runProviderCalls(
  providers: readonly BenchProvider[],
  options: Omit<CallRunOptions, 'provider'>,
): Promise<ProviderCall[]> {
  const runs: ProviderCall[] = [];
  for (const provider of providers) {
    options.progress(`— provider ${provider} —`);
    runs.push({ provider, call: await runBenchCall({ ...options, provider }) });
  }
  return runs;
}

export interface ProviderTargets {
  ingress_p95_ms: number;
  egress_p95_ms: number;
  barge_in_ms: number;
  core_cpu_call_percent: number;
  bridge_turn_share_p95_ms: number;
  bridge_cutoff_percent: number;
}

type Summary = Pick<Percentiles, 'count' | 'p50_ms' | 'p95_ms'>;

/** One row of bench/results/latency.json `providers` (and of README's provider table). */
export interface ProviderRow {
  provider: BenchProvider;
  model: string;
  ingressP50Ms: number | null;
  ingressP95Ms: number | null;
  ingressN: number;
  egressP50Ms: number | null;
  egressP95Ms: number | null;
  egressN: number;
  /** The barging owner's first sounding packet sent → the reply's last speech RTP received (latency-wire.ts). */
  bargeInP50Ms: number | null;
  bargeInP95Ms: number | null;
  bargeInN: number;
  /** Replies held on the owner's onset (call-audio.ts), and of those played on unconfirmed (a 90 ms gap each). */
  bargeInHolds: number;
  bargeInHoldsReleased: number;
  /** The service's own barge-in signal → the same last RTP (the local cut comes first, so about 0). */
  serviceSignalToCutP50Ms: number | null;
  serviceSignalToCutP95Ms: number | null;
  serviceSignalToCutN: number;
  /** Owner's end of speech → the service's end of turn, on the wire (bench/lib/latency-turn.ts): the service's window included. */
  endOfSpeechToStreamEndP50Ms: number | null;
  endOfSpeechToStreamEndP95Ms: number | null;
  endOfSpeechToStreamEndN: number;
  /** The quiet the service's detector counted before it ended each turn (its window as received), p50. */
  serviceWindowP50Ms: number | null;
  /** What the bridge adds to the service's own window (issue #52): end of speech → service end − the quiet it counted. */
  bridgeTurnShareP50Ms: number | null;
  bridgeTurnShareP95Ms: number | null;
  bridgeTurnShareWorstMs: number | null;
  bridgeTurnShareN: number;
  /** The call's patience and the service rule it maps to (bench/lib/turn-corpus.ts serviceRule). */
  turnPatience: string;
  serviceRule: string;
  /** The pause corpus through the call's gate and the service's rule (turn-corpus.ts): pauses the bridge cut before the service would, %. */
  bridgeCutoffPercent: number;
  /** The same corpus: pauses the service's own rule cut, %. */
  serviceCutoffPercent: number;
  /** Owner's end of speech → the reply's first sounding RTP at the fake Discord, service delay included. */
  endOfSpeechToFirstAudioP50Ms: number | null;
  endOfSpeechToFirstAudioP95Ms: number | null;
  endOfSpeechToFirstAudioN: number;
  /** The service's end of turn → first sounding RTP: the modelled service delay plus the bridge's egress. */
  streamEndToFirstAudioP50Ms: number | null;
  /** The modelled service delay (main/fakes/shared/service-timing.ts firstAudioAfterTurnEndMs). */
  modelledFirstAudioAfterTurnEndMs: number;
  /**
   * Whether the call's replies really waited that long (streamEndToFirstAudioP50Ms ≥ it). The fake
   * holds every reply from its own end of turn; the bench adds no wait of its own, so the delay is
   * applied once (streamEndToFirstAudioP50Ms = it + the bridge's egress, not twice it).
   */
  modelledDelayApplied: boolean;
  /** Turns the service ended while the owner was still talking. */
  cutMidUtterance: number;
  /** The core's CPU during the one-speaker call (/proc), % of one core. */
  coreCpuCallPercent: number | null;
  /** The worst 10 s window of the same call (latency-proc.ts cpuWindows). */
  coreCpuCallWorst10sPercent: number | null;
  /**
   * coreCpuCallPercent / the library floor's cpuPercent in the same run (bench/lib/library-floor-call.ts):
   * the floor on this row's provider when one ran, else the headline (Gemini) floor; null without a floor run.
   */
  cpuVsFloor: number | null;
  /** The provider whose floor cpuVsFloor divides by (null without a floor run). */
  floorProvider: BenchProvider | null;
  replies: number;
  bargeInsAtModel: number;
  reconnects: number;
  met: {
    ingress: boolean;
    egress: boolean;
    bargeIn: boolean;
    coreCpu: boolean;
    bridgeTurnShare: boolean;
    bridgeCutoff: boolean;
  };
}

/** Issue 51 item 6: a provider's call at most 1.5 × the library floor's CPU. */
export const CPU_VS_FLOOR_TARGET = 1.5;

const none: Summary = { count: 0, p50_ms: null, p95_ms: null };
const within = (value: number | null, limit: number): boolean => value !== null && value <= limit;

/** The floors of a run, by provider, each its CPU % of one core. */
export type FloorCpu = readonly { provider: BenchProvider; cpuPercent: number }[];

export function providerRows(
  runs: readonly ProviderCall[],
  targets: ProviderTargets,
  corpus: Readonly<Record<BenchProvider, TurnCorpusResult>>,
  floors: FloorCpu = [],
): ProviderRow[] {
  return runs.map(({ provider, call }) => {
    const floor =
      floors.find((f) => f.provider === provider) ?? floors.find((f) => f.provider === 'gemini') ?? floors[0];
    const ingress = call.healthAtEnd.metrics.ingress_latency;
    const egress = call.wire.egress ?? none;
    const bargeIn = call.wire.bargeIn ?? none;
    const serviceSignal = call.wire.serviceSignalToCut ?? none;
    const turn = call.turn;
    const eot = corpus[provider];
    return {
      provider,
      model: call.model,
      ingressP50Ms: ingress.p50_ms,
      ingressP95Ms: ingress.p95_ms,
      ingressN: ingress.count,
      egressP50Ms: egress.p50_ms,
      egressP95Ms: egress.p95_ms,
      egressN: egress.count,
      bargeInP50Ms: bargeIn.p50_ms,
      bargeInP95Ms: bargeIn.p95_ms,
      bargeInN: bargeIn.count,
      bargeInHolds: call.healthAtEnd.metrics.barge_in_holds,
      bargeInHoldsReleased: call.healthAtEnd.metrics.barge_in_holds_released,
      serviceSignalToCutP50Ms: serviceSignal.p50_ms,
      serviceSignalToCutP95Ms: serviceSignal.p95_ms,
      serviceSignalToCutN: serviceSignal.count,
      endOfSpeechToStreamEndP50Ms: turn.endOfSpeechToStreamEnd.p50_ms,
      endOfSpeechToStreamEndP95Ms: turn.endOfSpeechToStreamEnd.p95_ms,
      endOfSpeechToStreamEndN: turn.endOfSpeechToStreamEnd.count,
      serviceWindowP50Ms: turn.serviceQuiet.p50_ms,
      bridgeTurnShareP50Ms: turn.bridgeTurnShare.p50_ms,
      bridgeTurnShareP95Ms: turn.bridgeTurnShare.p95_ms,
      bridgeTurnShareWorstMs: turn.bridgeTurnShare.max_ms,
      bridgeTurnShareN: turn.bridgeTurnShare.count,
      turnPatience: String(eot.patience),
      serviceRule: eot.serviceRule,
      bridgeCutoffPercent: eot.bridgeCutoffPercent,
      serviceCutoffPercent: eot.serviceCutoffPercent,
      endOfSpeechToFirstAudioP50Ms: turn.endOfSpeechToFirstAudio.p50_ms,
      endOfSpeechToFirstAudioP95Ms: turn.endOfSpeechToFirstAudio.p95_ms,
      endOfSpeechToFirstAudioN: turn.endOfSpeechToFirstAudio.count,
      streamEndToFirstAudioP50Ms: turn.streamEndToFirstAudio.p50_ms,
      modelledFirstAudioAfterTurnEndMs: turn.modelledFirstAudioMs,
      modelledDelayApplied:
        turn.streamEndToFirstAudio.p50_ms !== null && turn.streamEndToFirstAudio.p50_ms >= turn.modelledFirstAudioMs,
      cutMidUtterance: turn.cutMidUtterance,
      coreCpuCallPercent: round(call.core.callCpuPercent),
      coreCpuCallWorst10sPercent: round(call.core.callCpuWorst10sPercent),
      cpuVsFloor: floor?.cpuPercent ? round(call.core.callCpuPercent / floor.cpuPercent) : null,
      floorProvider: floor?.provider ?? null,
      replies: call.replies,
      bargeInsAtModel: call.bargeInsAtModel,
      reconnects: call.healthAtEnd.metrics.reconnects,
      met: {
        ingress: within(ingress.p95_ms, targets.ingress_p95_ms),
        egress: within(egress.p95_ms, targets.egress_p95_ms),
        bargeIn: within(bargeIn.p95_ms, targets.barge_in_ms),
        coreCpu: within(call.core.callCpuPercent, targets.core_cpu_call_percent),
        bridgeTurnShare: within(turn.bridgeTurnShare.p95_ms, targets.bridge_turn_share_p95_ms),
        bridgeCutoff: eot.bridgeCutoffPercent <= targets.bridge_cutoff_percent,
      },
    };
  });
}

export const PROVIDER_DEFINITIONS = {
  providers:
    "the same call once per provider, each with a fresh core (child process) and that provider's fake: ingress = the core's histogram (decoded packet PCM → written to the model socket, incl. the 16→24 kHz resampling for OpenAI); egress = on the wire, the fake model sends a reply's first chunk (after the modelled first-audio delay) → first sounding RTP at the fake Discord; barge-in (bargeInP50Ms/P95Ms) = what a user lives: the barging owner's first sounding packet sent by the fake Discord client → the interrupted reply's last speech RTP (decoded peak > -30 dBFS) received by the fake Discord, 2 of every 3 replies barged into 450-850 ms after their first audio (the bridge stops playback itself: it holds the reply on an allowed speaker's first frame over -40 dBFS that its echo tests cannot yet judge, and cuts it when a later frame is speech, or plays it on after 90 ms; main/core/bridge/barge-in.ts, call-audio.ts; barge_in_holds / barge_in_holds_released in /health count them); the fake model speaks continuous voiced speech-like audio at -15 dBFS RMS (≈ 210 Hz voice, harmonics to 4 kHz: bench/lib/speech-like.ts voicedReply, not a tone, whose empty spectrum would flatter the per-band echo test) and the owner a ≈ 140 Hz voice at -26 dBFS RMS (its loudest 20 ms -22 dBFS), 7-11 dB under it; serviceSignalToCutP50Ms/P95Ms = the service's own barge-in signal (Gemini: interrupted sent; Realtime: speech_started sent; GPT-Live: the model yields) → the same last speech RTP, a reference only (the local cut comes before it, so it reads about 0); core CPU over the call (% of one core, /proc), and its worst 10 s window; the turn (bench/lib/latency-turn.ts; issue #52: the service ends it): endOfSpeechToStreamEnd = the fake Discord client sends the utterance's last sounding packet → the fake service's own detector ends the turn on the audio it received (Gemini: its automatic activity detection, the fake's userTurnEnd, or the bridge's audioStreamEnd at its silence cap, whichever comes first; Realtime: semantic_vad's stand-in with the owner's whole sentences marked utterance-final; GPT-Live: its own window), Date.now() in the fakes process, the service's window included (information, no target: the old ≤ 250 ms target is retired); serviceWindowP50Ms = the trailing quiet the fake's detector counted before it ended the turn, from its own sample counts; bridgeTurnShareP50Ms/P95Ms/WorstMs = endOfSpeechToStreamEnd − that counted quiet, per turn: from the last speech sample to the moment the service's detector has received the audio it needs to end the turn, i.e. what the bridge adds to the service's own window (the input chunk filling — up to one INPUT_CHUNK_MS, 100 ms by default —, the paced silence, the sockets, the fakes' event loop; it reads low, even negative, where the fake's speech bar is above the bench's -50 dBFS sounding bar — the OpenAI fakes' RMS 800 — and the owner's last syllable dips under it: the service's speech ended earlier than the bench's; serviceWindowP50Ms also shows a patience the learner lengthened after the bench's barge-ins); turnPatience / serviceRule / bridgeCutoffPercent / serviceCutoffPercent: see turnCorpus; endOfSpeechToFirstAudio = end of speech → the reply's first sounding RTP at the fake Discord, with the service's modelled first-audio delay (modelledFirstAudioAfterTurnEndMs, main/fakes/shared/service-timing.ts) applied once, by the fake from its own end of turn (the bench answers at once); streamEndToFirstAudioP50Ms = that delay plus the bridge's egress; modelledDelayApplied = streamEndToFirstAudioP50Ms ≥ that delay",
} as const;

const ms = (v: number | null) => (v === null ? '—' : v.toFixed(2));
const pair = (p50: number | null, p95: number | null, n: number, ok: boolean) =>
  `${ms(p50)} / ${ms(p95)} (n=${n})${ok ? '' : ' MISSED'}`;

/** The console table: provider × hop, targets in the header. */
export function providerTable(rows: readonly ProviderRow[], targets: ProviderTargets): string {
  const header = [
    'provider (model)',
    `ingress p50/p95 ms (≤ ${targets.ingress_p95_ms})`,
    `egress, wire p50/p95 ms (≤ ${targets.egress_p95_ms})`,
    `barge-in, owner's onset → cut p50/p95 ms (≤ ${targets.barge_in_ms})`,
    'service signal → cut p50/p95 ms',
    'end of speech → service end p50/p95 ms (service window p50)',
    `bridge's turn share p50/p95/worst ms (≤ ${targets.bridge_turn_share_p95_ms})`,
    `corpus cut-offs %: bridge (= ${targets.bridge_cutoff_percent}) / service`,
    'end of speech → first audio p50/p95 ms (modelled service delay; stream end → first audio p50)',
    `core CPU % (≤ ${targets.core_cpu_call_percent}), worst 10 s`,
    'CPU vs library floor (≤ 1.5 ×)',
  ];
  const lines = rows.map((r) => [
    `${r.provider} (${r.model})`,
    pair(r.ingressP50Ms, r.ingressP95Ms, r.ingressN, r.met.ingress),
    pair(r.egressP50Ms, r.egressP95Ms, r.egressN, r.met.egress),
    pair(r.bargeInP50Ms, r.bargeInP95Ms, r.bargeInN, r.met.bargeIn),
    pair(r.serviceSignalToCutP50Ms, r.serviceSignalToCutP95Ms, r.serviceSignalToCutN, true),
    `${pair(r.endOfSpeechToStreamEndP50Ms, r.endOfSpeechToStreamEndP95Ms, r.endOfSpeechToStreamEndN, true)} (${ms(r.serviceWindowP50Ms)})`,
    `${ms(r.bridgeTurnShareP50Ms)} / ${ms(r.bridgeTurnShareP95Ms)} / ${ms(r.bridgeTurnShareWorstMs)} (n=${r.bridgeTurnShareN})${r.met.bridgeTurnShare ? '' : ' MISSED'}`,
    `${r.bridgeCutoffPercent.toFixed(1)}${r.met.bridgeCutoff ? '' : ' MISSED'} / ${r.serviceCutoffPercent.toFixed(1)}`,
    `${pair(r.endOfSpeechToFirstAudioP50Ms, r.endOfSpeechToFirstAudioP95Ms, r.endOfSpeechToFirstAudioN, true)} (${r.modelledFirstAudioAfterTurnEndMs}${r.modelledDelayApplied ? '' : ', NOT applied'}; ${ms(r.streamEndToFirstAudioP50Ms)})`,
    `${ms(r.coreCpuCallPercent)}${r.met.coreCpu ? '' : ' MISSED'}, ${ms(r.coreCpuCallWorst10sPercent)}`,
    r.cpuVsFloor === null ? '—' : `${r.cpuVsFloor.toFixed(2)} ×${r.cpuVsFloor <= CPU_VS_FLOOR_TARGET ? '' : ' MISSED'}`,
  ]);
  const all = [header, ...lines];
  const widths = header.map((_, i) => Math.max(...all.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [
    'per provider (the same call, one core each):',
    line(header),
    '-'.repeat(widths.reduce((a, b) => a + b + 2, 0)),
    ...lines.map(line),
  ].join('\n');
}
