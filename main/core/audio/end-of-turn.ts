// Who ends a user's turn, per provider, and after how much quiet (issue #52; docs/audio.md
// "Patience and the end of a turn").
//
// The service decides. Measured on the labelled pause corpus (test/fixtures/pause-corpus, 30
// mid-sentence pauses of 200-900 ms, 10 true turn ends; bench/lib/pause-corpus.ts), an energy gate
// that ends the turn `hangoverMs` after the last sound cuts every pause at least that long
// (500 ms: 50 % of the corpus's pauses; 250 ms: 96.7 %; 950 ms: 0 %), and the eot-bench's VAD-only
// row agrees (21.7 % at 600 ms). So the gate's close is no longer the end of a turn: while the
// service hears an utterance, the voice gate stays open through its pauses and hands them on as
// digital silence in real time, one input chunk per chunk time (Discord sends no packets in a
// pause, and a service's detector counts the silence it receives), until the service ends the turn
// by its own rule, or `turnSilenceCapMs` of quiet (default 3000, never under the service's longest wait at the patience + 1 s: turnCapFor)
// have passed. Only then does the bridge end the input, each service in its own way:
//
// | provider        | the service's rule (patience quick / natural / patient / N ms)                 | it ended the turn when              | at the cap                    |
// |-----------------|---------------------------------------------------------------------------------|-------------------------------------|-------------------------------|
// | gemini          | automaticActivityDetection silenceDurationMs 500 / 800 / 1400 / N, end of       | voiceActivity ACTIVITY_END, or the  | audioStreamEnd                |
// |                 | speech sensitivity HIGH for ≤ 500 ms, else LOW (setup only: next resume)        | model's first output → then         |                               |
// |                 |                                                                                 | audioStreamEnd                      |                               |
// | openai-realtime | semantic_vad eagerness high / medium / low (max waits 2 / 4 / 8 s); N ms →      | input_audio_buffer.speech_stopped / | commit + response.create (if  |
// |                 | server_vad silence_duration_ms N (server_vad chosen: 500 / 800 / 1400)          | committed → nothing more            | its VAD heard speech)         |
// | openai-live     | none on the wire: GPT-Live "starts and ends its own turns"                      | the model's first audio             | nothing (the stream stops)    |
// | xai             | server_vad silence_duration_ms 500 / 800 / 1400 / N (session.update mid-call)   | as openai-realtime                  | as openai-realtime            |
//
// What the bridge adds to the service's own window: the time the audio the detector needs (up to
// the last speech sample + its window) waits before it goes out: under 20 ms, since a held pause goes
// out in 20 ms pieces whatever the input chunk (voice-gate.ts PAUSE_PIECE; whole 100 ms chunks read
// p95 101 ms on the Realtime fake). bench:latency's bridgeTurnShare* per provider (docs/audio.md
// "What the bridge adds"). It never runs the service's clock ahead (no
// burst of silence, which made the service see a longer pause than there was): the bridge sends no
// end of turn before the service's rule would (test/integration/bridge/turn-service.test.ts).
// The service's end closes the gate only after 200 ms of quiet (a loud frame first cancels it), so
// an event about an earlier turn (generationComplete, turnComplete, a response for a tool result:
// not taken as ends) or a late one cannot cut an utterance in progress. An utterance the wake-name
// gate withholds is nobody's turn: it closes at the gate's hangover.
import { PROVIDERS, type ProviderName } from '../providers/index.ts';
import { PATIENCE_SERVICE_MAX_WAIT_MS, patienceSilenceMs, type Patience } from '../contracts/patience.ts';
import { DEFAULT_HANGOVER_MS } from './voice-gate-options.ts';

export type EndOfTurnProvider = ProviderName;

export interface EndOfTurnChoice {
  /** `service-vad`: the service's detector ends the turn on the paced silence the bridge sends (every provider since #52). */
  signal: 'gate' | 'service-vad';
  /**
   * The voice gate's hangover: where it asks whether the service owns the utterance (and closes
   * there when nobody does: the wake-name gate withholds it). The same for every provider
   * (test/unit/end-of-turn-corpus.test.ts).
   */
  hangoverMs: number;
}

export const END_OF_TURN: Readonly<Record<EndOfTurnProvider, Readonly<EndOfTurnChoice>>> = Object.fromEntries(
  PROVIDERS.map((p) => [p.name, { signal: p.capabilities.activityControl, hangoverMs: DEFAULT_HANGOVER_MS }]),
) as Record<EndOfTurnProvider, EndOfTurnChoice>;

/**
 * The bridge's silence cap never ends a turn before the service's own rule would (issue #52): at
 * least the patience's window, and at a level the longest a service's content-aware detector may
 * wait (PATIENCE_SERVICE_MAX_WAIT_MS: semantic_vad's eagerness caps), plus CAP_MARGIN_MS (the
 * service's decision travelling back to us). Explicit ms map to a silence window everywhere.
 */
export const CAP_MARGIN_MS = 1000;

export function turnCapFor(capMs: number, patience: Patience): number {
  const serviceMax = typeof patience === 'number' ? patience : PATIENCE_SERVICE_MAX_WAIT_MS[patience];
  return Math.max(capMs, Math.max(patienceSilenceMs(patience), serviceMax) + CAP_MARGIN_MS);
}
