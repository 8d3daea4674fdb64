// What the user can change from the dashboard or the tray, and how each choice maps onto the one
// configuration table (config/variables.ts). Settings are a source for `loadConfig({ settings })`;
// they never bypass its validation. Secrets are a separate, write-only family: the API accepts
// them, reports whether each is set, and never returns a value.
import { z } from 'zod';
import { LIVE_PROVIDERS, type Config, type VariableName } from '../config/index.ts';
import { parseMcpServers } from '../config/mcp-servers.ts';
import { parsePriceOverrides } from '../usage/pricing.ts';
import { PATIENCE_LEVELS, PATIENCE_MAX_MS, PATIENCE_MIN_MS } from '../contracts/patience.ts';

const SNOWFLAKE = /^\d{17,20}$/;
const snowflake = z.string().trim().regex(SNOWFLAKE, 'must be a Discord id (17–20 digits)');

/** A patience as the API takes it: a level, or the silence window in whole ms (contracts/patience.ts). */
export const PatienceSchema = z.union([
  z.enum(PATIENCE_LEVELS),
  z.number().int().min(PATIENCE_MIN_MS).max(PATIENCE_MAX_MS),
]);
/** The bridge's silence cap of a turn, ms (config TURN_SILENCE_CAP_MS). */
export const TurnSilenceCapSchema = z.number().int().min(1000).max(30000);

const VALUE_FIELDS = {
  model: z.string().trim().min(1).max(120),
  liveProvider: z.enum(LIVE_PROVIDERS),
  voice: z.string().trim().min(1).max(60),
  personaFile: z.string().trim().min(1).max(1024),
  ownerId: snowflake,
  allowedSpeakers: z.array(snowflake).max(50),
  guildId: snowflake,
  voiceChannelId: snowflake,
  textChannelId: snowflake,
  sfxEnabled: z.boolean(),
  pttMode: z.boolean(),
  sidecarPort: z.number().int().min(1024).max(65535),
  notesRetentionDays: z.number().int().min(1).max(36500),
  notesMaxMb: z.number().int().min(1).max(1000000),
  scheduleMaxPending: z.number().int().min(1).max(1000000),
  autoJoin: z.boolean(),
  dailyCapUsd: z.number().min(0.01).max(100000),
  dailyCapWarnPercent: z.number().int().min(1).max(99),
  parkAfterS: z.number().min(0).max(86400),
  patience: PatienceSchema,
  turnSilenceCapMs: TurnSilenceCapSchema,
  sileroVad: z.boolean(),
  usagePrices: z
    .string()
    .trim()
    .max(4000)
    .superRefine((v, ctx) => {
      const parsed = parsePriceOverrides(v);
      if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
    }),
};

/** Non-secret settings, all optional: an absent key means "use the environment or the default". */
export const SettingsValuesSchema = z.object(VALUE_FIELDS).partial().strict();
export type SettingsValues = z.infer<typeof SettingsValuesSchema>;
export type SettingKey = keyof SettingsValues;

export const SECRET_KEYS = ['discordBotToken', 'geminiApiKey', 'openaiApiKey', 'webhookUrl', 'mcpServers'] as const;
export type SecretKey = (typeof SECRET_KEYS)[number];

/**
 * What is wrong with a pasted bot token, in words a person can act on (never the token itself):
 * an application or user id pasted instead, "Bot " in front, a line break, a piece of it.
 */
export function botTokenProblem(token: string): string {
  if (/\s/.test(token))
    return /^bot\s/i.test(token)
      ? 'Paste the token alone, without “Bot ” in front.'
      : 'The token has a space or line break inside: paste it as one piece.';
  if (/^\d+$/.test(token))
    return `That is a ${token.length}-digit number (an application or user id), not the bot token: copy the token from Bot → Reset Token.`;
  if (token.length < 20)
    return `That is ${token.length} characters; a bot token is about 70 (three parts joined by dots): copy it again from Bot → Reset Token.`;
  return `That is ${token.length} characters, longer than any bot token: paste the token alone.`;
}
const botTokenError = { error: (issue: { input?: unknown }) => botTokenProblem(String(issue.input ?? '')) };

