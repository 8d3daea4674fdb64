// The configuration as the rest of the core reads it: one typed object, grouped by part. Apart from
// the loader (index.ts), which validates every variable into it, so a reader of the shape does not
// wade through parsing, and the loader's file is about parsing only.
import type { McpServerConfig } from './mcp-servers.ts';
import type { PriceTable } from '../usage/pricing.ts';
import type { ProviderName } from '../providers/index.ts';
import type { VariableName } from './variables.ts';
import type { Patience } from '../contracts/patience.ts';

// The names come from the provider registry (providers/index.ts); on the wire they are text (api-types.ts).
export type LiveProviderName = ProviderName;

export interface Config {
  discord: {
    botToken?: string;
    ownerId?: string;
    allowedSpeakers: string[];
    guildId?: string;
    voiceChannelId?: string;
    textChannelId?: string;
    leaveWhenOwnerLeaves: boolean;
    /** Start a call when the owner enters a voice channel (DISCORD_VOICE_LIVE_AUTO_JOIN). */
    autoJoin: boolean;
    /** Captions, brief and summary in the voice channel's chat (DISCORD_VOICE_LIVE_CAPTIONS). */
    captions: boolean;
    apiBaseUrl?: string;
  };
  gemini: {
    apiKey?: string;
    model: string;
    fallbackModels: string[];
    baseUrl?: string;
    apiVersion: string;
    voice: string;
    personaFile?: string;
  };
  /** Which live model carries the next call (settings may override it per call, see model/select.ts). */
  liveProvider: LiveProviderName;
  /** Every provider variable's value (trimmed; defaults applied), as each provider declares them (providers/), checked by its schema. */
  providerValues: Readonly<Record<string, string | undefined>>;
  openai: {
    apiKey?: string;
    realtimeModel: string;
    realtimeFallbackModels: string[];
    realtimeBaseUrl?: string;
    turnDetection: 'server_vad' | 'semantic_vad';
    liveModel: string;
    liveBaseUrl?: string;
    voice: string;
  };
  sidecar: {
    host: string;
    port: number;
    allowRemote: boolean;
    token?: string;
    /** Where the generated token lives (0600): written by the core, read by the CLI. */
    tokenFile: string;
  };
  paths: {
    agentHome: string;
    /** `<agent home>/voice-users`: schedule, notes, token, settings, hand-offs, delegate logs (the chime is synthesised, no sound files). */
    voiceUsers: string;
  };
  notify: {
    sfxEnabled: boolean;
    webhookAgentNotify?: string;
    webhookThrottleSeconds: number;
    /** How long the webhook receiver drops a repeated Idempotency-Key (s); 0: it does not. */
    webhookIdempotencySeconds: number;
    scheduleMaxPending: number;
    lateToleranceSeconds: number;
    maxLateSeconds: number;
  };
  notes: { retentionDays: number; maxMb: number };
  /** What a new call is told of earlier calls' summaries (memory-seed.ts); 0 tokens: off. */
  memory: { seedTokens: number; seedCalls: number };
  /** Estimated cost per call and the optional daily cap (docs/usage.md). */
  usage: {
    prices: PriceTable;
    dailyCapUsd?: number;
    capWarnPercent: number;
    /** Quiet seconds before the model is parked (0 never). */ parkAfterS: number;
  };
  audio: {
    inputChunkMs: number;
    /** Push-to-talk mode at start-up: voices reach the model only while the talk key is held. */
    pttMode: boolean;
    /** How long a pause may last before the service ends a turn (contracts/patience.ts). */
    patience: Patience;
    /** Quiet ms after which the bridge ends a turn the service has not ended. */
    turnSilenceCapMs: number;
    /** Silero confirms each onset before a turn opens (docs/audio.md "Phantom turns"). */
    sileroVad: boolean;
  };
  /** The wake-name gate (bridge/wake-gate.ts). */
  wake: { names: string[]; auto: boolean; followUpMs: number; screenModel: string };
  delegate: { command: string[]; cwd?: string; env: string[] };
  /** MCP servers whose tools the live model may use (DISCORD_VOICE_LIVE_MCP_SERVERS). */
  mcp: {
    servers: McpServerConfig[];
    /** Who may answer agents' questions by voice besides the owner (DISCORD_VOICE_LIVE_MCP_APPROVERS). */ approvers: string[];
    /** Our MCP server's tools that need the owner's yes (DISCORD_VOICE_LIVE_MCP_ASK_TOOLS). */ askTools: string[];
  };
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
  /** Headless terminal output: auto = pretty on a TTY, JSON otherwise. */
  logFormat: 'auto' | 'pretty' | 'json';
  /** Names of the variables whose values are secrets, resolved (for the logger's redactor). */
  secretValues: string[];
  /**
   * Where each variable that is set came from: `source` is `environment` (the process environment)
   * or the file it was read from (the settings file, a `.env`); `name` is the name it was set under
   * (maybe an alias). So a page can say where a secret really comes from without showing it.
   */
  origins?: Partial<Record<VariableName, VariableOrigin>>;
}

export interface VariableOrigin {
  source: string;
  name: string;
}
