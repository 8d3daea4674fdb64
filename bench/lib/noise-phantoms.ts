// Phantom turns on the noise corpus (test/fixtures/noise-corpus; issue #52 item 5): how often a
// keyboard, a cough, music, a fan or hum opens the voice gate (a turn the model would answer) or
// cuts a reply through local barge-in, and whether the speech controls and the pause corpus still
// open the gate, and how soon. Counted on corpus audio in the gate's 10 ms frames and the barge-in
// test's 20 ms frames, never wall clock, so the bench and the tests agree on any machine.
// Shared by bench/latency.ts (the phantomStartsPerHour row), bench/lib/noise-report.ts and
// test/unit/noise-phantoms.test.ts.
import { BargeInDetector } from '../../main/core/bridge/barge-in.ts';
import { HOLD_FRAMES } from '../../main/core/bridge/barge-in-hold.ts';
import { VoiceGate, type VoiceGateOptions } from '../../main/core/audio/index.ts';
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
  for (; fed + GATE_FRAME <= pcm.length;) {
    fed += GATE_FRAME;
    gate.push(pcm.subarray(fed - GATE_FRAME, fed));
  }
  const stats = gate.stats();
  const opened: number | null = firstOpen;
  return {
    opens: stats.opens,
    firstOpenFrames: opened === null ? null : Math.max(0, Math.ceil((opened - soundStart) / GATE_FRAME)),
    sentMs: Math.round(stats.sentMs),
  };
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
  /** 20 ms frames from the clip's soundStart to the reply's first stop (a hold or a cut); null: none. */
  firstStopFrames: number | null;
  /** Where each cut fell: the 16 kHz sample at the end of the frame judged speech. */
  cutSamples: number[];
}

/**
 * The clip arrives as a speaker's 20 ms frames while the bot talks (voicedReply at -15 dBFS RMS,
 * played from REPLY_LEAD_MS before the clip's first frame, so a headset user's echo evidence is in
 * place, as in a call where they listened first). The detector, its verdicts and the hold are
 * CallAudio's: an onset holds the reply (silent frames played) for HOLD_FRAMES speaker frames, then it plays on and
 * the detector hears suspectEcho(); a cut is counted and the reply goes on (the next noise event
 * meets it as a new reply would). `confirmed` false: the call before cuts waited for confirmation
 * (judge: a frame over the echo line cuts at once), for the before/after figures.
 */
export function bargeInOnClip(pcm16k: Int16Array, soundStart = 0, confirmed = true): BargeInOnClip {
  const speaker = to48k(pcm16k);
  const frames = Math.floor(speaker.length / SPEAKER_FRAME_48K);
  const leadFrames = REPLY_LEAD_MS / FRAME_MS;
  const reply = voicedReply((leadFrames + frames) * FRAME_MS, 48_000);
  const detector = new BargeInDetector();
  const run = {
    cuts: 0,
    holds: 0,
    firstCutFrames: null as number | null,
    firstStopFrames: null as number | null,
    cutSamples: [] as number[],
  };
  let heldFrames = 0;
  let lastWasSpeech = false;
  const framesFromStart = (end: number) => Math.max(0, Math.ceil((end - soundStart) / (SPEAKER_FRAME_48K / 3)));
  for (let f = 0; f < leadFrames + frames; f++) {
    const now = f * FRAME_MS;
    if (heldFrames > 0 && --heldFrames === 0) detector.suspectEcho('speaker');
    if (heldFrames === 0) detector.notePlayed(reply.subarray(f * SPEAKER_FRAME_48K, (f + 1) * SPEAKER_FRAME_48K), now);
    if (f < leadFrames) continue;
    const at = (f - leadFrames) * SPEAKER_FRAME_48K;
    const end = at / 3 + SPEAKER_FRAME_48K / 3;
    const frame = speaker.subarray(at, at + SPEAKER_FRAME_48K);
    const verdict = confirmed ? detector.judgeConfirmed(frame, now, 'speaker') : detector.judge(frame, now, 'speaker');
    if (verdict === 'speech' && !lastWasSpeech) {
      run.cuts++;
      run.cutSamples.push(end);
      run.firstCutFrames ??= framesFromStart(end);
      run.firstStopFrames ??= framesFromStart(end);
      heldFrames = 0;
    }
    if (verdict === 'onset' && heldFrames === 0) {
      run.holds++;
      run.firstStopFrames ??= framesFromStart(end);
      heldFrames = HOLD_FRAMES;
    }
    lastWasSpeech = verdict === 'speech';
  }
  return run;
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
  /** 20 ms frames from a speech clip's start (3 controls, then the 10 pause-corpus clips) to the cut of the reply it talks over. */
  speechBargeInFrames: (number | null)[];
  /** The same to the reply's first stop: a hold (silent within the frame) or the cut. */
  speechStopFrames: (number | null)[];
  /** The same three figures before cuts waited for confirmation (bargeInOnClip's `confirmed` false). */
  unconfirmed: {
    phantomBargeInsPerHour: number;
    phantomHoldsPerHour: number;
    cutsByKind: Record<string, number>;
    speechBargeInFrames: (number | null)[];
    speechStopFrames: (number | null)[];
  };
  /** Noise the gate sent to the model, % of the noise clips' duration (billed, and heard by the service's detector). */
  noiseSentPercent: number;
  byKind: Record<string, { clips: number; ms: number; opens: number; cuts: number; holds: number }>;
  /** Speech controls (noise corpus) and pause-corpus clips that opened the gate, of all. */
  speechOpened: number;
  speechClips: number;
  /** 10 ms frames from the sound's start to the gate's first open, per speech clip (controls, then pause corpus). */
  speechOpenFrames: (number | null)[];
  clips: ClipPhantoms[];
}

