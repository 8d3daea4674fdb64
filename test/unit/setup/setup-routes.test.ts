// The setup routes over a real loopback socket and the real security layer, against the fake
// Discord REST and the fake Gemini Live (each as strict as the service): every check's verdict, bad
// input as 4xx with a code, secrets never in an answer, and POST /restart.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../main/core/config/index.ts';
import { createLogger, silentLogger } from '../../../main/core/log/logger.ts';
import { createConfSettingsStore } from '../../../main/core/settings/conf-store.ts';
import {
  channelPermissions,
  checkDiscord,
  directoryComplete,
  INVITE_PERMISSIONS,
  PERMISSION_BITS,
} from '../../../main/core/setup/discord-check.ts';
import { checkModel } from '../../../main/core/setup/model-check.ts';
import { privateFileVault } from '../../../main/core/setup/private-file-vault.ts';
import { registerSetupRoutes, secretReport } from '../../../main/core/sidecar/routes/setup.ts';
import { createSidecar, type Sidecar } from '../../../main/core/sidecar/server.ts';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { KNOWN_LIVE_MODELS, startFakeGemini, type FakeGemini } from '../../../main/fakes/gemini/index.ts';

const TOKEN = 'test-token-' + 'b'.repeat(32);
const GEMINI_KEY = 'fake-setup-key-' + 'c'.repeat(16);
let dir: string;
let discord: FakeDiscord;
let gemini: FakeGemini;
let sidecar: Sidecar;
let restarts = 0;
/** Every log line the sidecar and the setup routes wrote (debug and up): no secret may be in it. */
let logged = '';
const captured = createLogger({ level: 'debug', destination: { write: (line: string) => void (logged += line) } });

