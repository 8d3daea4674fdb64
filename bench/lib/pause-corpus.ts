// The voice gate's end of turn on the labelled pause corpus (test/fixtures/pause-corpus, made by
// scripts/make-pause-corpus.ts): for a gate configuration, where it closes in each clip. A close
// inside a labelled mid-sentence pause is a false cut-off (the service would answer half a
// sentence); the first close at or after the true end of speech is the stream end. Counted in the
// gate's 10 ms analysis frames of corpus audio, never wall clock, so the bench and the test agree
// on any machine. Shared by bench/latency.ts and test/unit/end-of-turn-corpus.test.ts.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { VoiceGate, type VoiceGateOptions } from '../../main/core/audio/index.ts';
import { percentiles } from './latency-proc.ts';
import { decodeWav } from './wav.ts';

const CORPUS_DIR = new URL('../../test/fixtures/pause-corpus/', import.meta.url);
/** The gate's analysis frame: 10 ms at 16 kHz. Audio is fed one frame at a time, so a close is placed exactly. */
export const FRAME_SAMPLES = 160;
const FRAME_MS = 10;
/**
 * A close this soon after a pause's labelled end still belongs to the pause: the next phrase's soft
 * onset (below the close threshold) may finish the hangover before it is loud enough to count.
 */
const ONSET_GRACE_FRAMES = 10;

const span = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]);
const labelsSchema = z.object({
  rate: z.literal(16_000),
  tailMs: z.number().int().positive(),
  clips: z
    .array(
      z.object({
        file: z.string().regex(/^[\w-]+\.wav$/),
        voice: z.string(),
        wpm: z.number().int().positive(),
        text: z.string(),
        samples: z.number().int().positive(),
        speech: z.array(span).min(1),
        pauses: z.array(
          z.object({
            start: z.number().int().nonnegative(),
            end: z.number().int().nonnegative(),
            ms: z.number().int().positive(),
          }),
        ),
        endOfSpeech: z.number().int().positive(),
      }),
    )
    .min(1),
});

export interface CorpusClip {
  file: string;
  voice: string;
  wpm: number;
  pcm: Int16Array;
  pauses: { start: number; end: number; ms: number }[];
  endOfSpeech: number;
}

export function loadPauseCorpus(): CorpusClip[] {
  const labels = labelsSchema.parse(JSON.parse(readFileSync(new URL('labels.json', CORPUS_DIR), 'utf8')));
  return labels.clips.map((clip) => {
    const wav = decodeWav(readFileSync(new URL(clip.file, CORPUS_DIR)));
    if (wav.rate !== labels.rate || wav.samples.length !== clip.samples)
      throw new Error(
        `${clip.file}: ${wav.rate} Hz, ${wav.samples.length} samples; labels say ${labels.rate} Hz, ${clip.samples}`,
      );
    return {
      file: clip.file,
      voice: clip.voice,
      wpm: clip.wpm,
      pcm: wav.samples,
      pauses: clip.pauses,
      endOfSpeech: clip.endOfSpeech,
    };
  });
}

export interface ClipEndOfTurn {
  file: string;
  /** Labelled pauses (ms) in which the gate closed. */
  pausesCut: number[];
  /** Closes inside a phrase, before the true end (outside any labelled pause). */
  cutsInPhrases: number;
  /** Frames from the true end of speech to the gate's close (the stream end); null: it never closed. */
  streamEndFrames: number | null;
}

export interface CorpusEndOfTurn {
  gate: Pick<VoiceGateOptions, 'hangoverMs'>;
  clips: ClipEndOfTurn[];
  pauses: number;
  pausesCut: number;
  cutsInPhrases: number;
  /** Labelled pauses cut, and cuts inside phrases, per labelled pause, %. */
  falseCutoffPercent: number;
  /** Per labelled pause length (ms): pauses, and how many the gate cut. */
  byPauseMs: Record<number, { pauses: number; cut: number }>;
  endOfSpeechToStreamEndP50Ms: number | null;
  endOfSpeechToStreamEndP95Ms: number | null;
  endOfSpeechToStreamEndMaxMs: number | null;
}

/** Runs one clip through a fresh gate, 10 ms at a time; returns the sample index of each close. */
function closesIn(pcm: Int16Array, gate: Omit<VoiceGateOptions, 'onChunk' | 'onEnd'>): number[] {
  const closes: number[] = [];
  let fed = 0;
  const voiceGate = new VoiceGate({ ...gate, onChunk: () => undefined, onEnd: () => closes.push(fed) });
  for (; fed + FRAME_SAMPLES <= pcm.length;) {
    const frame = pcm.subarray(fed, fed + FRAME_SAMPLES);
    fed += FRAME_SAMPLES;
    voiceGate.push(frame);
  }
  return closes;
}

export function evaluateEndOfTurn(
  corpus: readonly CorpusClip[],
  gate: Omit<VoiceGateOptions, 'onChunk' | 'onEnd'>,
): CorpusEndOfTurn {
  const byPauseMs: Record<number, { pauses: number; cut: number }> = {};
  const clips = corpus.map((clip): ClipEndOfTurn => {
    const closes = closesIn(clip.pcm, gate);
    const pausesCut: number[] = [];
    for (const pause of clip.pauses) {
      const row = (byPauseMs[pause.ms] ??= { pauses: 0, cut: 0 });
      row.pauses++;
      if (closes.some((at) => at > pause.start && at <= pause.end + ONSET_GRACE_FRAMES * FRAME_SAMPLES)) {
        row.cut++;
        pausesCut.push(pause.ms);
      }
    }
    const inPause = (at: number) =>
      clip.pauses.some((p) => at > p.start && at <= p.end + ONSET_GRACE_FRAMES * FRAME_SAMPLES);
    const cutsInPhrases = closes.filter((at) => at < clip.endOfSpeech && !inPause(at)).length;
    const streamEnd = closes.find((at) => at >= clip.endOfSpeech);
    return {
      file: clip.file,
      pausesCut,
      cutsInPhrases,
      streamEndFrames: streamEnd === undefined ? null : Math.ceil((streamEnd - clip.endOfSpeech) / FRAME_SAMPLES),
    };
  });
  const pauses = corpus.reduce((n, c) => n + c.pauses.length, 0);
  const pausesCut = clips.reduce((n, c) => n + c.pausesCut.length, 0);
  const cutsInPhrases = clips.reduce((n, c) => n + c.cutsInPhrases, 0);
  const latency = percentiles(
    clips
      .map((c) => c.streamEndFrames)
      .filter((f): f is number => f !== null)
      .map((f) => f * FRAME_MS),
  );
  const never = clips.some((c) => c.streamEndFrames === null);
  return {
    gate: { hangoverMs: gate.hangoverMs },
    clips,
    pauses,
    pausesCut,
    cutsInPhrases,
    falseCutoffPercent: Math.round((10_000 * (pausesCut + cutsInPhrases)) / pauses) / 100,
    byPauseMs,
    endOfSpeechToStreamEndP50Ms: never ? null : latency.p50_ms,
    endOfSpeechToStreamEndP95Ms: never ? null : latency.p95_ms,
    endOfSpeechToStreamEndMaxMs: never ? null : latency.max_ms,
  };
}
