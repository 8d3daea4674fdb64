// GPT-Live (docs/providers.md, "GPT-Live adapter"): adapter model/openai/live/. Shares the OpenAI
// key and voice with OpenAI Realtime (declared there).
import { z } from 'zod';
import { OPENAI_VOICES } from './openai-realtime.ts';
import type { ProviderDeclaration } from './types.ts';
import { socketUrl } from './values.ts';

export const OPENAI_LIVE = {
  name: 'openai-live',
  label: 'OpenAI GPT-Live',
  service: 'OpenAI',
  keySource: 'platform.openai.com → API keys',
  adapter: 'openai/live',
  variables: [
    { name: 'OPENAI_LIVE_MODEL', kind: 'string', default: 'gpt-live-1.1', description: 'GPT-Live model id.' },
    {
      name: 'OPENAI_LIVE_BASE_URL',
      kind: 'url',
      description: 'GPT-Live endpoint override, e.g. ws://127.0.0.1:PORT/v1 (http/https/ws/wss).',
    },
  ],
  keyVariable: 'OPENAI_API_KEY',
  modelVariable: 'OPENAI_LIVE_MODEL',
  voiceVariable: 'OPENAI_VOICE',
  configSchema: z.object({ OPENAI_LIVE_BASE_URL: socketUrl.optional() }),
  // $0.05 per active minute, billed per second (WebSocket sessions have no standby).
  prices: {
    prices: { per_second: 0.05 / 60 },
    asOf: '2026-11',
    source: 'apidog "GPT-Live-1.1 pricing" (secondary source), research/field-2026-11.md §3.2',
  },
  voices: OPENAI_VOICES,
  capabilities: {
    inputTranscription: true,
    activityControl: 'service-vad',
    // session.instructions.append only (docs/providers.md, late-2026 rules).
    instructionUpdates: 'append',
    // Full duplex: the adapter infers a yield from 250 ms without model audio.
    interruptionSignal: 'inferred',
    inputRates: [16_000, 24_000],
    outputRate: 24_000,
    images: false,
    billing: 'active-time',
    sessionLimitMinutes: null,
  },
} as const satisfies ProviderDeclaration;
