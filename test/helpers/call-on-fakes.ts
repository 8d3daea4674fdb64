// A real core wired to the fake Discord and the fake Gemini, for tests that run whole calls: the
// env every such test sets, and the sidecar requests they make.
import { startFakeDiscord, type FakeDiscord } from '../../main/fakes/discord/index.ts';
import { startFakeGemini, type FakeGemini, type FakeGeminiOptions } from '../../main/fakes/gemini/index.ts';
import {
  startFakeOpenAILive,
  startFakeOpenAIRealtime,
  type FakeLiveOptions,
  type FakeOpenAILive,
  type FakeOpenAIRealtime,
  type FakeRealtimeOptions,
} from '../../main/fakes/openai/index.ts';
import type { CoreOptions } from '../../main/core/core.ts';
import { startTestCore, type TestCore } from './core.ts';
import { rawRequest, type RawResponse } from './http.ts';

export interface CoreOnFakes {
  discord: FakeDiscord;
  gemini: FakeGemini;
  /** Both OpenAI fakes run too (they cost nothing until a call picks their provider). */
  openai: FakeOpenAIRealtime;
  openaiLive: FakeOpenAILive;
  t: TestCore;
  post(path: string, body?: unknown): Promise<RawResponse>;
  get(path: string): Promise<RawResponse>;
  close(): Promise<void>;
}

export async function startCoreOnFakes(
  options: {
    gemini?: FakeGeminiOptions;
    openai?: FakeRealtimeOptions;
    openaiLive?: FakeLiveOptions;
    env?: (discord: FakeDiscord) => Record<string, string>;
    core?: Partial<CoreOptions>;
  } = {},
): Promise<CoreOnFakes> {
  const discord = await startFakeDiscord();
  const gemini = await startFakeGemini(options.gemini);
  const openai = await startFakeOpenAIRealtime(options.openai ?? { autoReply: false });
  const openaiLive = await startFakeOpenAILive({ autoReply: false, ...options.openaiLive });
  const t = await startTestCore(
    {
      DISCORD_BOT_TOKEN: discord.botToken,
      DISCORD_VOICE_LIVE_USER_ID: discord.owner.id,
      DISCORD_API_BASE_URL: discord.apiBaseUrl,
      GEMINI_API_KEY: `fake-gemini-key-${process.pid}`,
      GEMINI_LIVE_BASE_URL: gemini.url,
      OPENAI_API_KEY: ['fake', 'openai', 'key', process.pid.toString(36)].join('-'),
      OPENAI_REALTIME_BASE_URL: openai.url,
      OPENAI_LIVE_BASE_URL: openaiLive.url,
      ...options.env?.(discord),
    },
    options.core,
  );
  return {
    discord,
    gemini,
    openai,
    openaiLive,
    t,
    post: (path, body) =>
      rawRequest({
        port: t.port,
        method: 'POST',
        path,
        headers: { ...t.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    get: (path) => rawRequest({ port: t.port, path, headers: t.auth }),
    async close() {
      await t.close();
      await gemini.close();
      await openai.close();
      await openaiLive.close();
      await discord.close();
    },
  };
}