async function post(
  route: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
  const res = await fetch(`${sidecar.url}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as Record<string, unknown>, text };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lvb-setup-routes-'));
  discord = await startFakeDiscord();
  gemini = await startFakeGemini({ validKeys: [GEMINI_KEY] });
  const env = {
    HERMES_HOME: dir,
    DISCORD_API_BASE_URL: discord.apiBaseUrl,
    GEMINI_LIVE_BASE_URL: gemini.url,
    GEMINI_MODEL: KNOWN_LIVE_MODELS[0],
  };
  const config = loadConfig({ env });
  const store = createConfSettingsStore({ dir, env, vault: privateFileVault() });
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger: captured,
    routes: [
      (app) =>
        registerSetupRoutes(app, {
          store,
          config,
          missing: ['DISCORD_BOT_TOKEN', 'DISCORD_VOICE_LIVE_USER_ID', 'GEMINI_API_KEY'],
          logger: captured,
          restart: () => restarts++,
        }),
    ],
  });
  await sidecar.listen();
});

afterAll(async () => {
  await sidecar?.close();
  await gemini?.close();
  await discord?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('POST /setup/test/discord', () => {
  it('a good token and owner: token, shared server and permissions all pass; names to pick from', async () => {
    const { status, json, text } = await post('/setup/test/discord', {
      token: discord.botToken,
      ownerId: discord.owner.id,
    });
    expect(status).toBe(200);
    expect(json).toMatchObject({
      ok: true,
      bot: { id: discord.bot.id },
      guild: { id: discord.guildId },
      channel: { id: discord.voiceChannelId },
    });
    expect((json.checks as { ok: boolean }[]).map((c) => c.ok)).toEqual([true, true, true]);
    expect(json.directory).toEqual([
      expect.objectContaining({
        id: discord.guildId,
        name: 'Fake Guild',
        members: expect.arrayContaining([{ id: discord.owner.id, name: 'owner' }]),
        voiceChannels: expect.arrayContaining([{ id: discord.voiceChannelId, name: 'General Voice' }]),
      }),
    ]);
    expect(text).not.toContain(discord.botToken);
  });

  it('a wrong token: Discord answers 401 and the check says the token was rejected', async () => {
    const { status, json, text } = await post('/setup/test/discord', { token: `${discord.botToken}x` });
    expect(status).toBe(200);
    expect(json).toMatchObject({ ok: false, code: 'token_rejected', checks: [{ step: 'token', ok: false }] });
    expect(text).not.toContain(discord.botToken);
    // The fake answered as Discord does.
    const raw = await fetch(`${discord.apiBaseUrl}/v10/users/@me`, { headers: { authorization: 'Bot wrong' } });
    expect(raw.status).toBe(401);
    expect(await raw.json()).toEqual({ message: '401: Unauthorized', code: 0 });
  });

  it('bot in no server: not_in_server with an invite that asks for exactly Connect, Speak and Send Messages', async () => {
    discord.setupScenario('bot-not-in-server');
    try {
      const { json } = await post('/setup/test/discord', { token: discord.botToken, ownerId: discord.owner.id });
      expect(json).toMatchObject({ ok: false, code: 'not_in_server' });
      expect(json.invite).toBe(
        `https://discord.com/oauth2/authorize?client_id=${discord.bot.id}&scope=bot&permissions=3147776`,
      );
      // A guild the bot is not in: 403 Missing Access, as on Discord.
      const raw = await fetch(`${discord.apiBaseUrl}/v10/guilds/${discord.guildId}`, {
        headers: { authorization: `Bot ${discord.botToken}` },
      });
      expect(raw.status).toBe(403);
      expect(await raw.json()).toEqual({ message: 'Missing Access', code: 50001 });
    } finally {
      discord.setupScenario('ready');
    }
  });

  it('a channel overwrite denying Speak: missing_permissions names it', async () => {
    discord.setupScenario('missing-permission');
    try {
      const { json } = await post('/setup/test/discord', { token: discord.botToken, ownerId: discord.owner.id });
      expect(json).toMatchObject({
        ok: false,
        code: 'missing_permissions',
        missingPermissions: ['Speak'],
        channel: { name: 'General Voice' },
      });
    } finally {
      discord.setupScenario('ready');
    }
  });

  it('an owner in none of the bot servers: not_in_server', async () => {
    const { json } = await post('/setup/test/discord', { token: discord.botToken, ownerId: '123456789012345678' });
    expect(json).toMatchObject({ ok: false, code: 'not_in_server' });
  });

  it('a rate limit after the token was accepted fails that step in plain words, not as a server error', async () => {
    const limited: typeof fetch = (url, init) =>
      String(url).includes('/users/@me/guilds')
        ? Promise.resolve(
            Response.json({ message: 'You are being rate limited.', retry_after: 1.5, global: false }, { status: 429 }),
          )
        : fetch(url, init);
    const result = await checkDiscord({
      token: discord.botToken,
      ownerId: discord.owner.id,
      apiBaseUrl: discord.apiBaseUrl,
      fetch: limited,
    });
    expect(result).toMatchObject({
      ok: false,
      code: 'discord_error',
      checks: [
        { step: 'token', ok: true },
        { step: 'server', ok: false, message: 'Discord asked to slow down; test again in a few seconds.' },
      ],
    });
    // GET /setup/directory's `ok`: an empty directory from a refused listing must not mark every id "not among what the bot can see".
    expect(directoryComplete(result)).toBe(false);
    expect(
      directoryComplete(
        await checkDiscord({ token: discord.botToken, ownerId: '123456789012345678', apiBaseUrl: discord.apiBaseUrl }),
      ),
    ).toBe(true);
  });

  it('bad input is a 400 with a code and the field in plain words', async () => {
    // Each says what is wrong with the one pasted, never "paste the whole token" for a whole one.
    const tokenProblem = async (token: string) =>
      ((await post('/setup/test/discord', { token })).json.error as { fields: { token: string } }).fields.token;
    expect(await post('/setup/test/discord', { token: 'short' })).toMatchObject({
      status: 400,
      json: { error: { code: 'invalid_request' } },
    });
    expect(await tokenProblem('short')).toBe(
      'That is 5 characters; a bot token is about 70 (three parts joined by dots): copy it again from Bot → Reset Token.',
    );
    expect(await tokenProblem('1234567890123456789012')).toBe(
      'That is a 22-digit number (an application or user id), not the bot token: copy the token from Bot → Reset Token.',
    );
    expect(await tokenProblem(`Bot ${discord.botToken}`)).toBe('Paste the token alone, without “Bot ” in front.');
    expect(await tokenProblem(`${discord.botToken.slice(0, 30)}\n${discord.botToken.slice(30)}`)).toBe(
      'The token has a space or line break inside: paste it as one piece.',
    );
    expect(await tokenProblem('x'.repeat(201))).toBe(
      'That is 201 characters, longer than any bot token: paste the token alone.',
    );
    expect(await post('/setup/test/discord', { token: discord.botToken, ownerId: 'me' })).toMatchObject({
      status: 400,
      json: { error: { code: 'invalid_request', fields: { ownerId: expect.stringContaining('17–20 digits') } } },
    });
    expect(await post('/setup/test/discord', { colour: 'red' })).toMatchObject({
      status: 400,
      json: { error: { code: 'invalid_request' } },
    });
    expect(await post('/setup/test/discord', [1, 2])).toMatchObject({
      status: 400,
      json: { error: { code: 'invalid_request' } },
    });
    // No token typed and none saved or in the environment.
    expect(await post('/setup/test/discord', {})).toMatchObject({
      status: 400,
      json: { error: { code: 'token_missing' } },
    });
  });
});

