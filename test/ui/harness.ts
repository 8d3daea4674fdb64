// The world the dashboard UI tests run against: fake Discord + fake Gemini on loopback, and a real
// headless core (same startCore, conf settings store and routes as `npm run headless`) configured
// to use them. A tiny control server on the next port hands tests fresh one-time login URLs and
// what the fake Discord received. Run by Playwright's webServer: `node test/ui/harness.ts`.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { startSimulatedCall } from '../../main/demo/simulated-call.ts';
import { SETUP_SCENARIOS, type SetupScenario } from '../../main/fakes/discord/index.ts';
import type { AutoReplyOptions } from '../../main/fakes/gemini/options.ts';

/** generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName of a setup message. */
function voiceOf(setup: unknown): string | null {
  const path = ['generationConfig', 'speechConfig', 'voiceConfig', 'prebuiltVoiceConfig', 'voiceName'];
  let at: unknown = setup;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return typeof at === 'string' ? at : null;
}

export const UI_SIDECAR_PORT = Number(process.env.LVB_UI_PORT ?? 18971);
export const UI_CONTROL_PORT = UI_SIDECAR_PORT + 1;
export const FAKE_MODEL_REPLY = 'Hello from the fake model, loud and clear.';

/** The real server-everything package over stdio; its `echo` needs the owner's approval (dashboard prompt test). */
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json');
const MCP_SERVERS = [
  {
    name: 'everything',
    command: process.execPath,
    args: [path.join(path.dirname(everything), 'dist', 'index.js'), 'stdio'],
    tools: { echo: 'ask' },
    default_policy: 'deny',
  },
];

/** The one Gemini key the fake accepts (so a wrong key is refused as the service would). */
const GEMINI_KEY = `fake-ui-gemini-${randomBytes(8).toString('hex')}`;
// LVB_UI_UNCONFIGURED=1: no model key, so the core runs unconfigured (the dashboard's "not set up" state).
// LVB_UI_FIRST_RUN=1: nothing set at all (no token, owner or key), as on a fresh machine: the /setup flow.
const firstRun = process.env.LVB_UI_FIRST_RUN === '1';
/** The fake model's answers; `/model-replies` changes them at run time (the fake reads this object at each turn). */
const autoReply: AutoReplyOptions = { transcript: FAKE_MODEL_REPLY, inputTranscript: 'hello model' };
// LVB_UI_PARK_AFTER_S: park the quiet call after this many seconds (a parked-call test's own harness).
const parkAfter: Record<string, string> = process.env.LVB_UI_PARK_AFTER_S
  ? { DISCORD_VOICE_LIVE_PARK_AFTER_S: process.env.LVB_UI_PARK_AFTER_S }
  : {};
const call = await startSimulatedCall({
  port: UI_SIDECAR_PORT,
  autoReply,
  logLevel: 'warn',
  geminiValidKeys: [GEMINI_KEY],
  env: {
    DISCORD_VOICE_LIVE_MCP_SERVERS: JSON.stringify(MCP_SERVERS),
    ...parkAfter,
    GEMINI_API_KEY: process.env.LVB_UI_UNCONFIGURED === '1' || firstRun ? '' : GEMINI_KEY,
    ...(firstRun
      ? { DISCORD_BOT_TOKEN: '', DISCORD_VOICE_LIVE_USER_ID: '', DISCORD_VOICE_LIVE_TEXT_CHANNEL_ID: '' }
      : {}),
  },
});
const { discord } = call;