export const PHANTOM_DEFINITION =
  "noise corpus (test/fixtures/noise-corpus, bench/lib/noise-corpus.ts: keyboards, coughs, music, fan, hum; 33 s of noise) fed 10 ms at a time to a fresh voice gate per clip, as the call builds it: phantomStartsPerHour = gate opens on noise clips per hour of noise (each open is a turn the service would hear and answer); phantomBargeInsPerHour = the same clips as a speaker's 20 ms frames while the bot talks (BargeInDetector.judgeConfirmed and the call's hold, echo evidence in place: a headset user who listened first), replies cut (a frame confirmed as speech after one that was not) per hour of noise, phantomHoldsPerHour = holds (the reply silent for up to 5 frames, then playing on) per hour; speechBargeInFrames / speechStopFrames = 20 ms frames from a speech clip's start to the reply's cut / first stop (hold or cut); unconfirmed = the same before cuts waited for confirmation (judge); speech controls (3 synthetic speech clips, the 10 pause-corpus clips) must all open, speechOpenFrames = 10 ms frames from the sound's start to the open";

/** The whole measurement: every noise-corpus clip through the gate and barge-in, and speech controls through the gate. */
export function measurePhantomTurns(
  settings: GateSettings = {},
  corpus: readonly NoiseClip[] = loadNoiseCorpus(),
): PhantomTurns {
  const gated = corpus.map((clip) => gateOnClip(clip.pcm, clip.soundStart, settings));
  const pause = loadPauseCorpus().map((clip) => gateOnClip(clip.pcm, firstSound(clip.pcm), settings));
  return summarisePhantoms(settings, corpus, gated, pause);
}

/** The speech-control clips of the pause corpus, each with where its sound starts. */
export function pauseCorpusControls(): { pcm: Int16Array; soundStart: number }[] {
  return loadPauseCorpus().map((clip) => ({ pcm: clip.pcm, soundStart: firstSound(clip.pcm) }));
}

/** The figures from each noise clip's gate run (in corpus order) and the pause corpus's. */
export function summarisePhantoms(
  settings: GateSettings,
  corpus: readonly NoiseClip[],
  gated: readonly GateOnClip[],
  pause: readonly GateOnClip[],
): PhantomTurns {
  const clips = corpus.map((clip, i): ClipPhantoms => ({
    file: clip.file,
    kind: clip.kind,
    label: clip.label,
    durationMs: clip.durationMs,
    ...gated[i]!,
    ...bargeInOnClip(clip.pcm, clip.soundStart),
  }));
  const speechClips = [...corpus.filter((c) => c.label === 'speech'), ...pauseCorpusControls()];
  const speechBargeIns = speechClips.map((c) => bargeInOnClip(c.pcm, c.soundStart));
  const speechUnconfirmed = speechClips.map((c) => bargeInOnClip(c.pcm, c.soundStart, false));
  const noiseClips = corpus.filter((c) => c.label === 'noise');
  const noiseUnconfirmed = noiseClips.map((c) => bargeInOnClip(c.pcm, c.soundStart, false));
  const cutsByKind: Record<string, number> = {};
  noiseClips.forEach((c, i) => (cutsByKind[c.kind] = (cutsByKind[c.kind] ?? 0) + noiseUnconfirmed[i]!.cuts));
  const noise = clips.filter((c) => c.label === 'noise');
  const noiseMs = noise.reduce((n, c) => n + c.durationMs, 0);
  const perHour = (count: number) => Math.round((count * MS_PER_HOUR) / noiseMs);
  const byKind: PhantomTurns['byKind'] = {};
  for (const c of noise) {
    const row = (byKind[c.kind] ??= { clips: 0, ms: 0, opens: 0, cuts: 0, holds: 0 });
    row.clips++;
    row.ms += c.durationMs;
    row.opens += c.opens;
    row.cuts += c.cuts;
    row.holds += c.holds;
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
    speechBargeInFrames: speechBargeIns.map((c) => c.firstCutFrames),
    speechStopFrames: speechBargeIns.map((c) => c.firstStopFrames),
    unconfirmed: {
      phantomBargeInsPerHour: perHour(noiseUnconfirmed.reduce((n, c) => n + c.cuts, 0)),
      phantomHoldsPerHour: perHour(noiseUnconfirmed.reduce((n, c) => n + c.holds, 0)),
      cutsByKind,
      speechBargeInFrames: speechUnconfirmed.map((c) => c.firstCutFrames),
      speechStopFrames: speechUnconfirmed.map((c) => c.firstStopFrames),
    },
    noiseSentPercent: Math.round((1000 * noise.reduce((n, c) => n + c.sentMs, 0)) / noiseMs) / 10,
    byKind,
    speechOpened: speech.filter((c) => c.opens > 0).length,
    speechClips: speech.length,
    speechOpenFrames: speech.map((c) => c.firstOpenFrames),
    clips,
  };
}

/** The figures without the per-clip rows and the definition (for a bench's JSON, beside its own definitions). */
export function phantomSummary<T extends PhantomTurns>({
  clips: _clips,
  definition: _definition,
  ...summary
}: T): Omit<T, 'clips' | 'definition'> {
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
