// Phantom turns on the noise corpus (test/fixtures/noise-corpus; issue #52 item 5): how often a
// keyboard, a cough, music, a fan or hum opens the voice gate (a turn the model would answer) or
// cuts a reply through local barge-in, and whether the speech controls and the pause corpus still
// open the gate, and how soon. Counted on corpus audio in the gate's 10 ms frames and the barge-in
// test's 20 ms frames, never wall clock, so the bench and the tests agree on any machine.
// Shared by bench/latency.ts (the phantomStartsPerHour row), bench/lib/noise-report.ts and
// test/unit/noise-phantoms.test.ts.
import { BargeInDetector } from '../../main/core/bridge/barge-in.ts';
import { VoiceGate, isBurst, type VoiceGateOptions } from '../../main/core/audio/index.ts';
import { loadNoiseCorpus, type NoiseClip, type NoiseKind } from './noise-corpus.ts';
import { loadPauseCorpus } from './pause-corpus.ts';
import { voicedReply } from './speech-like.ts';

const GATE_FRAME = 160; // 10 ms at 16 kHz
const SPEAKER_FRAME_48K = 960; // 20 ms at 48 kHz: the voice port's frame
const FRAME_MS = 20;
/** The bot talks this long before the clip's first frame arrives: its echo evidence is in place (a headset user). */
const REPLY_LEAD_MS = 1600;
const MS_PER_HOUR = 3_600_000;

export type GateSettings = Omit<VoiceGateOptions, 'onChunk' | 'onEnd' | 'onOpen'>;

export interface GateOnClip {
  opens: number;
  /** 10 ms frames from the clip's soundStart to the first open; null: it never opened. */
  firstOpenFrames: number | null;
  /** Audio the gate sent (pre-roll, sound, hangover), ms. */
  sentMs: number;
}

/** One clip through a fresh gate, 10 ms at a time (the gate exactly as the call builds it, plus `settings`). */
export function gateOnClip(pcm: Int16Array, soundStart: number, settings: GateSettings = {}): GateOnClip {
  let fed = 0;
  let firstOpen: number | null = null;
  const gate = new VoiceGate({
    chunkMs: 100,
    ...settings,
    onChunk: () => undefined,
    onEnd: () => undefined,
    onOpen: () => {
      firstOpen ??= fed;
    },
  });
  for (; fed + GATE_FRAME <= pcm.length; ) {
    fed += GATE_FRAME;
    gate.push(pcm.subarray(fed - GATE_FRAME, fed));
  }
  const stats = gate.stats();
  const opened: number | null = firstOpen;
  return { opens: stats.opens, firstOpenFrames: opened === null ? null : Math.max(0, Math.ceil((opened - soundStart) / GATE_FRAME)), sentMs: Math.round(stats.sentMs) };
}

/** 16 kHz → 48 kHz by linear interpolation: enough for a level and band test (the bands stop at 12 kHz). */
export function to48k(pcm16k: Int16Array): Int16Array {
  const out = new Int16Array(pcm16k.length * 3);
  for (let i = 0; i < pcm16k.length; i++) {
    const a = pcm16k[i]!;
    const b = pcm16k[Math.min(pcm16k.length - 1, i + 1)]!;
    out[3 * i] = a;
    out[3 * i + 1] = Math.round(a + (b - a) / 3);
    out[3 * i + 2] = Math.round(a + (2 * (b - a)) / 3);
  }
  return out;
}

export interface BargeInOnClip {
  /** Replies cut: frames judged speech after a frame that was not (one cut per noise event). */
  cuts: number;
  /** Onsets that held playback (a gap in the reply, not a cut). */
  holds: number;
  /** 20 ms frames from the clip's soundStart to the first cut; null: none. */
  firstCutFrames: number | null;
  /** Where each cut fell: the 16 kHz sample at the end of the frame judged speech. */
  cutSamples: number[];
}

/**
 * The clip arrives as a speaker's 20 ms frames while the bot talks (voicedReply at -15 dBFS RMS,
 * played from REPLY_LEAD_MS before the clip's first frame, so a headset user's echo evidence is in
 * place, as in a call where they listened first). The detector and verdicts are CallAudio's.
 */
