// Phantom turns with Silero VAD confirming each onset (main/core/audio/silero-classifier.ts; issue #52
// item 5): the same noise corpus and speech controls as noise-phantoms.ts, the gate fed 10 ms at a
// time and each verdict awaited before the next frame, so the open frame is counted in corpus
// frames as without the classifier (a call does not wait: the verdict lands about 1 ms later).
// CPU per window: process.cpuUsage (user + system, every thread of the process) over many windows
// run back to back, divided by their number. Reports "not installed" when the optional packages
// are absent (they are not in package.json yet: docs/audio.md "Phantom turns").
import { loadSileroClassifier } from '../../main/core/audio/silero-classifier.ts';
import type { VoiceActivityClassifier } from '../../main/core/audio/voice-classifier.ts';
import { VoiceGate } from '../../main/core/audio/index.ts';
import { loadNoiseCorpus } from './noise-corpus.ts';
import {
  bargeInOnClip,
  pauseCorpusControls,
  summarisePhantoms,
  type GateOnClip,
  type GateSettings,
  type PhantomTurns,
} from './noise-phantoms.ts';

const GATE_FRAME = 160;
const WINDOW_MS = 32;

/** Wraps a classifier so the bench can wait until every verdict asked for has come back. */
class SettledClassifier implements VoiceActivityClassifier {
  readonly windowSamples: number;
  readonly #inner: VoiceActivityClassifier;
  #outstanding = 0;
  #wake: (() => void) | null = null;
  windows = 0;

  constructor(inner: VoiceActivityClassifier) {
    this.#inner = inner;
    this.windowSamples = inner.windowSamples;
  }

  reset(): void {
    this.#inner.reset();
  }

  classify(window: Int16Array, onResult: (p: number) => void): void {
    this.windows++;
    this.#outstanding++;
    this.#inner.classify(window, (p) => {
      this.#outstanding--;
      onResult(p);
      if (this.#outstanding === 0) this.#wake?.();
    });
  }

  /** Resolves once no verdict is in flight (a verdict dropped by reset() is waited for at most 50 ms). */
  async settled(): Promise<void> {
    if (this.#outstanding === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#outstanding = 0;
        resolve();
      }, 50);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = null;
  }
}

async function gateOnClipSettled(
  pcm: Int16Array,
  soundStart: number,
  settings: GateSettings,
  classifier: SettledClassifier,
): Promise<GateOnClip> {
  let fed = 0;
  let firstOpen: number | null = null;
  const gate = new VoiceGate({
    chunkMs: 100,
    ...settings,
    classifier,
    onChunk: () => undefined,
    onEnd: () => undefined,
    onOpen: () => (firstOpen ??= fed),
  });
  for (; fed + GATE_FRAME <= pcm.length;) {
    fed += GATE_FRAME;
    gate.push(pcm.subarray(fed - GATE_FRAME, fed));
    await classifier.settled();
  }
  const stats = gate.stats();
  const opened: number | null = firstOpen;
  return {
    opens: stats.opens,
    firstOpenFrames: opened === null ? null : Math.max(0, Math.ceil((opened - soundStart) / GATE_FRAME)),
    sentMs: Math.round(stats.sentMs),
  };
}

export interface SileroPhantoms extends PhantomTurns {
  /** Classifier windows run on the noise clips, per hour of noise (it runs only while an onset is pending). */
  classifierWindowsPerNoiseHour: number;
  /** CPU per 32 ms window, ms (process.cpuUsage over `cpuWindows` windows back to back), and as % of one core per speaker while pending. */
  cpuMsPerWindow: number;
  cpuPercentOfCoreWhilePending: number;
  cpuWindows: number;
  /**
   * What-if for barge-in.ts (not what it does): a cut stands only if Silero, primed on the 256 ms
   * before it, calls one of the two 32 ms windows after it speech (the reply would be held meanwhile).
   */
  phantomBargeInsPerHourIfSileroConfirmed: number;
  /** Per speech control: whether its first cut was confirmed that way. */
  speechBargeInConfirmedBySilero: boolean[];
}

