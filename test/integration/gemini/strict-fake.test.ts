// The fake Gemini service refuses what the real one refuses, by default. Driven with a raw `ws`
// client so nothing of our provider hides what goes over the wire.
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeGemini, type FakeGemini, type FakeGeminiOptions } from '../../../main/fakes/gemini/index.ts';
import { LENIENT_GEMINI, STRICT_GEMINI } from '../../../main/fakes/gemini/strictness.ts';
import { openRawClient, setUpRaw, waitFor, type RawClient } from './raw-client.ts';

let fake: FakeGemini | null = null;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await fake?.close();
  fake = null;
});

function openRaw(version = 'v1beta'): RawClient {
  return openRawClient(fake!.url, sockets, version);
}

/** Opens a socket and completes setup (optionally resuming). */
function setUp(handle?: string, version = 'v1beta'): Promise<RawClient> {
  return setUpRaw(
    fake!.url,
    sockets,
    { model: 'models/gemini-3.8-live', sessionResumption: handle ? { handle } : {} },
    version,
  );
}

const pcm16 = Buffer.alloc(640).toString('base64');

describe('fake gemini strictness (defaults: the strictest reported behaviour)', () => {
  it.each([
    ['a second setup', { setup: { model: 'models/gemini-3.8-live' } }],
    [
      'an unknown top-level field',
      { realtimeInput: { audio: { data: pcm16, mimeType: 'audio/pcm;rate=16000' } }, extra: 1 },
    ],
    [
      'an unknown nested field',
      { realtimeInput: { audio: { data: pcm16, mimeType: 'audio/pcm;rate=16000', volume: 3 } } },
    ],
    ['a bad audio MIME type', { realtimeInput: { audio: { data: pcm16, mimeType: 'audio/wav' } } }],
    ['bad base64', { realtimeInput: { audio: { data: 'not base64!!', mimeType: 'audio/pcm;rate=16000' } } }],
    [
      'a tool response for a call never made',
      { toolResponse: { functionResponses: [{ id: 'nobody-asked', name: 'x', response: {} }] } },
    ],
  ])('closes 1007 after setup on %s', async (_what, message) => {
    fake = await startFakeGemini();
    const client = await setUp();
    client.ws.send(JSON.stringify(message));
    const closed = await client.closed;
    expect(closed.code).toBe(1007);
    expect(closed.reason).toMatch(/invalid argument/);
  });

  it('accepts the same messages with validation off (the old, lax fake)', async () => {
    fake = await startFakeGemini({ strict: { validateMessages: false, matchToolResponseIds: false } });
    const client = await setUp();
    client.ws.send(JSON.stringify({ realtimeInput: { audio: { data: pcm16, mimeType: 'audio/wav' } } }));
    client.ws.send(JSON.stringify({ toolResponse: { functionResponses: [{ id: 'nobody-asked', response: {} }] } }));
    const conn = await fake.connection(0);
    await conn.waitFor(() => conn.received.length === 2, 5000, 'both messages');
    expect(conn.isOpen).toBe(true);
  });

  it('refuses the v1 path at upgrade unless configured to accept it', async () => {
    fake = await startFakeGemini();
    const refused = openRaw('v1');
    expect((await refused.closed).code).not.toBe(1000);
    expect(fake.established).toHaveLength(0);
    await fake.close();
    fake = await startFakeGemini({ strict: { apiVersions: ['v1'] } });
    await setUp(undefined, 'v1');
    expect(fake.established).toHaveLength(1);
  });

  it('refuses a resume with 1011 while another socket of the session is open, accepts it once that one closed', async () => {
    fake = await startFakeGemini();
    const first = await setUp();
    const handle = (
      first.messages.find((m) => 'sessionResumptionUpdate' in m)!.sessionResumptionUpdate as { newHandle: string }
    ).newHandle;
    const overlapped = await setUp(handle);
    expect((await overlapped.closed).code).toBe(1011);
    expect(fake.overlapsRefused).toBe(1);
    first.ws.close();
    await first.closed;
    const resumed = await setUp(handle);
    expect(resumed.messages.some((m) => 'setupComplete' in m)).toBe(true);
    expect(fake.established[1]!.sessionId).toBe(fake.established[0]!.sessionId);
  });

  it('accepts the overlapped resume with overlappedResume: allow', async () => {
    fake = await startFakeGemini({ strict: { overlappedResume: 'allow' } });
    const first = await setUp();
    const handle = (
      first.messages.find((m) => 'sessionResumptionUpdate' in m)!.sessionResumptionUpdate as { newHandle: string }
    ).newHandle;
    const second = await setUp(handle);
    expect(second.messages.some((m) => 'setupComplete' in m)).toBe(true);
    expect(first.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('refuses an expired resumption handle (1008)', async () => {
    fake = await startFakeGemini({ strict: { handleTtlMs: 0 } });
    const first = await setUp();
    const handle = (
      first.messages.find((m) => 'sessionResumptionUpdate' in m)!.sessionResumptionUpdate as { newHandle: string }
    ).newHandle;
    first.ws.close();
    await first.closed;
    await new Promise((r) => setTimeout(r, 5));
    const late = await setUp(handle);
    const closed = await late.closed;
    expect([closed.code, closed.reason]).toEqual([1008, 'Invalid session resumption handle.']);
  });

  it('closes 1011 "Deadline expired" when a goAway runs out, whatever its timeLeft', async () => {
    fake = await startFakeGemini();
    const client = await setUp();
    (await fake.connection(0)).goAway(50);
    await waitFor(() => client.messages.some((m) => 'goAway' in m), 'goAway');
    expect(client.messages.find((m) => 'goAway' in m)).toEqual({ goAway: { timeLeft: '0.05s' } });
    expect(await client.closed).toEqual({ code: 1011, reason: 'Deadline expired' });
  });

  it('by default a socket lives ~10 min (goAway 60 s before its end) and an uncompressed session ends at 15 min, 2 min once it has seen an image', () => {
    expect(STRICT_GEMINI.connectionLifetime).toEqual({ goAwayAfterMs: 9 * 60_000, goAwayTimeLeftMs: 60_000 });
    expect(STRICT_GEMINI.uncompressedSessionLimit).toEqual({ audioMs: 15 * 60_000, videoMs: 2 * 60_000 });
    expect(LENIENT_GEMINI.connectionLifetime).toBeNull();
  });

  it('sends goAway and closes every socket at the end of its lifetime, by itself', async () => {
    fake = await startFakeGemini({ strict: { connectionLifetime: { goAwayAfterMs: 80, goAwayTimeLeftMs: 60 } } });
    const client = await setUp();
    await waitFor(() => client.messages.some((m) => 'goAway' in m), 'goAway');
    expect(client.messages.find((m) => 'goAway' in m)).toEqual({ goAway: { timeLeft: '0.06s' } });
    expect(await client.closed).toEqual({ code: 1011, reason: 'Deadline expired' });
  });

  it('ends a session without contextWindowCompression at its limit, resumed or not; with compression it goes on', async () => {
    const limit = { audioMs: 400, videoMs: 150 };
    fake = await startFakeGemini({ strict: { uncompressedSessionLimit: limit, connectionLifetime: null } });
    const first = await setUp();
    const handle = (
      first.messages.find((m) => 'sessionResumptionUpdate' in m)!.sessionResumptionUpdate as { newHandle: string }
    ).newHandle;
    first.ws.close();
    await first.closed;
    const resumed = await setUp(handle); // the clock runs from the session's start, not the socket's
    expect(await resumed.closed).toEqual({ code: 1011, reason: 'Deadline expired' });
    const late = await setUp(handle);
    expect(await late.closed).toEqual({ code: 1011, reason: 'Deadline expired' });

    // An image moves the end to the audio-and-video limit.
    const withVideo = await setUp();
    withVideo.ws.send(
      JSON.stringify({
        realtimeInput: { video: { data: Buffer.from('img').toString('base64'), mimeType: 'image/jpeg' } },
      }),
    );
    expect(await withVideo.closed).toEqual({ code: 1011, reason: 'Deadline expired' });

    const compressed = openRaw();
    await new Promise<void>((resolve) => compressed.ws.once('open', () => resolve()));
    compressed.ws.send(
      JSON.stringify({ setup: { model: 'models/gemini-3.8-live', contextWindowCompression: { slidingWindow: {} } } }),
    );
    await waitFor(() => compressed.messages.some((m) => 'setupComplete' in m), 'setupComplete');
    await new Promise((r) => setTimeout(r, limit.audioMs + 200));
    expect(compressed.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('cuts close reasons to 123 bytes (an unknown model’s long reason)', async () => {
    fake = await startFakeGemini();
    const client = openRaw();
    await new Promise((r) => client.ws.once('open', r));
    client.ws.send(JSON.stringify({ setup: { model: `models/${'x'.repeat(120)}` } }));
    const closed = await client.closed;
    expect(closed.code).toBe(1008);
    expect(Buffer.byteLength(closed.reason)).toBe(123);
  });

  it('waits before setupComplete and answers pings late (both configurable)', async () => {
    const options: FakeGeminiOptions = { strict: { pongDelayMs: 400 } };
    fake = await startFakeGemini(options);
    expect(fake.strict.setupDelayMs).toBeGreaterThan(0);
    const client = await setUp();
    let pongs = 0;
    client.ws.on('pong', () => pongs++);
    client.ws.ping();
    await new Promise((r) => setTimeout(r, 50));
    expect(pongs).toBe(0); // not yet: the pong is due 400 ms later
    await waitFor(() => pongs === 1, 'the late pong');
  });

  it('sends the end of the input transcription after the model’s first audio', async () => {
    fake = await startFakeGemini();
    const client = await setUp();
    const conn = await fake.connection(0);
    await conn.reply({ toneMs: 200, inputTranscript: 'one two three four', transcript: 'ok' });
    await waitFor(() => client.messages.some((m) => JSON.stringify(m).includes('turnComplete')), 'turnComplete');
    const kinds = client.messages.flatMap((m) => {
      const content = m.serverContent as Record<string, unknown> | undefined;
      if (content?.inputTranscription) return [`in:${(content.inputTranscription as { text: string }).text}`];
      if (content?.modelTurn) return ['audio'];
      return [];
    });
    const firstAudio = kinds.indexOf('audio');
    expect(kinds.slice(0, firstAudio)).toEqual(['in:one two ']);
    expect(kinds.slice(firstAudio)).toContain('in:three four');
  });

  /** Opens a session, lets the "model" ask `lookup`, takes a handle issued before (or after) the call, closes the socket. */
  async function callThenClose(handleAfterCall: boolean): Promise<{ handle: string; callId: string }> {
    const first = await setUp();
    const conn = await fake!.connection(0);
    void conn.reply({ toneMs: 40, transcript: 'an earlier turn' });
    await waitFor(
      () => first.messages.some((m) => (m.serverContent as { turnComplete?: boolean } | undefined)?.turnComplete),
      'earlier turn',
    );
    const before = conn.issuedHandles.at(-1)!;
    void conn.toolCall([{ name: 'lookup', args: { q: 'a' } }]).catch(() => undefined);
    await waitFor(() => first.messages.some((m) => 'toolCall' in m), 'toolCall');
    void conn.reply({ toneMs: 40, transcript: 'a turn after the handle' });
    await waitFor(() => fake!.sessions.get(conn.sessionId!)!.history.length === 2, 'later turn recorded');
    const handle = handleAfterCall ? conn.resumptionUpdate() : before;
    const callId = (first.messages.find((m) => 'toolCall' in m)!.toolCall as { functionCalls: { id: string }[] })
      .functionCalls[0]!.id;
    first.ws.close();
    await first.closed;
    return { handle, callId };
  }

  it('a handle restores the session as of the handle: a call asked after it is never asked again, later turns are gone', async () => {
    fake = await startFakeGemini();
    const { handle, callId } = await callThenClose(false);
    const resumed = await setUp(handle);
    const conn = await fake.connection(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(resumed.messages.some((m) => 'toolCall' in m)).toBe(false);
    expect(conn.restoredFrom).toEqual({ handle, pendingToolCalls: [], turnsDropped: 1 });
    expect(fake.sessions.get(conn.sessionId!)!.history.map((e) => e.text)).toEqual(['an earlier turn']);
    // the resumed session never saw the call: its id is refused
    resumed.ws.send(
      JSON.stringify({
        toolResponse: { functionResponses: [{ id: callId, name: 'lookup', response: { result: 1 } }] },
      }),
    );
    expect((await resumed.closed).code).toBe(1007);
  });

  it.each([
    ['forget', 0],
    ['reask', 1],
  ] as const)(
    'a call still pending when the handle was issued, pendingToolCallsOnResume %s: asked again %i time(s), with a new id',
    async (mode, asked) => {
      fake = await startFakeGemini({ strict: { pendingToolCallsOnResume: mode } });
      const { handle, callId } = await callThenClose(true);
      const resumed = await setUp(handle);
      const conn = await fake.connection(1);
      expect(conn.restoredFrom?.pendingToolCalls).toEqual([{ name: 'lookup', args: { q: 'a' } }]);
      expect(conn.restoredFrom?.turnsDropped).toBe(0);
      await new Promise((r) => setTimeout(r, 200));
      const calls = resumed.messages
        .filter((m) => 'toolCall' in m)
        .flatMap((m) => (m.toolCall as { functionCalls: { id: string; name: string; args: unknown }[] }).functionCalls);
      expect(calls).toHaveLength(asked);
      if (asked) {
        expect(calls[0]).toMatchObject({ name: 'lookup', args: { q: 'a' } });
        expect(calls[0]!.id).not.toBe(callId);
      }
    },
  );
});