describe('POST /setup/test/gemini', () => {
  it('a wrong key: the fake closes 1007 as Gemini does, and the answer says the key was rejected, without the key', async () => {
    const { status, json, text } = await post('/setup/test/gemini', { key: 'wrong-key-0123456789' });
    expect(status).toBe(200);
    expect(json).toMatchObject({ ok: false, code: 'key_rejected', provider: 'gemini' });
    expect(text).not.toContain('wrong-key-0123456789');
  });

  it('a good key: a real setup handshake, naming the model that answered', async () => {
    const before = gemini.established.length;
    const { json } = await post('/setup/test/gemini', { key: GEMINI_KEY });
    expect(json).toMatchObject({
      ok: true,
      provider: 'gemini',
      model: KNOWN_LIVE_MODELS[0],
      fallback: false,
      message: `Gemini answered with ${KNOWN_LIVE_MODELS[0]}.`,
    });
    expect(gemini.established.length).toBe(before + 1);
  });

  it('a configured model the service refuses: the fallback that answered is named; none left is model_rejected', async () => {
    const env = { HERMES_HOME: dir, GEMINI_LIVE_BASE_URL: gemini.url, GEMINI_MODEL: 'gemini-no-such-live-model' };
    const withFallback = loadConfig({ env: { ...env, GEMINI_LIVE_MODEL_FALLBACKS: KNOWN_LIVE_MODELS[0] } });
    expect(
      await checkModel({ provider: 'gemini', apiKey: GEMINI_KEY, config: withFallback, logger: silentLogger() }),
    ).toMatchObject({
      ok: true,
      model: KNOWN_LIVE_MODELS[0],
      fallback: true,
      message: `Gemini answered with the fallback model ${KNOWN_LIVE_MODELS[0]} (gemini-no-such-live-model was refused).`,
    });
    expect(
      await checkModel({
        provider: 'gemini',
        apiKey: GEMINI_KEY,
        config: loadConfig({ env: { ...env, GEMINI_LIVE_MODEL_FALLBACKS: 'gemini-also-missing' } }),
        logger: silentLogger(),
      }),
    ).toMatchObject({ ok: false, code: 'model_rejected' });
  });

  it('bad input: 400 with a code', async () => {
    expect(await post('/setup/test/gemini', { key: 'has spaces in it' })).toMatchObject({
      status: 400,
      json: { error: { code: 'invalid_request', fields: { key: expect.any(String) } } },
    });
    expect(await post('/setup/test/model', { provider: 'nope' })).toMatchObject({
      status: 400,
      json: { error: { code: 'invalid_request', fields: { provider: expect.any(String) } } },
    });
    expect(await post('/setup/test/gemini', {})).toMatchObject({
      status: 400,
      json: { error: { code: 'key_missing' } },
    });
  });
});

