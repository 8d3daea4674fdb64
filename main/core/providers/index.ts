// THE provider registry: every live model provider the core knows, one line each, in the order the
// page lists them (the first is the default). A provider is added by its declaration here and its
// adapter folder under main/core/model/ (docs/providers.md, "Adding a provider"); no other file
// names a provider (test/unit/lint/provider-names.test.ts).
import { GEMINI } from './gemini.ts';
import { OPENAI_LIVE } from './openai-live.ts';
import { OPENAI_REALTIME } from './openai-realtime.ts';
import type { ProviderDeclaration } from './types.ts';
import { XAI } from './xai.ts';

export const PROVIDERS = [GEMINI, OPENAI_REALTIME, OPENAI_LIVE, XAI] as const satisfies readonly ProviderDeclaration[];

export type ProviderName = (typeof PROVIDERS)[number]['name'];
export type { ProviderCapabilities, ProviderDeclaration, ProviderPrices, ProviderVariable } from './types.ts';

export const PROVIDER_NAMES: readonly ProviderName[] = PROVIDERS.map((p) => p.name);
export const DEFAULT_PROVIDER: ProviderName = PROVIDERS[0].name;

export function isProviderName(value: string): value is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(value);
}

/** The declaration of a provider by name. */
export function providerOf(name: ProviderName): (typeof PROVIDERS)[number] {
  return PROVIDERS.find((p) => p.name === name)!;
}

/** Every provider variable, each once (providers may share one, e.g. an account's key), in registry order. */
type DeclaredVariable = (typeof PROVIDERS)[number]['variables'][number];
export const PROVIDER_VARIABLES: readonly DeclaredVariable[] = [
  ...new Map(PROVIDERS.flatMap((p): readonly DeclaredVariable[] => p.variables).map((v) => [v.name, v])).values(),
];

/** The voice as the provider spells it, matched case-insensitively; undefined when it has none such. */
export function canonicalVoiceOf(name: ProviderName, voice: string): string | undefined {
  const wanted = voice.trim().toLowerCase();
  return providerOf(name).voices.find((v) => v.toLowerCase() === wanted);
}
