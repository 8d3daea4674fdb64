// The services' own timing, modelled by the fakes BY DEFAULT so the bench's turn figures include
// what a user waits for beyond the bridge (issue #44 item 3). One table for all three fakes and
// for the bench, which prints each modelled delay beside the measured figure so the bridge's share
// is visible. Every number is a published anchor (../shared/research/field-2026-11.md §4) or a
// stated assumption; tests that need none pass 0 through the fakes' options.
//
// - setupMs: socket open → session ready (Gemini `setupComplete`, Realtime `session.created`,
//   GPT-Live `session.started`). Gemini 150 ms: "hundreds of ms" (field-notes); OpenAI 300 ms is an
//   ASSUMPTION (TLS + WebSocket handshake + session creation; none published, searched 2026-11-27).
// - firstAudioAfterTurnEndMs: the service's end of turn (Gemini `audioStreamEnd`/activityEnd,
//   Realtime `input_audio_buffer.commit`/server VAD stop, GPT-Live turn end) → first reply audio.
//   Gemini 3.1 Flash Live "300–500 ms end to end" (tokenmix.ai): 400 ms. Realtime: GPT-4o audio
//   response "320 ms average" (GPT-4o System Card); gpt-realtime-2 1.12 s at minimal reasoning
//   (besthub.dev) is the reasoning model, so 320 ms is the floor a non-reasoning turn sees. GPT-Live:
//   no published figure; the GPT-4o figure (320 ms) is the ASSUMPTION.
// - deliveryRealtimeFactor: reply audio arrives this many times faster than it plays (Gemini sends
//   "chunks faster than real time", protocols.md §Gemini; the OpenAI services stream ahead of
//   playback the same way: response.output_audio.delta bursts). 2 = a 40 ms chunk every 20 ms.
export type ServiceTimingProvider = 'gemini' | 'openai-realtime' | 'openai-live';

export interface ServiceTiming {
  setupMs: number;
  firstAudioAfterTurnEndMs: number;
  deliveryRealtimeFactor: number;
}

export const SERVICE_TIMING: Readonly<Record<ServiceTimingProvider, Readonly<ServiceTiming>>> = {
  gemini: { setupMs: 150, firstAudioAfterTurnEndMs: 400, deliveryRealtimeFactor: 2 },
  'openai-realtime': { setupMs: 300, firstAudioAfterTurnEndMs: 320, deliveryRealtimeFactor: 2 },
  'openai-live': { setupMs: 300, firstAudioAfterTurnEndMs: 320, deliveryRealtimeFactor: 2 },
};