const control = createServer((req, res) => {
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const core = call.core;
  const url = new URL(req.url ?? '/', 'http://control');
  if (url.pathname === '/model-replies') {
    // How the fake model answers from now on: ?tone_ms=4000 (how long each reply plays), ?speak_text=0 (it
    // never says an announced text) / 1; no parameters: back to the defaults.
    const tone = url.searchParams.get('tone_ms');
    const speak = url.searchParams.get('speak_text');
    if (tone === null) delete autoReply.toneMs;
    else autoReply.toneMs = Number(tone);
    autoReply.speakInjectedText = speak !== '0';
    return send(200, { toneMs: autoReply.toneMs ?? null, speakInjectedText: autoReply.speakInjectedText });
  }
  if (url.pathname === '/setup-scenario') {
    // What the setup page's Discord test meets (the fake's REST answers), e.g. ?name=bot-not-in-server.
    const name = url.searchParams.get('name') as SetupScenario;
    if (!SETUP_SCENARIOS.includes(name))
      return send(400, { error: `scenario must be one of ${SETUP_SCENARIOS.join(', ')}` });
    discord.setupScenario(name);
    return send(200, { scenario: name });
  }
  switch (req.url) {
    case '/credentials':
      // What a person would copy from the Developer Portal and AI Studio (tests type them into /setup).
      return send(200, {
        botToken: discord.botToken,
        geminiKey: GEMINI_KEY,
        owner: { id: discord.owner.id, name: discord.owner.username },
        voiceChannel: discord.world.guild.voiceChannels[0]!.name,
      });
    case '/model-setups':
      // The voice and system instruction each live-model session asked for in its setup message (live settings test).
      return send(200, {
        voices: call.gemini.connections.map((c) => voiceOf(c.setup)),
        instructions: call.gemini.connections.map((c) => JSON.stringify(c.setup?.systemInstruction ?? null)),
      });
    case '/ready':
      return send(200, { sidecarUrl: core.sidecarUrl });
    case '/login-url':
      return send(200, { url: core.loginUrl() });
    case '/token':
      return send(200, { token: core.token });
    case '/guest-joins': {
      // Someone else joins the owner's channel: a listener (not an allowed speaker here), shown by nickname.
      const guest = discord.user('guest');
      guest.nick = 'Gus';
      discord.userJoinVoice(guest.id);
      return send(200, { guest: guest.id });
    }
    case '/guest-opts-out': {
      // The guest types /optout in the voice channel's chat (room/consent.ts).
      discord.slash(discord.user('guest').id, 'optout');
      return send(200, { guest: discord.user('guest').id });
    }
    case '/guest-opts-in': {
      // ... and /optin again (the choice is kept across calls, so a spec that opts out opts back in).
      discord.slash(discord.user('guest').id, 'optin');
      return send(200, { guest: discord.user('guest').id });
    }
    case '/seed-patience': {
      // What the patience learner would have stored after the owner was cut off twice mid-thought,
      // and Mia, who is not in the room, once (docs/room.md "Patience per speaker").
      const db = new Database(path.join(call.config.paths.voiceUsers, 'live-voice-bridge.sqlite'));
      const put = db.prepare(
        'INSERT OR REPLACE INTO speaker_patience (speaker_id, name, window_ms, cutoffs, updated_at) VALUES (?, ?, ?, ?, ?)',
      );
      put.run(discord.owner.id, null, 1400, 2, Date.now());
      put.run('333333333333333333', 'Mia', 1100, 1, Date.now() - 1000);
      db.close();
      return send(200, { owner: discord.owner.id });
    }
    case '/speak':
      // The owner talks for 3 s (answered at once, so a test can watch it happen); the fake
      // model then answers with FAKE_MODEL_REPLY.
      call.ownerSpeaks(3).catch((err: unknown) => process.stderr.write(`speak failed: ${String(err)}\n`));
      return send(200, { speaking: discord.owner.id });
    case '/model-calls-echo':
      // The fake model calls the MCP `echo` tool (policy ask) in the live call; answers with what it got back.
      call.gemini
        .connection(call.gemini.established.length - 1)
        .then(async (model) => {
          const [response] = await model.toolCall([
            { name: 'mcp_everything_echo', args: { message: 'hello from the model' } },
          ]);
          // As the service does, the model ends its turn once it has the tool's answer.
          model.turnComplete();
          return response;
        })
        .then(
          (response) => send(200, response),
          (err: unknown) => send(500, { error: String(err) }),
        );
      return;
    case '/model-audio':
      // The fake model's record: 16 kHz samples of user audio it received, over every socket of every call.
      return send(200, { samples: call.gemini.connections.reduce((n, c) => n + c.inputSamples, 0) });
    case '/messages':
      return send(200, {
        messages: discord.messages.map((m) => ({
          channelId: m.channelId,
          dmRecipientId: m.dmRecipientId,
          content: m.content,
        })),
        ownerId: discord.owner.id,
      });
    default:
      return send(404, { error: 'unknown' });
  }
});
await new Promise<void>((resolve) => control.listen(UI_CONTROL_PORT, '127.0.0.1', resolve));
process.stderr.write(`ui harness: sidecar ${call.core.sidecarUrl}, control http://127.0.0.1:${UI_CONTROL_PORT}\n`);

let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  control.close();
  await call.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
