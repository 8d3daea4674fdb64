// The one configuration loader. Sources, highest precedence first: the settings store (choices
// the user made in the app), the process environment, a `.env` file (headless mode), defaults.
// Every value is validated; a bad value is a startup error that names the variable and never
// echoes a secret.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { mcpSecretValues, parseMcpServers } from './mcp-servers.ts';
import { defaultPrices, parsePriceOverrides } from '../usage/pricing.ts';
import { isProviderName, PROVIDER_NAMES, PROVIDER_VARIABLES, PROVIDERS } from '../providers/index.ts';
import { CONFIG_VARIABLES, isSecretKind, type VariableName, type VariableSpec } from './variables.ts';
import { CodedError } from '../contracts/coded-error.ts';
import type { Config, LiveProviderName, VariableOrigin } from './shape.ts';
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

type Source = { label: string; values: Record<string, string | undefined> };

const SNOWFLAKE = /^\d{17,20}$/;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

function readEnvFile(file: string): Record<string, string> {
  try {
    return parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError([`cannot read ${file}: ${(err as Error).message}`]);
  }
}

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(homedir(), p.slice(1)) : p;
}

function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const sources: Source[] = [
    { label: options.settingsFile ?? 'the saved settings (settings.json)', values: options.settings ?? {} },
    { label: 'environment', values: options.env ?? process.env },
  ];
  if (options.envFile) sources.push({ label: options.envFile, values: readEnvFile(options.envFile) });

  const problems: string[] = [];
  const raw = new Map<string, string>();
  /** Where each value that is not from the environment came from (a file), for the problems. */
  const setIn = new Map<string, string>();
  const origins: Partial<Record<VariableName, VariableOrigin>> = {};
  for (const spec of CONFIG_VARIABLES as readonly VariableSpec[]) {
    const found = lookup(spec, sources);
    if (found !== undefined) {
      raw.set(spec.name, found.value);
      origins[spec.name] = { source: found.source, name: found.name };
      if (found.source !== 'environment') setIn.set(spec.name, found.source);
    } else if (spec.default !== undefined) raw.set(spec.name, spec.default);
  }

  const specOf = new Map((CONFIG_VARIABLES as readonly VariableSpec[]).map((s) => [s.name, s]));
  const get = (name: VariableName): string | undefined => raw.get(name);

  type Parsed<T> = { value: T } | { error: string };
  const ok = <T>(value: T): Parsed<T> => ({ value });
  const fail = (error: string): Parsed<never> => ({ error });

  function parse<T>(name: VariableName, convert: (value: string, spec: VariableSpec) => Parsed<T>): T | undefined {
    const value = get(name);
    if (value === undefined) return undefined;
    const out = convert(value, specOf.get(name)!);
    if ('error' in out) {
      problems.push(`${name}: ${out.error}`);
      return undefined;
    }
    return out.value;
  }

  const asString = (name: VariableName) => parse(name, (v) => ok(v));
  const asUrl = (name: VariableName) =>
    parse(name, (v, spec) => {
      try {
        const url = new URL(v);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail('must be an http(s) URL');
        return ok(url.toString().replace(/\/$/, ''));
      } catch {
        return fail(
          isSecretKind(spec.kind) ? 'is not a valid URL (value hidden)' : `is not a valid URL: ${JSON.stringify(v)}`,
        );
      }
    });
  const asNumber = (name: VariableName, integer: boolean) =>
    parse(name, (v, spec) => {
      const n = Number(v.trim());
      if (v.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)))
        return fail(`must be ${integer ? 'an integer' : 'a number'}, got ${quoted(v)}`);
      if (spec.min !== undefined && n < spec.min) return fail(`must be ≥ ${spec.min}, got ${n}`);
      if (spec.max !== undefined && n > spec.max) return fail(`must be ≤ ${spec.max}, got ${n}`);
      return ok(n);
    });
  const asBool = (name: VariableName) =>
    parse(name, (v) => {
      const word = v.trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return ok(true);
      if (FALSE_WORDS.has(word)) return ok(false);
      return fail(`must be true or false, got ${quoted(v)}`);
    });
  const asList = (name: VariableName) =>
    parse(name, (v) =>
      ok(
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    );
  const asSnowflake = (name: VariableName) =>
    parse(name, (v) =>
      SNOWFLAKE.test(v.trim()) ? ok(v.trim()) : fail(`must be a Discord id (17–20 digits), got ${quoted(v)}`),
    );
  const asSnowflakeList = (name: VariableName) =>
    parse(name, (v) => {
      const ids = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = ids.filter((id) => !SNOWFLAKE.test(id));
      return bad.length ? fail(`must be comma-separated Discord ids; bad: ${bad.map(quoted).join(', ')}`) : ok(ids);
    });

  const ownerId = asSnowflake('DISCORD_VOICE_LIVE_USER_ID');
  const allowed = asSnowflakeList('DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS');
  const host = asString('DISCORD_VOICE_LIVE_HOST')!.trim();
  const allowRemote = asBool('DISCORD_VOICE_LIVE_ALLOW_REMOTE') ?? false;
  const sidecarToken = asString('DISCORD_VOICE_LIVE_SIDECAR_TOKEN');
  if (sidecarToken !== undefined && sidecarToken.length < 16)
    problems.push('DISCORD_VOICE_LIVE_SIDECAR_TOKEN: must be at least 16 characters (value hidden)');
  if (!isLoopbackHost(host) && !(allowRemote && sidecarToken)) {
    problems.push(
      `DISCORD_VOICE_LIVE_HOST: ${JSON.stringify(host)} is not a loopback address; set DISCORD_VOICE_LIVE_SIDECAR_TOKEN and DISCORD_VOICE_LIVE_ALLOW_REMOTE=true to expose the sidecar`,
    );
  }
  const logLevel = asString('DISCORD_VOICE_LIVE_LOG_LEVEL')!.trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    problems.push(`DISCORD_VOICE_LIVE_LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')}, got ${quoted(logLevel)}`);
  const logFormat = asString('DISCORD_VOICE_LIVE_LOG_FORMAT')!.trim().toLowerCase();
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat))
    problems.push(`DISCORD_VOICE_LIVE_LOG_FORMAT: must be one of ${LOG_FORMATS.join(', ')}, got ${quoted(logFormat)}`);

  const liveProvider = asString('DISCORD_VOICE_LIVE_PROVIDER')!.trim().toLowerCase();
  if (!isLiveProviderName(liveProvider))
    problems.push(
      `DISCORD_VOICE_LIVE_PROVIDER: must be one of ${LIVE_PROVIDERS.join(', ')}, got ${quoted(liveProvider)}`,
    );
  const turnDetection = asString('OPENAI_REALTIME_TURN_DETECTION')!.trim();
  if (turnDetection !== 'server_vad' && turnDetection !== 'semantic_vad')
    problems.push(`OPENAI_REALTIME_TURN_DETECTION: must be server_vad or semantic_vad, got ${quoted(turnDetection)}`);
  // OpenAI endpoints are WebSockets; compatible local servers are often plain ws://.
  const asSocketUrl = (name: VariableName) =>
    parse(name, (v) => {
      if (!URL.canParse(v) || !/^(?:https?|wss?):$/.test(new URL(v).protocol))
        return fail(`must be an http(s) or ws(s) URL, got ${JSON.stringify(v)}`);
      return ok(new URL(v).toString().replace(/\/$/, ''));
    });

  const agentHome = path.resolve(expandHome(asString('HERMES_HOME')!.trim()));
  const personaFile = asString('DISCORD_VOICE_LIVE_PERSONA_FILE');
  const delegateCwd = asString('DISCORD_VOICE_LIVE_DELEGATE_CWD');
  const tokenFile = asString('DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE');

  const mcpServers =
    parse('DISCORD_VOICE_LIVE_MCP_SERVERS', (v) => {
      const out = v.trim() ? parseMcpServers(v) : { servers: [] };
      return 'error' in out ? fail(out.error) : ok(out.servers);
    }) ?? [];

  const providerValues: Record<string, string | undefined> = {};
  // Their own variables, and the shared ones they name (a voice variable of the core's).
  for (const name of new Set([...PROVIDER_VARIABLES.map((v) => v.name), ...PROVIDERS.map((p) => p.voiceVariable)]))
    providerValues[name] = get(name as VariableName)?.trim();

  const config: Config = {
    discord: {
      botToken: asString('DISCORD_BOT_TOKEN'),
      ownerId,
      allowedSpeakers: allowed ?? (ownerId ? [ownerId] : []),
      guildId: asSnowflake('DISCORD_VOICE_LIVE_GUILD_ID'),
      voiceChannelId: asSnowflake('DISCORD_VOICE_LIVE_CHANNEL_ID'),
      textChannelId: asSnowflake('DISCORD_VOICE_LIVE_TEXT_CHANNEL_ID'),
      leaveWhenOwnerLeaves: asBool('DISCORD_VOICE_LIVE_LEAVE_WHEN_OWNER_LEAVES') ?? true,
      autoJoin: asBool('DISCORD_VOICE_LIVE_AUTO_JOIN') ?? false,
      captions: asBool('DISCORD_VOICE_LIVE_CAPTIONS') ?? false,
      apiBaseUrl: asUrl('DISCORD_API_BASE_URL'),
    },
    gemini: {
      apiKey: asString('GEMINI_API_KEY'),
      model: asString('GEMINI_MODEL')!.trim(),
      fallbackModels: asList('GEMINI_LIVE_MODEL_FALLBACKS') ?? [],
      baseUrl: asUrl('GEMINI_LIVE_BASE_URL'),
      apiVersion: asString('GEMINI_LIVE_API_VERSION')!.trim(),
      voice: asString('DISCORD_VOICE_LIVE_VOICE')!.trim(),
      personaFile: personaFile ? path.resolve(expandHome(personaFile)) : undefined,
    },
    liveProvider: liveProvider as LiveProviderName,
    providerValues,
    openai: {
      apiKey: asString('OPENAI_API_KEY'),
      realtimeModel: asString('OPENAI_REALTIME_MODEL')!.trim(),
      realtimeFallbackModels: asList('OPENAI_REALTIME_MODEL_FALLBACKS') ?? [],
      realtimeBaseUrl: asSocketUrl('OPENAI_REALTIME_BASE_URL'),
      turnDetection: turnDetection as Config['openai']['turnDetection'],
      liveModel: asString('OPENAI_LIVE_MODEL')!.trim(),
      liveBaseUrl: asSocketUrl('OPENAI_LIVE_BASE_URL'),
      voice: asString('OPENAI_VOICE')!.trim(),
    },
    sidecar: {
      host,
      port: asNumber('DISCORD_VOICE_LIVE_PORT', true) ?? 18943,
      allowRemote,
      token: sidecarToken,
      tokenFile: tokenFile ? path.resolve(expandHome(tokenFile)) : path.join(agentHome, 'voice-users', 'sidecar.token'),
    },
    paths: { agentHome, voiceUsers: path.join(agentHome, 'voice-users') },
    notify: {
      sfxEnabled: asBool('DISCORD_VOICE_LIVE_SFX_ENABLED') ?? true,
      webhookAgentNotify: asUrl('DISCORD_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY'),
      webhookThrottleSeconds: asNumber('DISCORD_VOICE_LIVE_WEBHOOK_THROTTLE_SECONDS', false) ?? 2,
      webhookIdempotencySeconds: asNumber('DISCORD_VOICE_LIVE_WEBHOOK_IDEMPOTENCY_SECONDS', false) ?? 0,
      scheduleMaxPending: asNumber('DISCORD_VOICE_LIVE_SCHEDULE_MAX_PENDING', true) ?? 10_000,
      lateToleranceSeconds: asNumber('DISCORD_VOICE_LIVE_SCHEDULE_LATE_TOLERANCE_SECONDS', true) ?? 60,
      maxLateSeconds: asNumber('DISCORD_VOICE_LIVE_SCHEDULE_MAX_LATE_SECONDS', true) ?? 86_400,
    },
    notes: {
      retentionDays: asNumber('DISCORD_VOICE_LIVE_NOTES_RETENTION_DAYS', true) ?? 90,
      maxMb: asNumber('DISCORD_VOICE_LIVE_NOTES_MAX_MB', true) ?? 500,
    },
    memory: {
      seedTokens: asNumber('DISCORD_VOICE_LIVE_MEMORY_SEED_TOKENS', true) ?? 600,
      seedCalls: asNumber('DISCORD_VOICE_LIVE_MEMORY_SEED_CALLS', true) ?? 3,
    },
    usage: {
      prices:
        parse('DISCORD_VOICE_LIVE_USAGE_PRICES', (v) => {
          const out = parsePriceOverrides(v);
          return 'error' in out ? fail(out.error) : ok(out.prices);
        }) ?? defaultPrices(),
      dailyCapUsd: asNumber('DISCORD_VOICE_LIVE_DAILY_CAP_USD', false),
      capWarnPercent: asNumber('DISCORD_VOICE_LIVE_DAILY_CAP_WARN_PERCENT', true) ?? 80,
      parkAfterS: asNumber('DISCORD_VOICE_LIVE_PARK_AFTER_S', false) ?? 60,
    },
    audio: {
      inputChunkMs: asNumber('DISCORD_VOICE_LIVE_INPUT_CHUNK_MS', true) ?? 100,
      pttMode: asBool('DISCORD_VOICE_LIVE_PTT_MODE') ?? false,
      patience:
        parse('DISCORD_VOICE_LIVE_PATIENCE', (v) => {
          const patience = parsePatience(v);
          return patience === null
            ? fail(
                `must be quick, natural, patient or whole ms ${PATIENCE_MIN_MS}-${PATIENCE_MAX_MS}, got ${quoted(v)}`,
              )
            : ok(patience);
        }) ?? DEFAULT_PATIENCE,
      turnSilenceCapMs: asNumber('DISCORD_VOICE_LIVE_TURN_SILENCE_CAP_MS', true) ?? 3000,
      sileroVad: asBool('DISCORD_VOICE_LIVE_SILERO_VAD') ?? false,
    },
    wake: {
      names: asList('DISCORD_VOICE_LIVE_WAKE_NAMES') ?? [],
      auto: asBool('DISCORD_VOICE_LIVE_WAKE_AUTO') ?? true,
      followUpMs: asNumber('DISCORD_VOICE_LIVE_WAKE_FOLLOW_UP_MS', true) ?? 8000,
      screenModel: asString('DISCORD_VOICE_LIVE_WAKE_SCREEN_MODEL')!.trim(),
    },
    delegate: {
      command: asList('DISCORD_VOICE_LIVE_DELEGATE_COMMAND') ?? [],
      cwd: delegateCwd ? path.resolve(expandHome(delegateCwd)) : undefined,
      env: asList('DISCORD_VOICE_LIVE_DELEGATE_ENV') ?? [],
    },
    mcp: {
      servers: mcpServers,
      approvers: asSnowflakeList('DISCORD_VOICE_LIVE_MCP_APPROVERS') ?? [],
      askTools: asList('DISCORD_VOICE_LIVE_MCP_ASK_TOOLS') ?? [],
    },
    logLevel: logLevel as Config['logLevel'],
    logFormat: logFormat as Config['logFormat'],
    secretValues: [
      ...(CONFIG_VARIABLES as readonly VariableSpec[])
        .filter((s) => isSecretKind(s.kind))
        .map((s) => raw.get(s.name))
        .filter((v): v is string => typeof v === 'string' && v.length >= 8),
      ...mcpSecretValues(mcpServers),
    ],
    origins,
  };

  // Each provider's schema over its values; one problem per variable (the loader's own checks above may have said it).
  for (const provider of PROVIDERS) {
    const values = Object.fromEntries(
      provider.variables.map((v: { name: string }) => [v.name, providerValues[v.name]]),
    );
    const checked = provider.configSchema.safeParse(values);
    for (const issue of checked.success ? [] : checked.error.issues) {
      const name = String(issue.path[0] ?? provider.keyVariable);
      const shown = isSecretKind(specOf.get(name as VariableName)?.kind ?? 'string')
        ? ' (value hidden)'
        : `, got ${quoted(values[name] ?? '')}`;
      if (!problems.some((p) => p.startsWith(`${name}:`))) problems.push(`${name}: ${issue.message}${shown}`);
    }
  }

  // Every problem names the file its value came from (the environment is not a file).
  const named = problems.map((problem) => {
    const source = setIn.get(/^([A-Z0-9_]+):/.exec(problem)?.[1] ?? '');
    return source ? `${problem} (set in ${source})` : problem;
  });
  if (problems.length) throw new ConfigError(named.map((problem) => maskSecrets(problem, config.secretValues)));
  return config;
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

/** A value quoted back in an error; a long one (likely pasted from elsewhere, maybe a token) is described, not shown. */
function quoted(value: string): string {
  return value.length <= 32 ? JSON.stringify(value) : `a ${value.length}-character value (not shown)`;
}

function lookup(spec: VariableSpec, sources: Source[]): { value: string; source: string; name: string } | undefined {
  for (const source of sources) {
    for (const name of [spec.name, ...(spec.aliases ?? [])]) {
      const value = source.values[name];
      // An empty variable means "unset", as shells commonly export empty placeholders.
      if (value !== undefined && value.trim() !== '') return { value, source: source.label, name };
    }
  }
  return undefined;
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
