// A second opinion for the voice gate (issue #52 item 5, docs/audio.md "Phantom turns"): once the
// energy gate hears an onset, a classifier says whether it is speech before the turn opens, so a
// keyboard, a cough or music does not open a turn the service would answer. It runs only while an
// onset waits for its verdict (the gate's "pending" state), never on silence.
// The contract is callback-based and allocation-free on the gate's side: the gate hands a reused
// window and a callback bound once; the classifier copies the window before returning and answers
// later (a neural model runs off the audio thread) or at once (a test's fake).

/** Speech probability at or over this confirms an onset (Silero's own default threshold). */
export const DEFAULT_SPEECH_THRESHOLD = 0.5;

export interface VoiceActivityClassifier {
  /** Samples per window at 16 kHz (Silero v5: 512, 32 ms). */
  readonly windowSamples: number;
  /** A new onset: forget the stream so far; a verdict still in flight for the old one is dropped. */
  reset(): void;
  /**
   * One window of 16 kHz mono s16. Copies it before returning (the array is the gate's reused
   * buffer) and calls `onResult` with the window's speech probability, 0-1, later or at once.
   */
  classify(window: Int16Array, onResult: (speechProbability: number) => void): void;
}

/** Why a classifier could not be loaded, in words a settings page can show. */
export type ClassifierLoad = { ok: true; classifier: VoiceActivityClassifier } | { ok: false; reason: string };
