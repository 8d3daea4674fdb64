// Gemini Live (docs/gemini.md): BidiGenerateContent through @google/genai, adapter model/gemini/.
import { z } from 'zod';
import type { ProviderDeclaration } from './types.ts';
import { httpUrl, list } from './values.ts';

export const GEMINI = {
  name: 'gemini',
  label: 'Gemini Live',
  service: 'Gemini',
  keySource: 'Google AI Studio → Get API key',
  adapter: 'gemini',
  variables: [
    { name: 'GEMINI_API_KEY', aliases: ['GOOGLE_API_KEY'], kind: 'secret', description: 'Gemini API key.' },
    { name: 'GEMINI_MODEL', kind: 'string', default: 'gemini-3.8-live', description: 'Live model id.' },
    {
      name: 'GEMINI_LIVE_MODEL_FALLBACKS',
      kind: 'list',
      default: 'gemini-3.1-flash-live-preview,gemini-2.5-flash-native-audio-preview-12-2025',
      description: 'Models tried in order when the primary is unknown or unavailable.',
    },
    {
      name: 'GEMINI_LIVE_BASE_URL',
      kind: 'url',
      description: 'Gemini Live endpoint override (tests, proxies), e.g. http://127.0.0.1:PORT.',
    },
    {
      name: 'GEMINI_LIVE_API_VERSION',
      kind: 'string',
      default: 'v1beta',
      description: 'Gemini API version used in the Live path.',
    },
  ],
  keyVariable: 'GEMINI_API_KEY',
  modelVariable: 'GEMINI_MODEL',
  voiceVariable: 'DISCORD_VOICE_LIVE_VOICE',
  configSchema: z.object({ GEMINI_LIVE_BASE_URL: httpUrl.optional(), GEMINI_LIVE_MODEL_FALLBACKS: list.optional() }),
  // Gemini 3.8 Live: one input and one output price for every modality (thought tokens are output).
  prices: {
    prices: { input_text: 0.75, input_audio: 0.75, input_image: 0.75, output_text: 4.5, output_audio: 4.5 },
    asOf: '2026-11',
    source: 'Vercel AI Gateway listing for Gemini 3.8 Live (no split by modality), research/field-2026-11.md §3.1',
  },
  // The 30 Live API voices (ai.google.dev, "Voice options").
  voices: [
    'Zephyr',
    'Puck',
    'Charon',
    'Kore',
    'Fenrir',
    'Leda',
    'Orus',
    'Aoede',
    'Callirrhoe',
    'Autonoe',
    'Enceladus',
    'Iapetus',
    'Umbriel',
    'Algieba',
    'Despina',
    'Erinome',
    'Algenib',
    'Rasalgethi',
    'Laomedeia',
    'Achernar',
    'Alnilam',
    'Schedar',
    'Gacrux',
    'Pulcherrima',
    'Achird',
    'Zubenelgenubi',
    'Vindemiatrix',
    'Sadachbia',
    'Sadaltager',
    'Sulafat',
  ],
  capabilities: {
    inputTranscription: true,
    // Automatic activity detection on the paced silence the bridge sends through a pause; audioStreamEnd only after it (audio/end-of-turn.ts).
    activityControl: 'service-vad',
    instructionUpdates: 'replace',
    interruptionSignal: 'event',
    inputRates: [16_000],
    outputRate: 24_000,
    images: true,
    billing: 'tokens',
    // 58:00 deadline on 3.8 (research/field-2026-11.md §3); the adapter renews at 55 min.
    sessionLimitMinutes: 58,
  },
} as const satisfies ProviderDeclaration;
