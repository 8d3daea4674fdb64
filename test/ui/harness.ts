// The world the dashboard UI tests run against: fake Discord + fake Gemini on loopback, and a real
// headless core (same startCore, conf settings store and routes as `npm run headless`) configured
// to use them. A tiny control server on the next port hands tests fresh one-time login URLs and
// what the fake Discord received. Run by Playwright's webServer: `node test/ui/harness.ts`.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../main/core/config/index.ts';
import { startCore } from '../../main/core/core.ts';
import { createLogger } from '../../main/core/log/logger.ts';
import { createConfSettingsStore } from '../../main/core/settings/conf-store.ts';
import { startFakeDiscord } from '../fakes/discord/index.ts';
import { KNOWN_LIVE_MODELS, startFakeGemini } from '../fakes/gemini/index.ts';

export const UI_SIDECAR_PORT = Number(process.env.LVB_UI_PORT ?? 18971);
export const UI_CONTROL_PORT = UI_SIDECAR_PORT + 1;
export const FAKE_MODEL_REPLY = 'Hello from the fake model, loud and clear.';

const home = mkdtempSync(path.join(tmpdir(), 'lvb-ui-'));
const discord = await startFakeDiscord({ ownerInVoice: true });
const gemini = await startFakeGemini({ autoReply: { transcript: FAKE_MODEL_REPLY, inputTranscript: 'hello model' } });
const env: NodeJS.ProcessEnv = {
  HERMES_HOME: home,
  DISCORD_BOT_TOKEN: discord.botToken,
  DISCORD_API_BASE_URL: discord.apiBaseUrl,
  DISCORD_VOICE_LIVE_USER_ID: discord.owner.id,
  DISCORD_VOICE_LIVE_TEXT_CHANNEL_ID: discord.textChannelId,
  GEMINI_API_KEY: ['fake', 'ui', 'key', process.pid.toString(36)].join('-'),
  GEMINI_LIVE_BASE_URL: gemini.url,
  GEMINI_MODEL: KNOWN_LIVE_MODELS[0],
  DISCORD_VOICE_LIVE_PORT: String(UI_SIDECAR_PORT),
  DISCORD_VOICE_LIVE_LOG_LEVEL: 'warn',
};
const settingsStore = createConfSettingsStore({ dir: path.join(home, 'voice-users'), env });
const config = loadConfig({ env, settings: await settingsStore.configValues() });
const logger = createLogger({ level: config.logLevel, secrets: config.secretValues });
const core = await startCore({ config, logger, settingsStore });

/** 48 kHz stereo speech-like tone (a vowel-ish sum of harmonics with a syllable envelope). */
function spokenTone(seconds: number): Int16Array {
  const frames = Math.round(48_000 * seconds);
  const pcm = new Int16Array(frames * 2);
  for (let i = 0; i < frames; i++) {
    const t = i / 48_000;
    const envelope = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * t);
    const v = envelope * (Math.sin(2 * Math.PI * 180 * t) + 0.5 * Math.sin(2 * Math.PI * 360 * t) + 0.25 * Math.sin(2 * Math.PI * 720 * t));
    pcm[2 * i] = pcm[2 * i + 1] = Math.round(v * 6000);
  }
  return pcm;
}

const control = createServer((req, res) => {
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  switch (req.url) {
    case '/ready':
      return send(200, { sidecarUrl: core.sidecarUrl });
    case '/login-url':
      return send(200, { url: core.loginUrl() });
    case '/token':
      return send(200, { token: core.token });
    case '/speak':
      // The owner talks for 3 s (answered at once, so a test can watch it happen); the fake
      // model then answers with FAKE_MODEL_REPLY.
      discord.speak(discord.owner.id, spokenTone(3)).catch((err: unknown) => process.stderr.write(`speak failed: ${String(err)}\n`));
      return send(200, { speaking: discord.owner.id });
    case '/messages':
      return send(200, { messages: discord.messages.map((m) => ({ channelId: m.channelId, dmRecipientId: m.dmRecipientId, content: m.content })), ownerId: discord.owner.id });
    default:
      return send(404, { error: 'unknown' });
  }
});
await new Promise<void>((resolve) => control.listen(UI_CONTROL_PORT, '127.0.0.1', resolve));
process.stderr.write(`ui harness: sidecar ${core.sidecarUrl}, control http://127.0.0.1:${UI_CONTROL_PORT}\n`);

let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  control.close();
  await core.stop().catch(() => undefined);
  await gemini.close().catch(() => undefined);
  await discord.close().catch(() => undefined);
  rmSync(home, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
