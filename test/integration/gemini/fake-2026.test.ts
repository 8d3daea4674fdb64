// The fake Gemini service follows the late-2026 rules by default (research/field-2026-11.md §3.1):
// a session deadline with a refused resume, transparent resumption, resumable:false while busy,
// turnComplete at the end of playback, the extended-thinking model's interactionStatus, and
// mid-session context updates where the model takes them. Raw `ws` clients: nothing hides the wire.
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { startFakeGemini, type FakeGemini } from '../../../main/fakes/gemini/index.ts';
import { STRICT_GEMINI } from '../../../main/fakes/gemini/strictness.ts';
import { setUpRaw, waitFor, type RawClient } from './raw-client.ts';

let fake: FakeGemini | null = null;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await fake?.close();
  fake = null;
});

const pcm16 = Buffer.alloc(640).toString('base64');
const audio = JSON.stringify({ realtimeInput: { audio: { data: pcm16, mimeType: 'audio/pcm;rate=16000' } } });

function setUp(setup: Record<string, unknown>): Promise<RawClient> {
  return setUpRaw(fake!.url, sockets, { model: 'models/gemini-3.8-live', ...setup });
}

function resumptionUpdates(client: RawClient): Record<string, unknown>[] {
  return client.messages.flatMap((m) =>
    m.sessionResumptionUpdate ? [m.sessionResumptionUpdate as Record<string, unknown>] : [],
  );
}

function serverContents(client: RawClient): Record<string, unknown>[] {
  return client.messages.flatMap((m) => (m.serverContent ? [m.serverContent as Record<string, unknown>] : []));
}