/** A secret as the user types it: trimmed, bounded, and a URL where the variable is a URL. */
export const SecretValueSchemas = {
  discordBotToken: z
    .string()
    .trim()
    .min(20, botTokenError)
    .max(200, botTokenError)
    .regex(/^\S+$/, botTokenError)
    .regex(/\D/, botTokenError),
  geminiApiKey: z.string().trim().min(10).max(200).regex(/^\S+$/, 'must not contain spaces'),
  openaiApiKey: z.string().trim().min(10).max(300).regex(/^\S+$/, 'must not contain spaces'),
  webhookUrl: z
    .string()
    .trim()
    .max(2048)
    .refine((v) => /^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v), 'must be an http(s) URL'),
  // A secret because its headers and env may hold credentials; checked by the same parser as the variable.
  mcpServers: z
    .string()
    .trim()
    .max(20_000)
    .superRefine((v, ctx) => {
      const parsed = parseMcpServers(v);
      if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
    }),
} as const satisfies Record<SecretKey, z.ZodType<string>>;

/** Desktop-only preferences (the tray and window), never sent over the sidecar. */
export const DesktopPrefsSchema = z.object({
  notificationsPaused: z.boolean().default(false),
  startAtLogin: z.boolean().default(false),
  /** Key bindings (Electron accelerators); absent = the shell's default (main/app/shortcuts.ts), which clashes with no common shortcut. */
  screenshotShortcut: z.string().trim().min(1).max(60).optional(),
  muteShortcut: z.string().trim().min(1).max(60).optional(),
  /** The push-to-talk hold key. */
  talkKey: z.string().trim().min(1).max(60).optional(),
  shownTrayNotice: z.boolean().default(false),
  /** Generic electron-updater feed (http/https); absent = no auto-update. Checked by the shell, not here, so a typo never resets the other prefs. */
  updateFeedUrl: z.string().trim().max(2000).optional(),
});
export type DesktopPrefs = z.infer<typeof DesktopPrefsSchema>;

/** Which config variable each setting feeds, and how its value is written as a string. */
export const SETTING_VARIABLES = {
  model: 'GEMINI_MODEL',
  liveProvider: 'DISCORD_VOICE_LIVE_PROVIDER',
  voice: 'DISCORD_VOICE_LIVE_VOICE',
  personaFile: 'DISCORD_VOICE_LIVE_PERSONA_FILE',
  ownerId: 'DISCORD_VOICE_LIVE_USER_ID',
  allowedSpeakers: 'DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS',
  guildId: 'DISCORD_VOICE_LIVE_GUILD_ID',
  voiceChannelId: 'DISCORD_VOICE_LIVE_CHANNEL_ID',
  textChannelId: 'DISCORD_VOICE_LIVE_TEXT_CHANNEL_ID',
  sfxEnabled: 'DISCORD_VOICE_LIVE_SFX_ENABLED',
  pttMode: 'DISCORD_VOICE_LIVE_PTT_MODE',
  sidecarPort: 'DISCORD_VOICE_LIVE_PORT',
  notesRetentionDays: 'DISCORD_VOICE_LIVE_NOTES_RETENTION_DAYS',
  notesMaxMb: 'DISCORD_VOICE_LIVE_NOTES_MAX_MB',
  scheduleMaxPending: 'DISCORD_VOICE_LIVE_SCHEDULE_MAX_PENDING',
  autoJoin: 'DISCORD_VOICE_LIVE_AUTO_JOIN',
  dailyCapUsd: 'DISCORD_VOICE_LIVE_DAILY_CAP_USD',
  dailyCapWarnPercent: 'DISCORD_VOICE_LIVE_DAILY_CAP_WARN_PERCENT',
  parkAfterS: 'DISCORD_VOICE_LIVE_PARK_AFTER_S',
  patience: 'DISCORD_VOICE_LIVE_PATIENCE',
  turnSilenceCapMs: 'DISCORD_VOICE_LIVE_TURN_SILENCE_CAP_MS',
  sileroVad: 'DISCORD_VOICE_LIVE_SILERO_VAD',
  usagePrices: 'DISCORD_VOICE_LIVE_USAGE_PRICES',
} as const satisfies Record<SettingKey, VariableName>;

export const SECRET_VARIABLES = {
  discordBotToken: 'DISCORD_BOT_TOKEN',
  geminiApiKey: 'GEMINI_API_KEY',
  openaiApiKey: 'OPENAI_API_KEY',
  webhookUrl: 'DISCORD_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY',
  mcpServers: 'DISCORD_VOICE_LIVE_MCP_SERVERS',
} as const satisfies Record<SecretKey, VariableName>;

