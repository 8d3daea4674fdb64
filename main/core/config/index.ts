// The one configuration loader. Sources, highest precedence first: the settings store (choices
// the user made in the app), the process environment, a `.env` file (headless mode), defaults.
// Every value is validated; a bad value is a startup error that names the variable and never
// echoes a secret.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { mcpSecretValues, parseMcpServers } from './mcp-servers.ts';
import { defaultPrices, parsePriceOverrides } from '../usage/pricing.ts';
import { isProviderName, PROVIDER_NAMES, PROVIDER_VARIABLES, PROVIDERS } from '../providers/index.ts';
import { CONFIG_VARIABLES, isSecretKind, type VariableName, type VariableSpec } from './variables.ts';
import { CodedError } from '../contracts/coded-error.ts';
import type { Config, LiveProviderName } from './shape.ts';
import { expandHome, fail, ok, quoted, ValueReader } from './reader.ts';
import { findValues, type Source } from './sources.ts';
import { DEFAULT_PATIENCE, parsePatience, PATIENCE_MAX_MS, PATIENCE_MIN_MS } from '../contracts/patience.ts';

export { CONFIG_VARIABLES, type VariableName, type VariableSpec } from './variables.ts';
// The shape every caller reads is in shape.ts; the loader below fills it.
export type { Config, LiveProviderName, VariableOrigin } from './shape.ts';

export const LIVE_PROVIDERS = PROVIDER_NAMES;

export function isLiveProviderName(value: string): value is LiveProviderName {
  return isProviderName(value);
}

