// OpenAI Realtime (GA event set, docs/providers.md): adapter model/openai/realtime/.
import { z } from 'zod';
import type { ProviderDeclaration } from './types.ts';
import { list, socketUrl } from './values.ts';

/** The voices of the Realtime API reference; GPT-Live takes the same. */
export const OPENAI_VOICES = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'sage',
  'shimmer',
  'verse',
  'marin',
  'cedar',
] as const;

export const OPENAI_REALTIME = {
  name: 'openai-realtime',
  label: 'OpenAI Realtime',
  service: 'OpenAI',
  keySource: 'platform.openai.com → API keys',
  adapter: 'openai/realtime',
  variables: [
    {
      name: 'OPENAI_API_KEY',
      kind: 'secret',
      description: 'OpenAI API key (openai-realtime and openai-live providers).',
    },
    {
      name: 'OPENAI_REALTIME_MODEL',
      kind: 'string',
      default: 'gpt-realtime-2.1',
      description: 'OpenAI Realtime model id.',
    },
    {
      name: 'OPENAI_REALTIME_MODEL_FALLBACKS',
      kind: 'list',
      default: 'gpt-realtime-2.1-mini',
      description: 'Realtime models tried in order when the primary is unknown.',
    },
    {
      name: 'OPENAI_REALTIME_BASE_URL',
      kind: 'url',
      description:
        'OpenAI Realtime endpoint override, e.g. ws://127.0.0.1:PORT/v1 for a compatible local server (http/https/ws/wss).',
    },
    {
      name: 'OPENAI_REALTIME_TURN_DETECTION',
      kind: 'string',
      default: 'semantic_vad',
      description:
        'Realtime turn detection for a named patience: semantic_vad (eagerness from the patience) or server_vad (the patience\'s silence window); a patience in ms is always server_vad. See docs/audio.md "Patience".',
    },
    { name: 'OPENAI_VOICE', kind: 'string', default: 'marin', description: 'Voice of the OpenAI providers.' },
  ],
  keyVariable: 'OPENAI_API_KEY',
  modelVariable: 'OPENAI_REALTIME_MODEL',
  voiceVariable: 'OPENAI_VOICE',
  configSchema: z.object({
    OPENAI_REALTIME_BASE_URL: socketUrl.optional(),
    OPENAI_REALTIME_MODEL_FALLBACKS: list.optional(),
    OPENAI_REALTIME_TURN_DETECTION: z
      .enum(['server_vad', 'semantic_vad'], { error: 'must be server_vad or semantic_vad' })
      .optional(),
  }),
  prices: {
    prices: { input_text: 4, input_audio: 32, input_image: 5, output_text: 16, output_audio: 64 },
    asOf: '2025-09',
    source: 'gpt-realtime list price, openai.com/api/pricing',
  },
  voices: OPENAI_VOICES,
  capabilities: {
    inputTranscription: true,
    // semantic_vad / server_vad on the paced silence the bridge sends through a pause (audio/end-of-turn.ts).
    activityControl: 'service-vad',
    instructionUpdates: 'replace',
    interruptionSignal: 'event',
    inputRates: [24_000],
    outputRate: 24_000,
    images: true,
    billing: 'tokens',
    // `session_expired` + close 1001 at 60 minutes (livekit/agents #2358, reachy_mini_conversation_app #134).
    sessionLimitMinutes: 60,
  },
} as const satisfies ProviderDeclaration;