describe('fake gemini, late-2026 rules (strict by default)', () => {
  it('closes a session 1011 "Deadline expired" at its deadline (58 min by default) and refuses a later resume of its handle with 1007', async () => {
    expect(STRICT_GEMINI.sessionDeadline?.afterMs).toBe(58 * 60_000);
    fake = await startFakeGemini({ sessionDeadlineMs: 800 });
    const first = await setUp({ sessionResumption: {} });
    await waitFor(() => resumptionUpdates(first).length > 0, 'a handle');
    const handle = resumptionUpdates(first).at(-1)!.newHandle as string;
    expect(await first.closed).toEqual({ code: 1011, reason: 'Deadline expired' });
    const resumed = await setUp({ sessionResumption: { handle } });
    expect((await resumed.closed).code).toBe(1007);
    // A fresh session is accepted.
    const fresh = await setUp({ sessionResumption: {} });
    expect(fresh.messages.some((m) => 'setupComplete' in m)).toBe(true);
  });

  it('a session whose deadline passes with no socket open (parked) meets it at the next resume: refused 1007, counted as expired', async () => {
    fake = await startFakeGemini({ sessionDeadlineMs: 600 });
    const first = await setUp({ sessionResumption: {} });
    await waitFor(() => resumptionUpdates(first).length > 0, 'a handle');
    const handle = resumptionUpdates(first).at(-1)!.newHandle as string;
    first.ws.close(); // the client parks before the deadline: no 1011 close to see
    await first.closed;
    const [session] = [...fake.sessions.values()];
    expect(session!.expired).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 700));
    const resumed = await setUp({ sessionResumption: { handle } });
    expect((await resumed.closed).code).toBe(1007);
    expect(session!.expired).toBe(true);
  });

  it('with transparent resumption reports the last client message it consumed, and a resumed session has heard the audio as of that handle', async () => {
    fake = await startFakeGemini();
    const first = await setUp({ sessionResumption: { transparent: true } });
    for (let i = 0; i < 3; i++) first.ws.send(audio);
    const server = await fake.connection(0);
    await server.waitFor(() => server.audio.length === 3, 5000, 'three chunks');
    server.resumptionUpdate();
    await waitFor(() => resumptionUpdates(first).length >= 2, 'the second update');
    const update = resumptionUpdates(first).at(-1)!;
    // setup is message 0, the three audio messages 1..3
    expect(update.lastConsumedClientMessageIndex).toBe('3');
    // Two more chunks after the handle: a resume from that handle has not heard them.
    first.ws.send(audio);
    first.ws.send(audio);
    await server.waitFor(() => server.audio.length === 5, 5000, 'five chunks');
    first.ws.close();
    await first.closed;
    const resumed = await setUp({ sessionResumption: { handle: update.newHandle, transparent: true } });
    await waitFor(() => resumptionUpdates(resumed).length > 0, 'a handle on the resumed socket');
    expect(resumptionUpdates(resumed)[0]!.lastConsumedClientMessageIndex).toBe('0');
    expect(fake.sessions.get(server.sessionId!)!.audioSamples).toBe(3 * 320);
  });

  it('sends no index when the mode is absent (as reported on 3.1), although transparent was asked', async () => {
    fake = await startFakeGemini({ strict: { transparentResumption: 'absent' } });
    const client = await setUp({ sessionResumption: { transparent: true } });
    await waitFor(() => resumptionUpdates(client).length > 0, 'a handle');
    expect(resumptionUpdates(client)[0]).not.toHaveProperty('lastConsumedClientMessageIndex');
  });

  it('is not resumable while it generates or waits on a tool', async () => {
    fake = await startFakeGemini();
    const client = await setUp({ sessionResumption: {} });
    const server = await fake.connection(0);
    void server.reply({ toneMs: 200 });
    await waitFor(() => serverContents(client).some((c) => c.modelTurn), 'model audio');
    const beforeAudio = client.messages.findIndex(
      (m) => (m.serverContent as Record<string, unknown> | undefined)?.modelTurn,
    );
    expect(
      client.messages
        .slice(0, beforeAudio)
        .some((m) => (m.sessionResumptionUpdate as { resumable?: boolean } | undefined)?.resumable === false),
    ).toBe(true);
    await waitFor(() => serverContents(client).some((c) => c.turnComplete), 'turnComplete');
    const count = client.messages.length;
    void server.toolCall([{ name: 'lookup', args: {} }]).catch(() => undefined);
    await waitFor(() => client.messages.some((m) => m.toolCall), 'the tool call');
    expect(
      client.messages
        .slice(count)
        .map((m) => (m.sessionResumptionUpdate as { resumable?: boolean } | undefined)?.resumable),
    ).toContain(false);
  });

  it('sends turnComplete when a reply sent faster than real time would have finished playing, not with generationComplete', async () => {
    fake = await startFakeGemini();
    const client = await setUp({});
    const server = await fake.connection(0);
    void server.reply({ toneMs: 3000, chunkMs: 100, paceMs: 1 });
    await waitFor(() => serverContents(client).some((c) => c.generationComplete), 'generationComplete');
    expect(serverContents(client).some((c) => c.turnComplete)).toBe(false);
    await waitFor(() => serverContents(client).some((c) => c.turnComplete), 'turnComplete', 10_000);
  });

  it('the extended-thinking model sends interactionStatus with turnComplete: IN_PROGRESS while its call is unanswered, then IDLE', async () => {
    fake = await startFakeGemini();
    const client = await setUpRaw(fake.url, sockets, { model: 'models/gemini-3.8-live-extended-thinking' });
    const server = await fake.connection(0);
    const answered = server.toolCall([{ id: 'c1', name: 'lookup', args: {} }]);
    await waitFor(() => client.messages.some((m) => m.toolCall), 'the tool call');
    server.turnComplete();
    await waitFor(() => serverContents(client).some((c) => c.turnComplete), 'turnComplete');
    expect(serverContents(client).at(-1)).toEqual({ turnComplete: true, interactionStatus: 'IN_PROGRESS' });
    client.ws.send(
      JSON.stringify({ toolResponse: { functionResponses: [{ id: 'c1', name: 'lookup', response: { ok: true } }] } }),
    );
    await answered;
    server.turnComplete();
    await waitFor(() => serverContents(client).filter((c) => c.turnComplete).length === 2, 'the second turnComplete');
    expect(serverContents(client).at(-1)).toEqual({ turnComplete: true, interactionStatus: 'IDLE' });
  });

  it('takes a mid-session contextUpdate (instructions, tools) on 3.8 and records it on the session; 3.1 refuses it with 1007', async () => {
    fake = await startFakeGemini();
    const client = await setUp({});
    const update = {
      systemInstruction: { parts: [{ text: 'You are Ada now.' }] },
      tools: { tools: [{ functionDeclarations: [{ name: 'x', description: 'x' }] }] },
    };
    client.ws.send(JSON.stringify({ contextUpdate: update }));
    const server = await fake.connection(0);
    await server.waitFor(() => server.contextUpdates.length === 1, 5000, 'the update');
    expect(fake.sessions.get(server.sessionId!)!.contextUpdate).toEqual(update);
    expect(client.ws.readyState).toBe(client.ws.OPEN);
    const old = await setUpRaw(fake.url, sockets, { model: 'models/gemini-3.1-flash-live-preview' });
    old.ws.send(JSON.stringify({ contextUpdate: update }));
    expect((await old.closed).code).toBe(1007);
  });
});
