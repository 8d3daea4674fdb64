// The owner's voice as the approval screen, end to end on the fakes: an agent's yes/no question is
// put to the owner in the call (the text reaches the fake Gemini), a guest's spoken "yes" is not
// taken, the owner's spoken "yes" (the fake model's input transcript while the owner was the one
// speaking) is, and the agent gets it. Two agents: one on our MCP server calling `ask_owner` (v2 SDK
// client, 2026-07-28), and an MCP server the model uses asking through `input_required`.
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATE_TRANSCRIPT_MS } from '../../../main/core/bridge/room.ts';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/connection.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { chirpStereo, waitFor } from '../bridge/signals.ts';

let call: CoreOnFakes;
let model: FakeGeminiConnection;
let guestId: string;
const speech = chirpStereo(0.6, 300, 3000, 48_000);
/** A question reaches the model at the call's next idle moment (the bridge waits up to two minutes). */
const HAND_OVER_MS = 60_000;

/** Everything the bridge handed the model as text. */
const toModel = (): string => JSON.stringify(model.clientContents) + model.texts.join('\n');
const notes = async (): Promise<string> => JSON.stringify((await call.get('/notes?limit=200')).json);

/**
 * The owner answers after the guest has been quiet for the late-transcript window: words heard
 * while someone else spoke moments ago are nobody's alone, so they never approve (bridge/room.ts).
 */
const afterGuestFallsQuiet = () => sleep(LATE_TRANSCRIPT_MS + 300);

/** Someone speaks in the call, and the model's transcription of it arrives while it is theirs. */
async function says(userId: string, words: string): Promise<void> {
  await call.discord.speak(userId, speech);
  model.send({ serverContent: { inputTranscription: { text: words, finished: true } } });
}

beforeAll(async () => {
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null, autoReply: false },
    env: (discord) => {
      guestId = discord.user('guest').id;
      return {
        // The guest may talk to the model, but is not an approver.
        DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS: `${discord.owner.id},${guestId}`,
        // An agent may make the model speak only after the owner's yes.
        DISCORD_VOICE_LIVE_MCP_ASK_TOOLS: 'say',
        DISCORD_VOICE_LIVE_MCP_SERVERS: JSON.stringify([
          {
            name: 'deployer',
            command: process.execPath,
            args: [path.resolve('test/fixtures/mcp/ask-server-v2.ts')],
            tools: { deploy: 'allow' },
            default_policy: 'deny',
            timeout_seconds: 20,
          },
        ]),
      };
    },
  });
  await waitFor(
    async () => JSON.stringify((await call.get('/mcp/servers')).json).includes('"state":"ready"'),
    'the deployer MCP server to be ready',
    30_000,
  );
  call.discord.userJoinVoice(guestId);
  expect((await call.post('/join')).status).toBe(200);
  model = await call.gemini.connection(0);
}, 60_000);

afterAll(async () => {
  await call?.close();
});

describe("an agent's question answered by the owner's voice", () => {
  it("ask_owner over MCP: spoken in the call, a guest's yes refused, the owner's yes returned to the agent", async () => {
    const agent = new Client(
      { name: 'build-agent', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${call.t.port}/mcp`), {
        requestInit: { headers: call.t.auth },
      }),
    );
    try {
      const answer = agent.callTool(
        { name: 'ask_owner', arguments: { question: 'May I push the release branch?', from: 'the build agent' } },
        { timeout: 150_000 },
      );
      await waitFor(
        () => toModel().includes('May I push the release branch?'),
        'the question to reach the model in the call',
        HAND_OVER_MS,
      );
      // Pending meanwhile, on the dashboard's list too.
      expect(JSON.stringify((await call.get('/mcp/approvals')).json)).toContain('May I push the release branch?');

      await says(guestId, 'Yes, go ahead.');
      await waitFor(
        async () => (await notes()).includes('was not taken: only the owner answers agents'),
        "the guest's answer to be noted as not taken",
        HAND_OVER_MS,
      );
      expect(JSON.stringify((await call.get('/mcp/approvals')).json)).toContain('"status":"pending"');

      await afterGuestFallsQuiet();
      await says(call.discord.owner.id, 'Yes.');
      const result = await answer;
      expect(result.structuredContent).toEqual({ answer: 'yes', by: 'voice', asked_aloud: true });
      const written = await notes();
      expect(written).toContain('the build agent asked the owner: May I push the release branch?');
      expect(written).toContain('The owner answered yes (voice) to the build agent');
    } finally {
      await agent.close();
    }
  }, 180_000);

  it("an MCP server's input_required question: the owner's spoken no reaches the server, which does not deploy", async () => {
    // The tool waits on the owner, so the bridge answers "running" and the model ends its turn.
    const [response] = await model.toolCall([{ name: 'mcp_deployer_deploy', args: { env: 'prod' } }], 60_000);
    expect(JSON.stringify(response)).toContain('running');
    model.turnComplete();
    await waitFor(
      () => toModel().includes('Deploy to prod?'),
      "the server's question to reach the model in the call",
      HAND_OVER_MS,
    );
    await says(guestId, 'Yes!');
    await waitFor(
      async () => (await notes()).split('was not taken').length > 2,
      "the guest's second answer to be noted as not taken",
      HAND_OVER_MS,
    );
    await afterGuestFallsQuiet();
    await says(call.discord.owner.id, 'No, not now.');
    // The server's own answer arrives as the tool's later result.
    await waitFor(
      () => toModel().includes('not deployed to prod (the user said no)'),
      "the server's answer to reach the model",
      HAND_OVER_MS,
    );
    expect(await notes()).toContain('The owner answered no (voice) to MCP server deployer');
  }, 180_000);

  it("a tool marked ask (DISCORD_VOICE_LIVE_MCP_ASK_TOOLS): runs after the owner's spoken yes, refused after a no", async () => {
    // The model speaks the previous test's late tool result and ends its turn: the call is idle again.
    model.turnComplete();
    const agent = new ClientV1({ name: 'notes-agent', version: '1' });
    await agent.connect(
      new HttpV1(new URL(`http://127.0.0.1:${call.t.port}/mcp`), { requestInit: { headers: call.t.auth } }),
    );
    try {
      const allowed = agent.callTool({ name: 'say', arguments: { text: 'The nightly build is green.' } }, undefined, {
        timeout: 150_000,
      });
      await waitFor(
        () => toModel().includes('May the agent run say with'),
        'the approval question to reach the model',
        HAND_OVER_MS,
      );
      const before = toModel().split('The nightly build is green.').length;
      await says(call.discord.owner.id, 'Yeah, sure.');
      expect((await allowed).structuredContent).toMatchObject({ status: 'queued' });
      await waitFor(
        () => toModel().split('The nightly build is green.').length > before,
        'the said text to reach the model after the yes',
        HAND_OVER_MS,
      );
      model.turnComplete();

      const refused = agent.callTool({ name: 'say', arguments: { text: 'Second message.' } }, undefined, {
        timeout: 150_000,
      });
      await waitFor(
        () => toModel().split('May the agent run say with').length > 2,
        'the second approval question to reach the model',
        HAND_OVER_MS,
      );
      await says(call.discord.owner.id, 'No.');
      expect(await refused).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'owner_refused' }, status: 403 },
      });
    } finally {
      await agent.close();
    }
  }, 180_000);
});
