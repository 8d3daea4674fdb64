// What a live model provider declares about itself, as data every floor may read: its name, its
// configuration variables and the schema of their values, its list prices, its voices and what its
// protocol can do. The adapter that speaks its protocol lives in main/core/model/<adapter>/ and is
// found through `adapter` (model/registry.ts); nothing outside those two places names a provider.
import type { z } from 'zod';

/** One configuration variable, in the shape of the loader's table (config/variables.ts). */
export interface ProviderVariable {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly kind: 'string' | 'secret' | 'url' | 'list';
  readonly default?: string;
  readonly description: string;
}

/**
 * USD per 1,000,000 tokens by direction and modality; USD per billed minute (what GPT-Live reports
 * as billed minutes); USD per second a session is active (billed per second while a session is open,
 * silence and a muted microphone included).
 */
export interface ProviderPrices {
  input_audio?: number;
  input_text?: number;
  input_image?: number;
  output_audio?: number;
  output_text?: number;
  per_minute?: number;
  per_second?: number;
}

/** What the provider's protocol offers, so the core and the page decide by capability, never by name. */
export interface ProviderCapabilities {
  /** The service transcribes the user's speech back to us. */
  readonly inputTranscription: boolean;
  /** Who ends the user's turn: `gate` our voice gate's close (sent as the end), `service-vad` the service's detector on the paced silence we send (audio/end-of-turn.ts). */
  readonly activityControl: 'gate' | 'service-vad';
  /** New instructions mid-session: `replace`d at once, `append`ed only, or from the `next-session`. */
  readonly instructionUpdates: 'replace' | 'append' | 'next-session';
  /** How a barge-in shows: an `event` from the service, or `inferred` from the model's audio stopping. */
  readonly interruptionSignal: 'event' | 'inferred';
  /** PCM rates the service takes for input (Hz), and the rate of its speech. */
  readonly inputRates: readonly number[];
  readonly outputRate: number;
  /** Still images as input. */
  readonly images: boolean;
  /** How it bills: per token, or per second a session is open. */
  readonly billing: 'tokens' | 'active-time';
  /** The longest one session may last, minutes (null: none published). */
  readonly sessionLimitMinutes: number | null;
}

export interface ProviderDeclaration {
  /** The value of DISCORD_VOICE_LIVE_PROVIDER. */
  readonly name: string;
  /** As the page shows it. */
  readonly label: string;
  /** The company, in messages ("Gemini rejected the key"). */
  readonly service: string;
  /** Where a user gets a key. */
  readonly keySource: string;
  /** The folder under main/core/model/ whose `plugin.ts` builds the adapter (model/registry.ts). */
  readonly adapter: string;
  /** Its variables: the key, the model and the voice variables are named below. */
  readonly variables: readonly ProviderVariable[];
  readonly keyVariable: string;
  readonly modelVariable: string;
  /** Its own default voice (the shared DISCORD_VOICE_LIVE_VOICE setting wins where this provider has that voice). */
  readonly voiceVariable: string;
  /** The values of its variables, checked at start-up (a problem names the variable). */
  readonly configSchema: z.ZodType;
  readonly prices: { readonly prices: ProviderPrices; readonly asOf: string; readonly source: string };
  /** Its prebuilt voices, as it spells them. */
  readonly voices: readonly string[];
  readonly capabilities: ProviderCapabilities;
}