export type SileroMeasurement = { installed: true; result: SileroPhantoms } | { installed: false; reason: string };

/** CPU per window: `count` windows of corpus audio back to back through a fresh classifier. */
async function cpuPerWindow(inner: VoiceActivityClassifier, audio: Int16Array, count: number): Promise<number> {
  const classifier = new SettledClassifier(inner);
  const window = new Int16Array(inner.windowSamples);
  for (let w = 0; w < 50; w++) {
    classifier.classify(audio.subarray(w * window.length, (w + 1) * window.length), () => undefined);
    await classifier.settled(); // warm-up: the JIT and the session's first runs
  }
  const before = process.cpuUsage();
  for (let w = 0; w < count; w++) {
    const at = (w * window.length) % (audio.length - window.length);
    for (let i = 0; i < window.length; i++) window[i] = audio[at + i]!;
    classifier.classify(window, () => undefined);
    await classifier.settled();
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

const PRIME_WINDOWS = 8; // 256 ms
const CONFIRM_WINDOWS = 2; // 64 ms

/** Whether Silero, fresh and primed on the audio before `cut`, calls a window of the 64 ms after it speech. */
async function sileroConfirms(classifier: SettledClassifier, pcm: Int16Array, cut: number): Promise<boolean> {
  const size = classifier.windowSamples;
  classifier.reset();
  let confirmed = false;
  const window = new Int16Array(size);
  for (let w = -PRIME_WINDOWS; w < CONFIRM_WINDOWS; w++) {
    const at = cut + w * size;
    for (let i = 0; i < size; i++) window[i] = pcm[at + i] ?? 0;
    classifier.classify(window, (p) => {
      if (w >= 0 && p >= 0.5) confirmed = true;
    });
    await classifier.settled();
  }
  return confirmed;
}

export async function measurePhantomTurnsWithSilero(
  settings: GateSettings = {},
  cpuWindows = 2000,
): Promise<SileroMeasurement> {
  const loaded = await loadSileroClassifier();
  if (!loaded.ok) return { installed: false, reason: loaded.reason };
  const classifier = new SettledClassifier(loaded.classifier);
  const corpus = loadNoiseCorpus();
  const gated: GateOnClip[] = [];
  let noiseWindows = 0;
  for (const clip of corpus) {
    const before = classifier.windows;
    gated.push(await gateOnClipSettled(clip.pcm, clip.soundStart, settings, classifier));
    if (clip.label === 'noise') noiseWindows += classifier.windows - before;
  }
  const pause: GateOnClip[] = [];
  for (const clip of pauseCorpusControls())
    pause.push(await gateOnClipSettled(clip.pcm, clip.soundStart, settings, classifier));
  const summary = summarisePhantoms({ ...settings, classifier }, corpus, gated, pause);
  let confirmedNoiseCuts = 0;
  const speechConfirmed: boolean[] = [];
  for (const clip of corpus) {
    const { cutSamples } = bargeInOnClip(clip.pcm, clip.soundStart);
    if (clip.label === 'noise')
      for (const cut of cutSamples) confirmedNoiseCuts += (await sileroConfirms(classifier, clip.pcm, cut)) ? 1 : 0;
    else speechConfirmed.push(cutSamples.length > 0 && (await sileroConfirms(classifier, clip.pcm, cutSamples[0]!)));
  }
  const speech = corpus.find((c) => c.label === 'speech')!.pcm;
  const cpuMs = await cpuPerWindow(loaded.classifier, speech, cpuWindows);
  return {
    installed: true,
    result: {
      ...summary,
      classifierWindowsPerNoiseHour: Math.round((noiseWindows * 3_600_000) / summary.noiseMs),
      cpuMsPerWindow: Math.round(cpuMs * 1000) / 1000,
      cpuPercentOfCoreWhilePending: Math.round((1000 * cpuMs) / WINDOW_MS) / 10,
      cpuWindows,
      phantomBargeInsPerHourIfSileroConfirmed: Math.round((confirmedNoiseCuts * 3_600_000) / summary.noiseMs),
      speechBargeInConfirmedBySilero: speechConfirmed,
    },
  };
}
