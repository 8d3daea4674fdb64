// A real core wired to the fake Discord and the fake Gemini, for tests that run whole calls: the
// env every such test sets, and the sidecar requests they make.
import { startFakeDiscord, type FakeDiscord } from '../../main/fakes/discord/index.ts';
import { startFakeGemini, type FakeGemini, type FakeGeminiOptions } from '../../main/fakes/gemini/index.ts';
import { startTestCore, type TestCore } from './core.ts';
import { rawRequest, type RawResponse } from './http.ts';

export interface CoreOnFakes {
  discord: FakeDiscord;
  gemini: FakeGemini;
  t: TestCore;
  post(path: string, body?: unknown): Promise<RawResponse>;
  get(path: string): Promise<RawResponse>;
  close(): Promise<void>;
}

export async function startCoreOnFakes(options: { gemini?: FakeGeminiOptions; env?: (discord: FakeDiscord) => Record<string, string> } = {}): Promise<CoreOnFakes> {
  const discord = await startFakeDiscord();
  const gemini = await startFakeGemini(options.gemini);
  const t = await startTestCore({
    DISCORD_BOT_TOKEN: discord.botToken,
    DISCORD_VOICE_LIVE_USER_ID: discord.owner.id,
    DISCORD_API_BASE_URL: discord.apiBaseUrl,
    GEMINI_API_KEY: `fake-gemini-key-${process.pid}`,
    GEMINI_LIVE_BASE_URL: gemini.url,
    ...options.env?.(discord),
  });
  return {
    discord,
    gemini,
    t,
    post: (path, body) =>
      rawRequest({ port: t.port, method: 'POST', path, headers: { ...t.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) }),
    get: (path) => rawRequest({ port: t.port, path, headers: t.auth }),
    async close() {
      await t.close();
      await gemini.close();
      await discord.close();
    },
  };
}
