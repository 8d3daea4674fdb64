// First-run setup: the /setup page, what is still missing, a Test for each credential against the
// service (Discord REST, a live-model handshake), and POST /restart so saved settings that need a
// restart take effect from the page. Credentials typed into the page are tested as typed and never
// returned: answers carry states ("stored", "environment", "unset"), never values.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Config, LiveProviderName, VariableName } from '../../config/index.ts';
import { LIVE_PROVIDERS } from '../../config/index.ts';
import { providerKey } from '../../model/registry.ts';
import { GEMINI } from '../../providers/gemini.ts';
import { isProviderName, PROVIDERS } from '../../providers/index.ts';
import { SecretValueSchemas } from '../../settings/schema.ts';
import type { SettingsStore } from '../../settings/store.ts';
import { checkDiscord, directoryComplete, type DiscordCheckResult } from '../../setup/discord-check.ts';
import { checkModel, type ModelCheckResult } from '../../setup/model-check.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';
import { DASHBOARD_CSP, findAppRoot } from './dashboard.ts';
import { boundedFields, listKeys } from '../../input-errors.ts';

export interface SetupDeps {
  store?: SettingsStore;
  config: Config;
  /** Variables a call still needs in the running core. */
  missing: readonly string[];
  logger: Logger;
  /** Restarts the core (headless: in-process; desktop: app.relaunch()); absent when the shell cannot. */
  restart?: () => void;
  appRoot?: string;
  /** For tests: Discord REST calls go through this. */
  fetch?: typeof fetch;
}

/** What each required variable is, in the page's words. */
export const MISSING_WORDS: Partial<Record<VariableName, string>> = {
  DISCORD_BOT_TOKEN: 'the Discord bot token',
  DISCORD_VOICE_LIVE_USER_ID: 'the owner (your Discord account)',
  // Each provider's key, in its service's words.
  ...Object.fromEntries(PROVIDERS.map((p) => [p.keyVariable, `the ${p.service} API key`])),
};

export interface SetupStateResponse {
  configured: boolean;
  /** What the running core lacks: variable and words. */
  missing: { variable: string; words: string }[];
  /** Of those, the ones saved since start (they apply after a restart). */
  savedPendingRestart: string[];
  secrets: { discordBotToken: string; geminiApiKey: string; openaiApiKey: string };
  /**
   * For each secret in state `environment`: where it really comes from — the process environment
   * (under which variable name) or a file (the `.env` it was read from) — so the page says so.
   */
  secretSources: Partial<Record<SetupSecretKey, SecretSource>>;
  canStoreSecrets: boolean;
  secretsNote?: string;
  /** `patience`: the setting in force (issue #52): a level, or ms. */
  values: {
    ownerId?: string;
    guildId?: string;
    voiceChannelId?: string;
    textChannelId?: string;
    liveProvider: LiveProviderName;
    patience: 'quick' | 'natural' | 'patient' | number;
  };
  /** The providers to choose from (the registry's order): the key's label, the secret that stores it (none: environment only) and its state. */
  providers: {
    name: LiveProviderName;
    label: string;
    keyLabel: string;
    keySecret?: SetupSecretKey;
    keyState: string;
  }[];
  canRestart: boolean;
}

export type SetupSecretKey = 'discordBotToken' | 'geminiApiKey' | 'openaiApiKey';
export type SecretSource = { kind: 'environment'; variable: string } | { kind: 'file'; file: string; variable: string };
const SETUP_SECRETS: Record<SetupSecretKey, VariableName> = {
  discordBotToken: 'DISCORD_BOT_TOKEN',
  geminiApiKey: 'GEMINI_API_KEY',
  openaiApiKey: 'OPENAI_API_KEY',
};

/**
 * Each secret's state and, when it is not saved here, where it comes from. The store sees only the
 * process environment; the config knows the `.env` file too (a token there is "environment", not "unset").
 */