export function bargeInOnClip(pcm16k: Int16Array, soundStart = 0, clickCheck = false): BargeInOnClip {
  const speaker = to48k(pcm16k);
  const frames = Math.floor(speaker.length / SPEAKER_FRAME_48K);
  const leadFrames = REPLY_LEAD_MS / FRAME_MS;
  const reply = voicedReply((leadFrames + frames) * FRAME_MS, 48_000);
  const detector = new BargeInDetector();
  let cuts = 0;
  let holds = 0;
  let lastWasSpeech = false;
  let firstCut: number | null = null;
  const cutSamples: number[] = [];
  for (let f = 0; f < leadFrames + frames; f++) {
    const now = f * FRAME_MS;
    detector.notePlayed(reply.subarray(f * SPEAKER_FRAME_48K, (f + 1) * SPEAKER_FRAME_48K), now);
    if (f < leadFrames) continue;
    const at = (f - leadFrames) * SPEAKER_FRAME_48K;
    const judged = detector.judge(speaker.subarray(at, at + SPEAKER_FRAME_48K), now, 'speaker');
    // What-if (not in barge-in.ts): a frame that is a click (isBurst, as the voice gate's onset check) only holds.
    const verdict = clickCheck && judged === 'speech' && isBurst(pcm16k, at / 3, SPEAKER_FRAME_48K / 3, 0.5) ? 'onset' : judged;
    if (verdict === 'speech' && !lastWasSpeech) {
      cuts++;
      cutSamples.push(at / 3 + SPEAKER_FRAME_48K / 3);
      firstCut ??= Math.max(0, Math.ceil((at / 3 + SPEAKER_FRAME_48K / 3 - soundStart) / (SPEAKER_FRAME_48K / 3)));
    }
    if (verdict === 'onset') holds++;
    lastWasSpeech = verdict === 'speech';
  }
  return { cuts, holds, firstCutFrames: firstCut, cutSamples };
}

export interface ClipPhantoms extends GateOnClip, BargeInOnClip {
  file: string;
  kind: NoiseKind;
  label: 'noise' | 'speech';
  durationMs: number;
}

export interface PhantomTurns {
  definition: string;
  gate: Omit<GateSettings, 'classifier'>;
  /** Whether a classifier (voice-classifier.ts) confirmed each onset. */
  classified: boolean;
  noiseMs: number;
  /** Gate opens on clips labelled noise, per hour of that noise. */
  phantomStartsPerHour: number;
  /** Reply cuts (local barge-in) on noise clips, per hour of that noise. */
  phantomBargeInsPerHour: number;
  /** Reply holds (a gap, not a cut) on noise clips, per hour. */
  phantomHoldsPerHour: number;
  /** What-if for barge-in.ts (not what it does): the cuts if a click frame (isBurst) only held playback. */
  phantomBargeInsPerHourIfClickChecked: number;
  /** 20 ms frames from a speech control's start to the cut of the reply it talks over: as barge-in.ts does, and with the click check. */
  speechBargeInFrames: (number | null)[];
  speechBargeInFramesIfClickChecked: (number | null)[];
  /** Noise the gate sent to the model, % of the noise clips' duration (billed, and heard by the service's detector). */
  noiseSentPercent: number;
  byKind: Record<string, { clips: number; ms: number; opens: number; cuts: number }>;
  /** Speech controls (noise corpus) and pause-corpus clips that opened the gate, of all. */
  speechOpened: number;
  speechClips: number;
  /** 10 ms frames from the sound's start to the gate's first open, per speech clip (controls, then pause corpus). */
  speechOpenFrames: (number | null)[];
  clips: ClipPhantoms[];
}

export const PHANTOM_DEFINITION =
  "noise corpus (test/fixtures/noise-corpus, bench/lib/noise-corpus.ts: keyboards, coughs, music, fan, hum; 33 s of noise) fed 10 ms at a time to a fresh voice gate per clip, as the call builds it: phantomStartsPerHour = gate opens on noise clips per hour of noise (each open is a turn the service would hear and answer); phantomBargeInsPerHour = the same clips as a speaker's 20 ms frames while the bot talks (BargeInDetector, echo evidence in place: a headset user who listened first), frames judged speech after one that was not, per hour; speech controls (3 synthetic speech clips, the 10 pause-corpus clips) must all open, speechOpenFrames = 10 ms frames from the sound's start to the open";

