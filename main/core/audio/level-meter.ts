// Cheap per-block RMS and peak meter (one pass, no allocation) for /health and the dashboard.

/** Reported for digital silence instead of -Infinity, so readings stay valid JSON numbers. */
export const SILENCE_DBFS = -100;
const FULL_SCALE = 32768;

export interface LevelReading {
  /** RMS of the last measured block, dB relative to full scale (a full-scale square wave is 0 dBFS). */
  rmsDbfs: number;
  /** Highest sample magnitude since the previous reading, dBFS. */
  peakDbfs: number;
}

function toDbfs(linear: number): number {
  return linear <= 0 ? SILENCE_DBFS : Math.max(SILENCE_DBFS, 20 * Math.log10(linear / FULL_SCALE));
}

export class LevelMeter {
  #lastRms = 0;
  #peakSinceRead = 0;
  #blocks = 0;

  /** Measure one block (typically 20 ms; mono or interleaved stereo, all values count alike). */
  measure(pcm: Int16Array): void {
    let sumSq = 0;
    let peak = 0;
    for (let i = 0; i < pcm.length; i++) {
      const v = pcm[i]!;
      sumSq += v * v;
      const a = v < 0 ? -v : v;
      if (a > peak) peak = a;
    }
    this.#lastRms = pcm.length > 0 ? Math.sqrt(sumSq / pcm.length) : 0;
    if (peak > this.#peakSinceRead) this.#peakSinceRead = peak;
    this.#blocks++;
  }

  /** Blocks measured so far. */
  get blocks(): number {
    return this.#blocks;
  }

  /** The current levels; resets the peak hold (call it at the polling rate, not per frame). */
  read(): LevelReading {
    const reading = { rmsDbfs: toDbfs(this.#lastRms), peakDbfs: toDbfs(this.#peakSinceRead) };
    this.#peakSinceRead = 0;
    return reading;
  }
}