export function secretReport(
  stored: Partial<Record<SetupSecretKey, string>> | undefined,
  config: Config,
): Pick<SetupStateResponse, 'secrets' | 'secretSources'> {
  const secrets = {} as SetupStateResponse['secrets'];
  const secretSources: SetupStateResponse['secretSources'] = {};
  const inForce: Record<SetupSecretKey, string | undefined> = {
    discordBotToken: config.discord.botToken,
    geminiApiKey: config.gemini.apiKey,
    openaiApiKey: config.openai.apiKey,
  };
  for (const [key, variable] of Object.entries(SETUP_SECRETS) as [SetupSecretKey, VariableName][]) {
    const saved = stored?.[key];
    const origin = config.origins?.[variable];
    if (saved === 'stored' || saved === 'unreadable') secrets[key] = saved;
    else if (origin || saved === 'environment' || inForce[key]) {
      secrets[key] = 'environment';
      secretSources[key] =
        origin && origin.source !== 'environment'
          ? { kind: 'file', file: origin.source, variable: origin.name }
          : { kind: 'environment', variable: origin?.name ?? variable };
    } else secrets[key] = 'unset';
  }
  return { secrets, secretSources };
}

const snowflake = z
  .string()
  .trim()
  .regex(/^\d{17,20}$/, 'must be a Discord id (17–20 digits)');
const DiscordTestSchema = z
  .object({
    token: SecretValueSchemas.discordBotToken.optional(),
    ownerId: snowflake.optional(),
    guildId: snowflake.optional(),
    voiceChannelId: snowflake.optional(),
  })
  .strict();
const ModelTestSchema = z
  .object({
    key: z.string().trim().min(10).max(300).regex(/^\S+$/).optional(),
    provider: z.enum(LIVE_PROVIDERS).optional(),
  })
  .strict();

const FIELD_WORDS: Record<string, string> = {
  token: 'Paste the bot token as text.',
  key: 'Paste the whole API key (no spaces).',
  ownerId: 'Pick a person from the list, or paste a Discord user id (17–20 digits).',
  guildId: 'Pick a server from the list, or paste a server id (17–20 digits).',
  voiceChannelId: 'Pick a voice channel from the list, or paste a channel id (17–20 digits).',
  provider: 'Choose gemini, openai-realtime or openai-live.',
};

function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    // Unknown keys are one entry however many there are: the body, not each key, is what is wrong,
    // and a body of thousands of keys must not come back as thousands of fields.
    if (issue.code === 'unrecognized_keys')
      fields.body ??= `Unknown field${issue.keys.length === 1 ? '' : 's'}: ${listKeys(issue.keys)}.`;
    else {
      const key = String(issue.path[0] ?? 'body');
      // The token's schema says what is wrong with the one pasted (too short, an id, "Bot " in front).
      const specific = key === 'token' && issue.code !== 'invalid_type' ? issue.message : undefined;
      fields[key] ??= specific ?? FIELD_WORDS[key] ?? 'The request body must be a JSON object.';
    }
  }
  const bounded = boundedFields(fields) ?? {};
  throw new HttpError(400, 'invalid_request', Object.values(bounded).join(' '), {}, bounded);
}