/** The whole measurement: every noise-corpus clip through the gate and barge-in, and speech controls through the gate. */
export function measurePhantomTurns(settings: GateSettings = {}, corpus: readonly NoiseClip[] = loadNoiseCorpus()): PhantomTurns {
  const gated = corpus.map((clip) => gateOnClip(clip.pcm, clip.soundStart, settings));
  const pause = loadPauseCorpus().map((clip) => gateOnClip(clip.pcm, firstSound(clip.pcm), settings));
  return summarisePhantoms(settings, corpus, gated, pause);
}

/** The speech-control clips of the pause corpus, each with where its sound starts. */
export function pauseCorpusControls(): { pcm: Int16Array; soundStart: number }[] {
  return loadPauseCorpus().map((clip) => ({ pcm: clip.pcm, soundStart: firstSound(clip.pcm) }));
}

/** The figures from each noise clip's gate run (in corpus order) and the pause corpus's. */
export function summarisePhantoms(settings: GateSettings, corpus: readonly NoiseClip[], gated: readonly GateOnClip[], pause: readonly GateOnClip[]): PhantomTurns {
  const clips = corpus.map((clip, i): ClipPhantoms => ({ file: clip.file, kind: clip.kind, label: clip.label, durationMs: clip.durationMs, ...gated[i]!, ...bargeInOnClip(clip.pcm, clip.soundStart) }));
  const clickChecked = corpus.map((clip) => bargeInOnClip(clip.pcm, clip.soundStart, true));
  const noise = clips.filter((c) => c.label === 'noise');
  const noiseMs = noise.reduce((n, c) => n + c.durationMs, 0);
  const perHour = (count: number) => Math.round((count * MS_PER_HOUR) / noiseMs);
  const byKind: PhantomTurns['byKind'] = {};
  for (const c of noise) {
    const row = (byKind[c.kind] ??= { clips: 0, ms: 0, opens: 0, cuts: 0 });
    row.clips++;
    row.ms += c.durationMs;
    row.opens += c.opens;
    row.cuts += c.cuts;
  }
  const speech = [...clips.filter((c) => c.label === 'speech'), ...pause];
  return {
    definition: PHANTOM_DEFINITION,
    gate: withoutClassifier(settings),
    classified: settings.classifier !== undefined,
    noiseMs,
    phantomStartsPerHour: perHour(noise.reduce((n, c) => n + c.opens, 0)),
    phantomBargeInsPerHour: perHour(noise.reduce((n, c) => n + c.cuts, 0)),
    phantomHoldsPerHour: perHour(noise.reduce((n, c) => n + c.holds, 0)),
    phantomBargeInsPerHourIfClickChecked: perHour(clickChecked.filter((_, i) => corpus[i]!.label === 'noise').reduce((n, c) => n + c.cuts, 0)),
    speechBargeInFrames: clips.filter((c) => c.label === 'speech').map((c) => c.firstCutFrames),
    speechBargeInFramesIfClickChecked: clickChecked.filter((_, i) => corpus[i]!.label === 'speech').map((c) => c.firstCutFrames),
    noiseSentPercent: Math.round((1000 * noise.reduce((n, c) => n + c.sentMs, 0)) / noiseMs) / 10,
    byKind,
    speechOpened: speech.filter((c) => c.opens > 0).length,
    speechClips: speech.length,
    speechOpenFrames: speech.map((c) => c.firstOpenFrames),
    clips,
  };
}

/** The figures without the per-clip rows and the definition (for a bench's JSON, beside its own definitions). */
export function phantomSummary<T extends PhantomTurns>({ clips: _clips, definition: _definition, ...summary }: T): Omit<T, 'clips' | 'definition'> {
  return summary;
}

function withoutClassifier({ classifier: _classifier, ...gate }: GateSettings): Omit<GateSettings, 'classifier'> {
  return gate;
}

/** The pause corpus's first sound: its first 10 ms frame over -54 dBFS RMS (the corpus's own trim level). */
function firstSound(pcm: Int16Array): number {
  for (let at = 0; at + GATE_FRAME <= pcm.length; at += GATE_FRAME) {
    let sum = 0;
    for (let i = at; i < at + GATE_FRAME; i++) sum += pcm[i]! * pcm[i]!;
    if (Math.sqrt(sum / GATE_FRAME) > 65) return at;
  }
  return 0;
}