describe('GET /setup/state and POST /restart', () => {
  it('says what is missing in words and never returns a secret', async () => {
    const res = await fetch(`${sidecar.url}/setup/state`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      configured: false,
      canStoreSecrets: true,
      canRestart: true,
      secrets: { discordBotToken: 'unset' },
    });
    expect(body.missing).toEqual([
      { variable: 'DISCORD_BOT_TOKEN', words: 'the Discord bot token' },
      { variable: 'DISCORD_VOICE_LIVE_USER_ID', words: 'the owner (your Discord account)' },
      { variable: 'GEMINI_API_KEY', words: 'the Gemini API key' },
    ]);
  });

  it('says where a secret not saved here really comes from: the .env file it was read from, or the variable in the environment', () => {
    const envFile = path.join(dir, '.env');
    writeFileSync(envFile, `DISCORD_BOT_TOKEN=${'f'.repeat(40)}\n`);
    const fromFile = loadConfig({ env: { HERMES_HOME: dir }, envFile });
    // The store sees only the process environment: it says "unset" for a token that is in .env.
    expect(secretReport({ discordBotToken: 'unset', geminiApiKey: 'unset', openaiApiKey: 'unset' }, fromFile)).toEqual({
      secrets: { discordBotToken: 'environment', geminiApiKey: 'unset', openaiApiKey: 'unset' },
      secretSources: { discordBotToken: { kind: 'file', file: envFile, variable: 'DISCORD_BOT_TOKEN' } },
    });
    const fromEnv = loadConfig({
      env: { HERMES_HOME: dir, GEMINI_API_KEY: GEMINI_KEY },
      envFile: path.join(dir, 'absent.env'),
    });
    expect(
      secretReport({ discordBotToken: 'stored', geminiApiKey: 'environment', openaiApiKey: 'unset' }, fromEnv),
    ).toEqual({
      secrets: { discordBotToken: 'stored', geminiApiKey: 'environment', openaiApiKey: 'unset' },
      secretSources: { geminiApiKey: { kind: 'environment', variable: 'GEMINI_API_KEY' } },
    });
  });

  it('GET /setup/directory needs a saved token (409 token_missing), then names what the bot sees', async () => {
    const get = () => fetch(`${sidecar.url}/setup/directory`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const missing = await get();
    expect(missing.status).toBe(409);
    expect(await missing.json()).toMatchObject({ error: { code: 'token_missing' } });
  });

  it('POST /restart answers, then restarts', async () => {
    const before = restarts;
    expect(await post('/restart', {})).toMatchObject({ status: 200, json: { restarting: true } });
    await expect.poll(() => restarts).toBe(before + 1);
  });
});

describe('logs', () => {
  it('hold no token or key typed into a test, good or bad', () => {
    expect(logged.length).toBeGreaterThan(0);
    for (const secret of [discord.botToken, GEMINI_KEY, 'wrong-key-0123456789']) expect(logged).not.toContain(secret);
  });
});

describe('channelPermissions (Discord permission arithmetic)', () => {
  const guildId = '100000000000000001';
  const role = '100000000000000002';
  const bot = '100000000000000003';
  const everyone = {
    id: guildId,
    name: '@everyone',
    permissions: String(PERMISSION_BITS.VIEW_CHANNEL | PERMISSION_BITS.CONNECT),
  };
  const speaker = { id: role, name: 'speaker', permissions: String(PERMISSION_BITS.SPEAK) };
  const base = {
    guildId,
    guildOwnerId: '100000000000000009',
    userId: bot,
    roles: [everyone, speaker],
    memberRoleIds: [role],
  };
  const has = (perms: bigint, bit: bigint) => (perms & bit) === bit;

  it('roles add, a role overwrite allow beats the @everyone deny, a member overwrite deny beats both', () => {
    expect(has(channelPermissions({ ...base, overwrites: [] }), PERMISSION_BITS.SPEAK)).toBe(true);
    const everyoneDeny = { id: guildId, type: 0 as const, allow: '0', deny: String(PERMISSION_BITS.CONNECT) };
    expect(has(channelPermissions({ ...base, overwrites: [everyoneDeny] }), PERMISSION_BITS.CONNECT)).toBe(false);
    const roleAllow = { id: role, type: 0 as const, allow: String(PERMISSION_BITS.CONNECT), deny: '0' };
    expect(has(channelPermissions({ ...base, overwrites: [everyoneDeny, roleAllow] }), PERMISSION_BITS.CONNECT)).toBe(
      true,
    );
    const memberDeny = { id: bot, type: 1 as const, allow: '0', deny: String(PERMISSION_BITS.CONNECT) };
    expect(
      has(channelPermissions({ ...base, overwrites: [everyoneDeny, roleAllow, memberDeny] }), PERMISSION_BITS.CONNECT),
    ).toBe(false);
  });

  it('an administrator role or the server owner has everything, overwrites notwithstanding', () => {
    const admin = { id: role, name: 'admin', permissions: String(PERMISSION_BITS.ADMINISTRATOR) };
    const deny = [{ id: bot, type: 1 as const, allow: '0', deny: String(INVITE_PERMISSIONS) }];
    expect(has(channelPermissions({ ...base, roles: [everyone, admin], overwrites: deny }), INVITE_PERMISSIONS)).toBe(
      true,
    );
    expect(has(channelPermissions({ ...base, guildOwnerId: bot, overwrites: deny }), INVITE_PERMISSIONS)).toBe(true);
  });
});
