// The xAI and GPT-Live fakes end a user turn as their services do (issue #52 item 4), on the audio
// they received (samples, never the wall clock): xAI's server_vad honours the session's
// silence_duration_ms (docs.x.ai Session Parameters); GPT-Live has its own window and no turn
// setting on the wire (a turn_detection field is refused as unknown). Raw sockets.
import { afterEach, describe, expect, it } from 'vitest';
import {
  GPT_LIVE_SILENCE_MS,
  startFakeOpenAILive,
  type FakeLiveConnection,
  type FakeOpenAILive,
} from '../../../main/fakes/openai/index.ts';
import { startFakeXai, type FakeXai, type FakeXaiConnection } from '../../../main/fakes/xai/server.ts';
import { chunks, closeRawSockets, openRaw, waitFor, type RawSocket } from './raw-socket.ts';

const fakes: { close(): Promise<void> }[] = [];
afterEach(async () => {
  closeRawSockets();
  for (const f of fakes.splice(0)) await f.close();
});

const RATE = 24_000;
const speech = (ms: number): string[] => chunks('speech', ms, RATE);
const silence = (ms: number): string[] => chunks('silence', ms, RATE);

describe('fake xai: server_vad', () => {
  async function connect(): Promise<{ client: RawSocket; server: FakeXaiConnection; fake: FakeXai }> {
    const fake = await startFakeXai({ setupDelayMs: 0, firstAudioAfterTurnEndMs: 0, pingEveryMs: null });
    fakes.push(fake);
    const client = await openRaw(`${fake.url}/realtime?model=grok-voice-latest`, {
      Authorization: 'Bearer xai-turns-key',
    });
    await waitFor(() => client.messages.some((m) => m.type === 'conversation.created'), 'conversation.created');
    return { client, server: fake.connections.at(-1)!, fake };
  }

  async function send(client: RawSocket, server: FakeXaiConnection, ...parts: string[][]): Promise<void> {
    const target = server.audio.length + parts.reduce((n, p) => n + p.length, 0);
    for (const part of parts) for (const audio of part) client.send({ type: 'input_audio_buffer.append', audio });
    await server.waitFor(() => server.audio.length === target, 5000, 'the audio taken');
  }

  const stopped = (server: FakeXaiConnection): number =>
    server.sent.filter((m) => m.type === 'input_audio_buffer.speech_stopped').length;

  it('silence_duration_ms 800: a 700 ms pause is not a turn end; 900 ms of quiet is; no audio ends nothing', async () => {
    const { client, server } = await connect();
    client.send({
      type: 'session.update',
      session: { turn_detection: { type: 'server_vad', silence_duration_ms: 800 } },
    });
    await server.waitFor(() => server.sessionUpdates === 1, 5000, 'the update');
    await send(client, server, speech(400), silence(700), speech(300));
    await new Promise((r) => setTimeout(r, 1000));
    expect(stopped(server)).toBe(0);
    await send(client, server, silence(900));
    expect(stopped(server)).toBe(1);
  });

  it('without a silence_duration_ms the window is 500 ms (the Realtime documented default; xAI publishes none)', async () => {
    const { client, server } = await connect();
    await send(client, server, speech(300), silence(400));
    expect(stopped(server)).toBe(0);
    await send(client, server, silence(200));
    expect(stopped(server)).toBe(1);
  });

  it('refuses semantic_vad (xAI has server_vad only)', async () => {
    const { client, server } = await connect();
    client.send({ type: 'session.update', session: { turn_detection: { type: 'semantic_vad', eagerness: 'low' } } });
    await waitFor(() => server.errors.length === 1, 'the error');
    expect(server.errors[0]).toMatchObject({ code: 'invalid_value' });
    expect(server.sessionUpdates).toBe(0);
  });
});

describe('fake gpt-live: its own window', () => {
  async function connect(
    session: Record<string, unknown> = {},
  ): Promise<{ client: RawSocket; server: FakeLiveConnection; turns: number[] }> {
    const fake: FakeOpenAILive = await startFakeOpenAILive({ setupDelayMs: 0, firstAudioAfterTurnEndMs: 0 });
    fakes.push(fake);
    const client = await openRaw(`${fake.url}/live/sessions`, { Authorization: 'Bearer live-turns-key' });
    await waitFor(() => fake.connections.length === 1, 'the socket');
    const server = fake.connections[0]!;
    const turns: number[] = [];
    server.on('userTurn', (turn) => turns.push(turn.ms));
    client.send({
      type: 'session.start',
      session: { model: 'gpt-live-1.1', audio: { format: { type: 'audio/pcm', rate: RATE } }, ...session },
    });
    await waitFor(
      () => client.messages.some((m) => m.type === 'session.started' || m.type === 'error'),
      'session.started',
    );
    return { client, server, turns };
  }

  async function send(client: RawSocket, server: FakeLiveConnection, ...parts: string[][]): Promise<void> {
    const target = server.audio.length + parts.reduce((n, p) => n + p.length, 0);
    for (const part of parts) for (const audio of part) client.send({ type: 'session.input_audio.append', audio });
    await server.waitFor(() => server.audio.length === target, 5000, 'the audio taken');
  }

  it(`ends the turn after its own ${GPT_LIVE_SILENCE_MS} ms of quiet received, and never without audio`, async () => {
    const { client, server, turns } = await connect();
    await send(client, server, speech(400), silence(GPT_LIVE_SILENCE_MS - 100));
    await new Promise((r) => setTimeout(r, 1000));
    expect(turns).toEqual([]);
    await send(client, server, silence(100));
    expect(turns).toEqual([400]);
  });

  it('reports the quiet it counted before it ended the turn (its window)', async () => {
    const { client, server } = await connect();
    const quiet: number[] = [];
    server.on('userTurn', (turn) => quiet.push(turn.quietMs));
    await send(client, server, speech(300), silence(GPT_LIVE_SILENCE_MS));
    expect(quiet).toEqual([GPT_LIVE_SILENCE_MS]);
  });

  it.each([
    ['at the top of the session', { turn_detection: { type: 'server_vad' } }, 'session.turn_detection'],
    [
      'under audio',
      { audio: { format: { type: 'audio/pcm', rate: RATE }, turn_detection: { type: 'semantic_vad' } } },
      'session.audio.turn_detection',
    ],
  ])('has no turn setting: turn_detection %s is an unknown parameter', async (_where, session, param) => {
    const { client, server } = await connect(session);
    expect(server.sessionId).toBeNull();
    const error = client.messages.find((m) => m.type === 'error')!.error as { code: string; param: string };
    expect(error).toMatchObject({ code: 'unknown_parameter', param });
  });
});