export const registerSetupRoutes: RouteModule<SetupDeps> = (app, deps) => {
  const appRoot = deps.appRoot ?? findAppRoot();
  const saved = async (): Promise<Partial<Record<VariableName, string>>> =>
    deps.store ? await deps.store.configValues() : {};

  app.get('/setup', { config: { public: true } }, async (_request, reply) => {
    const html = readFileSync(path.join(appRoot, 'renderer', 'setup.html'), 'utf8');
    return reply.header('content-security-policy', DASHBOARD_CSP).type('text/html; charset=utf-8').send(html);
  });

  app.get('/setup/state', (): Promise<SetupStateResponse> => setupState(deps, saved));

  app.post('/setup/test/discord', async (request): Promise<DiscordCheckResult> => {
    const body = parseBody(DiscordTestSchema, request.body);
    const stored = await saved();
    const token = body.token ?? stored.DISCORD_BOT_TOKEN ?? deps.config.discord.botToken;
    if (!token)
      throw new HttpError(
        400,
        'token_missing',
        'Paste the Discord bot token first.',
        {},
        { token: 'Paste the Discord bot token first.' },
      );
    return checkDiscord({
      token,
      ownerId: body.ownerId ?? stored.DISCORD_VOICE_LIVE_USER_ID ?? deps.config.discord.ownerId,
      guildId: body.guildId,
      voiceChannelId: body.voiceChannelId,
      apiBaseUrl: deps.config.discord.apiBaseUrl,
      fetch: deps.fetch,
    });
  });

  // Names for the ids the settings form holds (people, servers, channels), from what the bot sees.
  app.get('/setup/directory', async () => {
    const stored = await saved();
    const token = stored.DISCORD_BOT_TOKEN ?? deps.config.discord.botToken;
    if (!token) throw new HttpError(409, 'token_missing', 'No bot token is set yet: open Set up.');
    const result = await checkDiscord({ token, apiBaseUrl: deps.config.discord.apiBaseUrl, fetch: deps.fetch });
    // ok: the directory is complete, so an id missing from it really is out of the bot's sight.
    return { ok: directoryComplete(result), directory: result.directory };
  });

  const modelTest =
    (fixed?: LiveProviderName) =>
    async (request: { body: unknown }): Promise<ModelCheckResult> => {
      const body = parseBody(ModelTestSchema, request.body);
      const stored = await saved();
      const savedProvider = stored.DISCORD_VOICE_LIVE_PROVIDER;
      const provider =
        fixed ??
        body.provider ??
        (savedProvider && isProviderName(savedProvider) ? savedProvider : deps.config.liveProvider);
      const key = body.key ?? providerKey(deps.config, provider, stored);
      if (!key)
        throw new HttpError(400, 'key_missing', 'Paste the API key first.', {}, { key: 'Paste the API key first.' });
      return checkModel({ provider, apiKey: key, config: deps.config, logger: deps.logger });
    };
  // The first setup page's route, kept: it always tests Gemini.
  app.post('/setup/test/gemini', modelTest(GEMINI.name));
  app.post('/setup/test/model', modelTest());

  app.post('/restart', async (_request, reply) => {
    const restart = deps.restart;
    if (!restart)
      throw new HttpError(
        409,
        'restart_unavailable',
        'This shell cannot restart itself; stop Live Voice Bridge and start it again.',
      );
    // After the answer is on its way: the restart closes this very server.
    reply.raw.once('finish', () => setImmediate(restart));
    return { restarting: true };
  });
};

/** What the setup page shows: what is missing, what is saved for the next start, the secrets' states, each provider's key. */
async function setupState(
  deps: SetupDeps,
  saved: () => Promise<Partial<Record<VariableName, string>>>,
): Promise<SetupStateResponse> {
  const view = deps.store ? await deps.store.view() : null;
  const stored = await saved();
  const values = view?.values ?? {};
  const c = deps.config;
  return {
    configured: deps.missing.length === 0,
    missing: deps.missing.map((variable) => ({
      variable,
      words: MISSING_WORDS[variable as VariableName] ?? variable,
    })),
    savedPendingRestart: deps.missing.filter((v) => (stored[v as VariableName] ?? '').trim() !== ''),
    ...secretReport(view?.secrets.state, c),
    canStoreSecrets: view?.secrets.canStore ?? false,
    ...(view && !view.secrets.canStore && view.secrets.reason ? { secretsNote: view.secrets.reason } : {}),
    values: {
      ownerId: values.ownerId ?? c.discord.ownerId,
      guildId: values.guildId ?? c.discord.guildId,
      voiceChannelId: values.voiceChannelId ?? c.discord.voiceChannelId,
      textChannelId: values.textChannelId ?? c.discord.textChannelId,
      liveProvider: values.liveProvider ?? c.liveProvider,
      patience: values.patience ?? c.audio.patience,
    },
    providers: PROVIDERS.map((p) => {
      // A provider's key is one of the secrets this page reports (its words under the field come from `secrets`).
      const keySecret = (Object.keys(SETUP_SECRETS) as SetupSecretKey[]).find(
        (k) => SETUP_SECRETS[k] === p.keyVariable,
      );
      const keyState =
        (keySecret ? view?.secrets.state[keySecret] : undefined) ?? (providerKey(c, p.name) ? 'environment' : 'unset');
      return {
        name: p.name,
        label: p.label,
        keyLabel: `${p.service} API key`,
        ...(keySecret ? { keySecret } : {}),
        keyState,
      };
    }),
    canRestart: deps.restart !== undefined,
  };
}