export class ConfigError extends CodedError {
  readonly problems: string[];
  constructor(problems: string[]) {
    super('invalid_configuration', `invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Path of a `.env` file to read (headless mode). Missing file is fine; unreadable is an error. */
  envFile?: string;
  /** Values from the settings store, keyed by canonical variable name. */
  settings?: Partial<Record<VariableName, string>>;
  /** The file those settings were read from, named in a problem about one of them. */
  settingsFile?: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
const VARIABLES = CONFIG_VARIABLES as readonly VariableSpec[];

function readEnvFile(file: string): Record<string, string> {
  try {
    return parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError([`cannot read ${file}: ${(err as Error).message}`]);
  }
}

function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * In four steps: find each variable's text (the first source that sets it, else its default), read
 * it as its type, check each provider's values with the provider's own schema, then throw every
 * problem at once (each naming the file its value came from, secrets masked) or return the config.
 */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const sources: Source[] = [
    { label: options.settingsFile ?? 'the saved settings (settings.json)', values: options.settings ?? {} },
    { label: 'environment', values: options.env ?? process.env },
  ];
  if (options.envFile) sources.push({ label: options.envFile, values: readEnvFile(options.envFile) });
  const found = findValues(VARIABLES, sources);
  const read = new ValueReader(found.raw, VARIABLES);
  const config: Config = { ...readConfig(read), origins: found.origins };
  checkProviderSchemas(read, config.providerValues);
  if (read.problems.length) throw new ConfigError(namedProblems(read.problems, found.setIn, config.secretValues));
  return config;
}

/** Every variable read into its part of the config; the problems are in `read`. */
function readConfig(read: ValueReader): Omit<Config, 'origins'> {
  // Read first, in this order, so the problems come in it: the checks that span parts of the config.
  const ownerId = read.snowflake('DISCORD_VOICE_LIVE_USER_ID');
  const allowed = read.snowflakeList('DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS');
  const access = sidecarAccess(read);
  const logLevel = read.oneOf('DISCORD_VOICE_LIVE_LOG_LEVEL', LOG_LEVELS);
  const logFormat = read.oneOf('DISCORD_VOICE_LIVE_LOG_FORMAT', LOG_FORMATS);
  const liveProvider = read.oneOf('DISCORD_VOICE_LIVE_PROVIDER', LIVE_PROVIDERS);
  const turnDetection = read.string('OPENAI_REALTIME_TURN_DETECTION')!.trim();
  if (turnDetection !== 'server_vad' && turnDetection !== 'semantic_vad')
    read.problems.push(
      `OPENAI_REALTIME_TURN_DETECTION: must be server_vad or semantic_vad, got ${quoted(turnDetection)}`,
    );
  const agentHome = path.resolve(expandHome(read.string('HERMES_HOME')!.trim()));
  const mcpServers =
    read.parse('DISCORD_VOICE_LIVE_MCP_SERVERS', (v) => {
      const out = v.trim() ? parseMcpServers(v) : { servers: [] };
      return 'error' in out ? fail(out.error) : ok(out.servers);
    }) ?? [];
  return {
    discord: discordPart(read, ownerId, allowed),
    gemini: geminiPart(read),
    liveProvider,
    providerValues: providerValuesOf(read),
    openai: openaiPart(read, turnDetection as Config['openai']['turnDetection']),
    sidecar: {
      host: access.host,
      port: read.number('DISCORD_VOICE_LIVE_PORT', true) ?? 18943,
      allowRemote: access.allowRemote,
      token: access.token,
      tokenFile:
        read.path('DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE') ?? path.join(agentHome, 'voice-users', 'sidecar.token'),
    },
    paths: { agentHome, voiceUsers: path.join(agentHome, 'voice-users') },
    notify: notifyPart(read),
    notes: {
      retentionDays: read.number('DISCORD_VOICE_LIVE_NOTES_RETENTION_DAYS', true) ?? 90,
      maxMb: read.number('DISCORD_VOICE_LIVE_NOTES_MAX_MB', true) ?? 500,
    },
    memory: {
      seedTokens: read.number('DISCORD_VOICE_LIVE_MEMORY_SEED_TOKENS', true) ?? 600,
      seedCalls: read.number('DISCORD_VOICE_LIVE_MEMORY_SEED_CALLS', true) ?? 3,
    },
    usage: usagePart(read),
    audio: audioPart(read),
    wake: {
      names: read.list('DISCORD_VOICE_LIVE_WAKE_NAMES') ?? [],
      auto: read.bool('DISCORD_VOICE_LIVE_WAKE_AUTO') ?? true,
      followUpMs: read.number('DISCORD_VOICE_LIVE_WAKE_FOLLOW_UP_MS', true) ?? 8000,
      screenModel: read.string('DISCORD_VOICE_LIVE_WAKE_SCREEN_MODEL')!.trim(),
    },
    delegate: {
      command: read.list('DISCORD_VOICE_LIVE_DELEGATE_COMMAND') ?? [],
      cwd: read.path('DISCORD_VOICE_LIVE_DELEGATE_CWD'),
      env: read.list('DISCORD_VOICE_LIVE_DELEGATE_ENV') ?? [],
    },
    mcp: {
      servers: mcpServers,
      approvers: read.snowflakeList('DISCORD_VOICE_LIVE_MCP_APPROVERS') ?? [],
      askTools: read.list('DISCORD_VOICE_LIVE_MCP_ASK_TOOLS') ?? [],
    },
    logLevel,
    logFormat,
    secretValues: [...secretValuesOf(read), ...mcpSecretValues(mcpServers)],
  };
}

/** Who may reach the sidecar: a host off the loopback needs a token and an explicit yes. */
function sidecarAccess(read: ValueReader): Pick<Config['sidecar'], 'host' | 'allowRemote' | 'token'> {
  const host = read.string('DISCORD_VOICE_LIVE_HOST')!.trim();
  const allowRemote = read.bool('DISCORD_VOICE_LIVE_ALLOW_REMOTE') ?? false;
  const token = read.string('DISCORD_VOICE_LIVE_SIDECAR_TOKEN');
  if (token !== undefined && token.length < 16)
    read.problems.push('DISCORD_VOICE_LIVE_SIDECAR_TOKEN: must be at least 16 characters (value hidden)');
  if (!isLoopbackHost(host) && !(allowRemote && token)) {
    read.problems.push(
      `DISCORD_VOICE_LIVE_HOST: ${JSON.stringify(host)} is not a loopback address; set DISCORD_VOICE_LIVE_SIDECAR_TOKEN and DISCORD_VOICE_LIVE_ALLOW_REMOTE=true to expose the sidecar`,
    );
  }
  return { host, allowRemote, token };
}

function discordPart(read: ValueReader, ownerId: string | undefined, allowed: string[] | undefined): Config['discord'] {
  return {
    botToken: read.string('DISCORD_BOT_TOKEN'),
    ownerId,
    allowedSpeakers: allowed ?? (ownerId ? [ownerId] : []),
    guildId: read.snowflake('DISCORD_VOICE_LIVE_GUILD_ID'),
    voiceChannelId: read.snowflake('DISCORD_VOICE_LIVE_CHANNEL_ID'),
    textChannelId: read.snowflake('DISCORD_VOICE_LIVE_TEXT_CHANNEL_ID'),
    leaveWhenOwnerLeaves: read.bool('DISCORD_VOICE_LIVE_LEAVE_WHEN_OWNER_LEAVES') ?? true,
    autoJoin: read.bool('DISCORD_VOICE_LIVE_AUTO_JOIN') ?? false,
    captions: read.bool('DISCORD_VOICE_LIVE_CAPTIONS') ?? false,
    apiBaseUrl: read.url('DISCORD_API_BASE_URL'),
  };
}

function geminiPart(read: ValueReader) {
  return {
    apiKey: read.string('GEMINI_API_KEY'),
    model: read.string('GEMINI_MODEL')!.trim(),
    fallbackModels: read.list('GEMINI_LIVE_MODEL_FALLBACKS') ?? [],
    baseUrl: read.url('GEMINI_LIVE_BASE_URL'),
    apiVersion: read.string('GEMINI_LIVE_API_VERSION')!.trim(),
    voice: read.string('DISCORD_VOICE_LIVE_VOICE')!.trim(),
    personaFile: read.path('DISCORD_VOICE_LIVE_PERSONA_FILE'),
  };
}

function openaiPart(read: ValueReader, turnDetection: Config['openai']['turnDetection']): Config['openai'] {
  return {
    apiKey: read.string('OPENAI_API_KEY'),
    realtimeModel: read.string('OPENAI_REALTIME_MODEL')!.trim(),
    realtimeFallbackModels: read.list('OPENAI_REALTIME_MODEL_FALLBACKS') ?? [],
    realtimeBaseUrl: read.socketUrl('OPENAI_REALTIME_BASE_URL'),
    turnDetection,
    liveModel: read.string('OPENAI_LIVE_MODEL')!.trim(),
    liveBaseUrl: read.socketUrl('OPENAI_LIVE_BASE_URL'),
    voice: read.string('OPENAI_VOICE')!.trim(),
  };
}

function notifyPart(read: ValueReader): Config['notify'] {
  return {
    sfxEnabled: read.bool('DISCORD_VOICE_LIVE_SFX_ENABLED') ?? true,
    webhookAgentNotify: read.url('DISCORD_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY'),
    webhookThrottleSeconds: read.number('DISCORD_VOICE_LIVE_WEBHOOK_THROTTLE_SECONDS', false) ?? 2,
    webhookIdempotencySeconds: read.number('DISCORD_VOICE_LIVE_WEBHOOK_IDEMPOTENCY_SECONDS', false) ?? 0,
    scheduleMaxPending: read.number('DISCORD_VOICE_LIVE_SCHEDULE_MAX_PENDING', true) ?? 10_000,
    lateToleranceSeconds: read.number('DISCORD_VOICE_LIVE_SCHEDULE_LATE_TOLERANCE_SECONDS', true) ?? 60,
    maxLateSeconds: read.number('DISCORD_VOICE_LIVE_SCHEDULE_MAX_LATE_SECONDS', true) ?? 86_400,
  };
}

function usagePart(read: ValueReader): Config['usage'] {
  return {
    prices:
      read.parse('DISCORD_VOICE_LIVE_USAGE_PRICES', (v) => {
        const out = parsePriceOverrides(v);
        return 'error' in out ? fail(out.error) : ok(out.prices);
      }) ?? defaultPrices(),
    dailyCapUsd: read.number('DISCORD_VOICE_LIVE_DAILY_CAP_USD', false),
    capWarnPercent: read.number('DISCORD_VOICE_LIVE_DAILY_CAP_WARN_PERCENT', true) ?? 80,
    parkAfterS: read.number('DISCORD_VOICE_LIVE_PARK_AFTER_S', false) ?? 60,
  };
}

function audioPart(read: ValueReader): Config['audio'] {
  return {
    inputChunkMs: read.number('DISCORD_VOICE_LIVE_INPUT_CHUNK_MS', true) ?? 100,
    pttMode: read.bool('DISCORD_VOICE_LIVE_PTT_MODE') ?? false,
    patience:
      read.parse('DISCORD_VOICE_LIVE_PATIENCE', (v) => {
        const patience = parsePatience(v);
        return patience === null
          ? fail(`must be quick, natural, patient or whole ms ${PATIENCE_MIN_MS}-${PATIENCE_MAX_MS}, got ${quoted(v)}`)
          : ok(patience);
      }) ?? DEFAULT_PATIENCE,
    turnSilenceCapMs: read.number('DISCORD_VOICE_LIVE_TURN_SILENCE_CAP_MS', true) ?? 3000,
    sileroVad: read.bool('DISCORD_VOICE_LIVE_SILERO_VAD') ?? false,
  };
}

/** The providers' own variables, and the shared ones they name (a voice variable of the core's), trimmed. */
function providerValuesOf(read: ValueReader): Record<string, string | undefined> {
  const values: Record<string, string | undefined> = {};
  for (const name of new Set([...PROVIDER_VARIABLES.map((v) => v.name), ...PROVIDERS.map((p) => p.voiceVariable)]))
    values[name] = read.get(name as VariableName)?.trim();
  return values;
}

/** Every secret's value long enough to mask safely (a shorter one would mask ordinary words). */
function secretValuesOf(read: ValueReader): string[] {
  return VARIABLES.filter((s) => isSecretKind(s.kind))
    .map((s) => read.get(s.name))
    .filter((v): v is string => typeof v === 'string' && v.length >= 8);
}

/** Each provider's schema over its values; one problem per variable (the reader's own checks may have said it). */
function checkProviderSchemas(read: ValueReader, providerValues: Config['providerValues']): void {
  for (const provider of PROVIDERS) {
    const values = Object.fromEntries(
      provider.variables.map((v: { name: string }) => [v.name, providerValues[v.name]]),
    );
    const checked = provider.configSchema.safeParse(values);
    for (const issue of checked.success ? [] : checked.error.issues) {
      const name = String(issue.path[0] ?? provider.keyVariable);
      const shown = isSecretKind(read.spec(name as VariableName)?.kind ?? 'string')
        ? ' (value hidden)'
        : `, got ${quoted(values[name] ?? '')}`;
      if (!read.problems.some((p) => p.startsWith(`${name}:`))) read.problems.push(`${name}: ${issue.message}${shown}`);
    }
  }
}

/** Every problem names the file its value came from (the environment is not a file), secrets masked. */
function namedProblems(
  problems: readonly string[],
  setIn: ReadonlyMap<string, string>,
  secrets: readonly string[],
): string[] {
  return problems.map((problem) => {
    const source = setIn.get(/^([A-Z0-9_]+):/.exec(problem)?.[1] ?? '');
    return maskSecrets(source ? `${problem} (set in ${source})` : problem, secrets);
  });
}

/**
 * A secret pasted into the wrong variable (the bot token into DISCORD_VOICE_LIVE_USER_ID) must not
 * be echoed by the error about that variable: every configured secret value is masked in every
 * problem, whichever variable it appears in.
 */
function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a secret containing another is masked whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join('[secret]');
  return out;
}

/** Markdown table of every variable, for README/docs (`node scripts/config-table.ts`). */
export function configTableMarkdown(): string {
  const rows = (CONFIG_VARIABLES as readonly VariableSpec[]).map((s) => {
    const names = [s.name, ...(s.aliases ?? [])].map((n) => `\`${n}\``).join(' / ');
    const def = s.default === undefined ? '—' : `\`${s.default}\``;
    return `| ${names} | ${def} | ${isSecretKind(s.kind) ? 'secret; ' : ''}${s.description} |`;
  });
  return ['| variable | default | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}
