// The prebuilt voices each live provider offers (its declaration, main/core/providers/), so a
// made-up voice is refused when it is saved, not when the first call fails.
import type { LiveProviderName } from '../config/index.ts';
import { canonicalVoiceOf, providerOf } from '../providers/index.ts';

export function voicesFor(provider: LiveProviderName): readonly string[] {
  return providerOf(provider).voices;
}

/** The voice as the provider spells it, matched case-insensitively; undefined when it has none such. */
export function canonicalVoice(provider: LiveProviderName, voice: string): string | undefined {
  return canonicalVoiceOf(provider, voice);
}
