// The voice gate's contract: its options (each one's default and why) and its stats, apart from the
// gate's frame loop (voice-gate.ts) so that the loop reads without 60 lines of settings before it.
// end-of-turn.ts and the bench's corpora read the defaults and settings without the gate's internals.

import type { VoiceActivityClassifier } from './voice-classifier.ts';

/** Quiet time after which the gate asks whether the turn is the service's (else it closes there). */
export const DEFAULT_HANGOVER_MS = 500;
/** Quiet time after which a turn the service has not ended is ended by the bridge (config TURN_SILENCE_CAP_MS). */
export const DEFAULT_TURN_CAP_MS = 3000;

export interface VoiceGateOptions {
  /**
   * Receives each fixed-size chunk of speech. The array is a reused buffer: use or copy it before
   * returning (the model socket serialises it to base64 synchronously, which is fine).
   */
  onChunk: (chunk16kMono: Int16Array) => void;
  /** The gate closed: the user stopped talking. */
  /** The utterance ended; `trailingQuietMs`: the quiet it sent after its last loud frame (hangover, held pause). */
  onEnd: (trailingQuietMs: number) => void;
  /** The gate opened (speech started): the bridge's hook for local barge-in. */
  onOpen?: () => void;
  /** Chunk length sent to the model, 20-100 ms. Default 100 (the app's default, config INPUT_CHUNK_MS). */
  chunkMs?: number;
  /** Audio kept from before the frames that opened the gate, >= 200 ms. Default 300. */
  preRollMs?: number;
  /** Quiet time after which the gate closes unless `holdTurn()` says the service owns the turn. Default DEFAULT_HANGOVER_MS. */
  hangoverMs?: number;
  /** Asked at the hangover: true keeps the gate open (silence flows on) until the service ends the turn or the cap. Default: never held. */
  holdTurn?: () => boolean;
  /** Quiet time after which a held turn closes anyway. Default DEFAULT_TURN_CAP_MS; never below the hangover. */
  turnCapMs?: number;
  /** A frame never counts as speech below this RMS level. Default -50 dBFS. */
  minOpenDbfs?: number;
  /** Open when a frame is this far above the tracked noise floor. Default 12 dB. */
  openAboveNoiseDb?: number;
  /** Stay open while frames are within this much of the open threshold. Default 6 dB. */
  closeHysteresisDb?: number;
  /** Consecutive loud 10 ms frames needed to open (rejects clicks). Default 2. */
  openFrames?: number;
  /**
   * An onset whose opening frames hold more than this share of their energy in one 2.5 ms block is
   * a click (a key, a tap on the mic), not a voice: it opens nothing. Default 0.5; 1 turns it off.
   */
  maxBurstShare?: number;
  /**
   * A sound whose 50 ms level never dips to the close threshold for this long is stationary (a fan,
   * hum, a sustained chord): the floor rises to its quietest 50 ms, so it falls quiet. Applied to a
   * pending onset (the classifier stops); to an open gate only with closeOnStationary. Default 1500; 0: off.
   */
  stationaryAfterMs?: number;
  /**
   * Close an open gate on a stationary sound too. Default false: the fakes' voices (the demo's
   * scripted speech, the soak's phrases) are steady tones longer than 1.5 s, which it would cut.
   */
  closeOnStationary?: boolean;
  /** A second opinion before an onset opens the turn (off when absent: the energy rule alone opens). */
  classifier?: VoiceActivityClassifier;
  /** Speech probability at or over which the classifier's verdict opens the turn. Default 0.5. */
  speechThreshold?: number;
}

export interface VoiceGateStats {
  open: boolean;
  opens: number;
  sentMs: number;
  noiseFloorDbfs: number;
  lastLevelDbfs: number;
  /** Onsets the classifier never called speech before they fell quiet (phantom turns kept out). */
  rejectedOnsets: number;
}