/**
 * A change request: `null` clears a value (back to environment/default); an absent key is left
 * alone. Secrets are write-only: a string stores it, `null` deletes it.
 */
export const SettingsPatchSchema = z
  .object({
    values: z.object(nullableFields(VALUE_FIELDS)).strict(),
    secrets: z
      .object({
        discordBotToken: SecretValueSchemas.discordBotToken.nullable(),
        geminiApiKey: SecretValueSchemas.geminiApiKey.nullable(),
        openaiApiKey: SecretValueSchemas.openaiApiKey.nullable(),
        webhookUrl: SecretValueSchemas.webhookUrl.nullable(),
        mcpServers: SecretValueSchemas.mcpServers.nullable(),
      })
      .partial()
      .strict(),
  })
  .partial()
  .strict();
export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;

function nullableFields<T extends Record<string, z.ZodType>>(
  fields: T,
): { [K in keyof T]: z.ZodOptional<z.ZodNullable<T[K]>> } {
  return Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, s.nullable().optional()])) as {
    [K in keyof T]: z.ZodOptional<z.ZodNullable<T[K]>>;
  };
}

/** Settings as config-loader input: canonical variable name → string, the way env would carry it. */
export function settingsToConfigValues(
  values: SettingsValues,
  secrets: Partial<Record<SecretKey, string>> = {},
): Partial<Record<VariableName, string>> {
  const out: Partial<Record<VariableName, string>> = {};
  for (const key of Object.keys(SETTING_VARIABLES) as SettingKey[]) {
    const value = values[key];
    if (value === undefined) continue;
    out[SETTING_VARIABLES[key]] = Array.isArray(value) ? value.join(',') : String(value);
  }
  for (const key of SECRET_KEYS) {
    const value = secrets[key];
    if (value !== undefined) out[SECRET_VARIABLES[key]] = value;
  }
  return out;
}

/**
 * Read back whatever a settings file holds, keeping each valid key and naming each bad one:
 * a hand-edited or older file must not stop the app from starting.
 */
export function parseStoredValues(raw: unknown): { values: SettingsValues; rejected: string[] } {
  const values: Record<string, unknown> = {};
  const rejected: string[] = [];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return { values: {}, rejected: raw === undefined ? [] : ['(whole file)'] };
  for (const [key, value] of Object.entries(raw)) {
    const schema = (VALUE_FIELDS as Record<string, z.ZodType | undefined>)[key];
    const parsed = schema?.safeParse(value);
    if (parsed?.success && parsed.data !== undefined) values[key] = parsed.data;
    else rejected.push(key);
  }
  return { values: values as SettingsValues, rejected };
}

/** JSON Schema for the stored values, so electron-store/conf refuse a bad write at the file layer too. */
export function settingsValuesJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(SettingsValuesSchema, { io: 'input' }) as { properties?: Record<string, unknown> };
  return schema.properties ?? {};
}

/** The running configuration seen through the settings lens (what a blank field currently means). */
export function configToSettingsValues(config: Config): SettingsValues {
  const values: SettingsValues = {
    model: config.gemini.model,
    liveProvider: config.liveProvider,
    voice: config.gemini.voice,
    personaFile: config.gemini.personaFile,
    ownerId: config.discord.ownerId,
    allowedSpeakers: config.discord.allowedSpeakers,
    guildId: config.discord.guildId,
    voiceChannelId: config.discord.voiceChannelId,
    textChannelId: config.discord.textChannelId,
    sfxEnabled: config.notify.sfxEnabled,
    pttMode: config.audio.pttMode,
    sidecarPort: config.sidecar.port,
    notesRetentionDays: config.notes.retentionDays,
    notesMaxMb: config.notes.maxMb,
    scheduleMaxPending: config.notify.scheduleMaxPending,
    autoJoin: config.discord.autoJoin,
    dailyCapUsd: config.usage.dailyCapUsd,
    dailyCapWarnPercent: config.usage.capWarnPercent,
    parkAfterS: config.usage.parkAfterS,
    patience: config.audio.patience,
    turnSilenceCapMs: config.audio.turnSilenceCapMs,
    sileroVad: config.audio.sileroVad,
  };
  for (const key of Object.keys(values) as SettingKey[]) if (values[key] === undefined) delete values[key];
  return values;
}
