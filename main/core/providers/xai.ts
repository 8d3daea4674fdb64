// xAI's Grok Voice Agent API (docs/providers.md, "xAI Grok Voice Agent"): the Realtime protocol in
// xAI's dialect, adapter model/xai/. Facts and their sources are in docs/providers.md.
import { z } from 'zod';
import type { ProviderDeclaration } from './types.ts';
import { list, socketUrl } from './values.ts';

export const XAI = {
  name: 'xai',
  label: 'xAI Grok Voice',
  service: 'xAI',
  keySource: 'console.x.ai → API Keys',
  adapter: 'xai',
  variables: [
    { name: 'XAI_API_KEY', kind: 'secret', description: 'xAI API key (xai provider).' },
    { name: 'XAI_MODEL', kind: 'string', default: 'grok-voice-think-fast-1.0', description: 'Grok voice model id.' },
    {
      name: 'XAI_MODEL_FALLBACKS',
      kind: 'list',
      default: 'grok-voice-latest',
      description: 'Grok voice models tried in order when the primary is unknown.',
    },
    {
      name: 'XAI_BASE_URL',
      kind: 'url',
      description:
        'xAI Voice Agent endpoint override, e.g. ws://127.0.0.1:PORT/v1 (http/https/ws/wss). Default wss://api.x.ai/v1.',
    },
    {
      name: 'XAI_VOICE',
      kind: 'string',
      default: 'Ara',
      description: 'Voice of the xai provider: Ara, Eve, Leo, Rex or Sal.',
    },
  ],
  keyVariable: 'XAI_API_KEY',
  modelVariable: 'XAI_MODEL',
  voiceVariable: 'XAI_VOICE',
  configSchema: z.object({ XAI_BASE_URL: socketUrl.optional(), XAI_MODEL_FALLBACKS: list.optional() }),
  // A flat rate per minute of connection time; tool invocations (web/X search…) are billed apart (we declare none).
  prices: {
    prices: { per_second: 0.05 / 60 },
    asOf: '2026-04',
    source: 'docs.x.ai/developers/models/voice-agent-api ("$0.05 / min", last updated 2026-04-04)',
  },
  // docs.x.ai voice agent guide, "Voice Options" (Ara is the default); matched case-insensitively.
  voices: ['Ara', 'Eve', 'Leo', 'Rex', 'Sal'],
  capabilities: {
    inputTranscription: true,
    activityControl: 'service-vad',
    // A session.update naming the instructions and tools, as on OpenAI Realtime.
    instructionUpdates: 'replace',
    interruptionSignal: 'event',
    // audio/pcm at a configurable rate (pipecat grok/realtime/events.py SUPPORTED_SAMPLE_RATES); we send 16 kHz as the gate hands it.
    inputRates: [8_000, 16_000, 24_000, 32_000, 44_100, 48_000],
    outputRate: 24_000,
    images: false,
    billing: 'active-time',
    // "Max session duration 30 minutes" (docs.x.ai voice-agent-api models page); other sources say 60 or 120 (docs/providers.md).
    sessionLimitMinutes: 30,
  },
} as const satisfies ProviderDeclaration;
