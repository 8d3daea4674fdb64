// Who ends a user's turn, per provider, and after how much quiet (issue #44; docs/performance.md
// "End of turn"). Measured on the labelled pause corpus (test/fixtures/pause-corpus,
// 30 mid-sentence pauses of 200-900 ms, 10 true turn ends; bench/lib/pause-corpus.ts): an energy
// gate closes exactly `hangoverMs` after the speech's last sound, so every pause at least that long
// is cut and nothing shorter is:
//   hangover 250 ms: 96.7 % of pauses cut, end of speech → stream end 250 ms
//   hangover 300-400 ms: 73.3 %;  450-600 ms: 50.0 %;  700-800 ms: 26.7 %;  900 ms: 3.3 %;  950 ms: 0 %
// So "p95 ≤ 250 ms with ≤ 5 % false cut-offs" is out of reach of any silence-based end of turn on
// pauses this long (the eot-bench's VAD-only row agrees: 21.7 % at 600 ms, 1600 ms at 5 %); only a
// model of what was said (a turn detector) gets there. The gate keeps 500 ms for every provider:
// it keeps the short pauses (≤ 450 ms) that are most mid-turn pauses, and a cut pause is recovered
// by the service's own barge-in when the user resumes before the reply's first audio (320-400 ms
// later, SERVICE_TIMING), so what a user hears as a cut-off is a pause longer than ≈ 0.8-0.9 s.
//
// The signal per provider: in all three the gate's close IS the end of turn, at the same instant;
// what differs is how the service learns it.
// - gemini: our own signal, `audioStreamEnd` (GeminiLiveSession.endAudioInput) with the service's
//   automatic activity detection left on. Explicit activity control (automaticActivityDetection
//   .disabled + activityStart/activityEnd) would send its end at the same gate close, so it gains no
//   time, and it switches off the service's start-of-speech interruption that recovers a cut pause.
// - openai-realtime: the service's server VAD (silence_duration_ms 500, the same as our hangover),
//   fed 600 ms of silence at the gate's close (OpenAIRealtimeSession.endAudioInput), so the server
//   counts its silence at once and ends the turn at the gate's close. `turn_detection: null` +
//   `input_audio_buffer.commit` would end it at the same instant and lose `speech_started`, the
//   service's barge-in signal.
// - openai-live: the service's own VAD only: GPT-Live "owns response timing and interruption" and has
//   no turn control on the wire; the same 600 ms of silence at the gate's close lets it end the turn
//   there as long as its silence window is ≤ 600 ms + the hangover.
// The choice per provider is its declared `activityControl` (main/core/providers/).
import { PROVIDERS, type ProviderName } from '../providers/index.ts';
import { patienceSilenceMs, type Patience } from '../contracts/patience.ts';
import { DEFAULT_HANGOVER_MS } from './voice-gate.ts';

export type EndOfTurnProvider = ProviderName;

export interface EndOfTurnChoice {
  /** `gate`: our gate's close is sent as the end (audioStreamEnd); `service-vad`: the service's VAD ends the turn on the silence we send at the close. */
  signal: 'gate' | 'service-vad';
  /**
   * The voice gate's hangover for this provider. CallAudio builds its gate with the default, which
   * every choice here equals (test/unit/end-of-turn-corpus.test.ts); a provider with its own value
   * would need CallAudio to take it.
   */
  hangoverMs: number;
}

export const END_OF_TURN: Readonly<Record<EndOfTurnProvider, Readonly<EndOfTurnChoice>>> = Object.fromEntries(
  PROVIDERS.map((p) => [p.name, { signal: p.capabilities.activityControl, hangoverMs: DEFAULT_HANGOVER_MS }]),
) as Record<EndOfTurnProvider, EndOfTurnChoice>;

/**
 * The bridge's silence cap never ends a turn before the service's own window would (issue #52): at
 * least the patience's window plus CAP_MARGIN_MS (the service's decision travelling back to us).
 */
export const CAP_MARGIN_MS = 1000;

export function turnCapFor(capMs: number, patience: Patience): number {
  return Math.max(capMs, patienceSilenceMs(patience) + CAP_MARGIN_MS);
}
