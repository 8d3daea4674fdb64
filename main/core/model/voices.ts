// The prebuilt voices each live provider offers, so a made-up voice is refused when it is saved,
// not when the first call fails. Gemini: the 30 Live API voices (ai.google.dev, "Voice options");
// OpenAI Realtime / GPT-Live: the voices of the Realtime API reference.
import type { LiveProviderName } from '../config/index.ts';

export const GEMINI_VOICES = [
  'Zephyr', 'Puck', 'Charon', 'Kore', 'Fenrir', 'Leda', 'Orus', 'Aoede', 'Callirrhoe', 'Autonoe',
  'Enceladus', 'Iapetus', 'Umbriel', 'Algieba', 'Despina', 'Erinome', 'Algenib', 'Rasalgethi', 'Laomedeia', 'Achernar',
  'Alnilam', 'Schedar', 'Gacrux', 'Pulcherrima', 'Achird', 'Zubenelgenubi', 'Vindemiatrix', 'Sadachbia', 'Sadaltager', 'Sulafat',
] as const;

export const OPENAI_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'sage', 'shimmer', 'verse', 'marin', 'cedar'] as const;

export function voicesFor(provider: LiveProviderName): readonly string[] {
  return provider === 'gemini' ? GEMINI_VOICES : OPENAI_VOICES;
}

/** The voice as the provider spells it, matched case-insensitively; undefined when it has none such. */
export function canonicalVoice(provider: LiveProviderName, voice: string): string | undefined {
  const wanted = voice.trim().toLowerCase();
  return voicesFor(provider).find((v) => v.toLowerCase() === wanted);
}
