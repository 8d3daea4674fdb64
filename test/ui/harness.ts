// The world the dashboard UI tests run against: fake Discord + fake Gemini on loopback, and a real
// headless core (same startCore, conf settings store and routes as `npm run headless`) configured
// to use them. A tiny control server on the next port hands tests fresh one-time login URLs and
// what the fake Discord received. Run by Playwright's webServer: `node test/ui/harness.ts`.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { startSimulatedCall } from '../../main/demo/simulated-call.ts';

export const UI_SIDECAR_PORT = Number(process.env.LVB_UI_PORT ?? 18971);
export const UI_CONTROL_PORT = UI_SIDECAR_PORT + 1;
export const FAKE_MODEL_REPLY = 'Hello from the fake model, loud and clear.';

/** The real server-everything package over stdio; its `echo` needs the owner's approval (dashboard prompt test). */
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json');
const MCP_SERVERS = [
  { name: 'everything', command: process.execPath, args: [path.join(path.dirname(everything), 'dist', 'index.js'), 'stdio'], tools: { echo: 'ask' }, default_policy: 'deny' },
];

const call = await startSimulatedCall({
  port: UI_SIDECAR_PORT,
  autoReply: { transcript: FAKE_MODEL_REPLY, inputTranscript: 'hello model' },
  logLevel: 'warn',
  // LVB_UI_UNCONFIGURED=1: no model key, so the core runs unconfigured (the dashboard's "not set up" state).
  env: { DISCORD_VOICE_LIVE_MCP_SERVERS: JSON.stringify(MCP_SERVERS), ...(process.env.LVB_UI_UNCONFIGURED === '1' ? { GEMINI_API_KEY: '' } : {}) },
});
const { core, discord } = call;

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
    case '/guest-joins': {
      // Someone else joins the owner's channel: a listener (not an allowed speaker here), shown by nickname.
      const guest = discord.user('guest');
      guest.nick = 'Gus';
      discord.userJoinVoice(guest.id);
      return send(200, { guest: guest.id });
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
          const [response] = await model.toolCall([{ name: 'mcp_everything_echo', args: { message: 'hello from the model' } }]);
          // As the service does, the model ends its turn once it has the tool's answer.
          model.turnComplete();
          return response;
        })
        .then((response) => send(200, response), (err: unknown) => send(500, { error: String(err) }));
      return;
    case '/model-audio':
      // The fake model's record: 16 kHz samples of user audio it received, over every socket of every call.
      return send(200, { samples: call.gemini.connections.reduce((n, c) => n + c.inputSamples, 0) });
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
  await call.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
