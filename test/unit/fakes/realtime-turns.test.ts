// The fake OpenAI Realtime service ends a user turn as the service does (issue #52 item 4):
// server_vad with the session's threshold / prefix_padding_ms / silence_duration_ms (documented
// defaults 0.5 / 300 / 500), and the documented semantic_vad stand-in (an utterance-final cue ends
// the turn after the eagerness' short window, otherwise its 8/4/2 s cap). Raw sockets; audio sent
// as fast as the socket takes it: the fake counts samples, never the wall clock.
import { afterEach, describe, expect, it } from 'vitest';
import {
  SEMANTIC_VAD_CAP_MS,
  SEMANTIC_VAD_FINAL_MS,
  startFakeOpenAIRealtime,
  type FakeOpenAIRealtime,
  type FakeRealtimeConnection,
} from '../../../main/fakes/openai/index.ts';
import { pcmToBase64 } from '../../../main/fakes/shared/pcm.ts';
import { SpeechScript } from '../../../main/fakes/shared/scripted-speech.ts';
import { chunks, closeRawSockets, openRaw, waitFor, type RawSocket } from './raw-socket.ts';

let fake: FakeOpenAIRealtime | null = null;
afterEach(async () => {
  closeRawSockets();
  await fake?.close();
  fake = null;
});

const RATE = 24_000;
const speech = (ms: number): string[] => chunks('speech', ms, RATE);
const silence = (ms: number): string[] => chunks('silence', ms, RATE);

async function connect(
  options: Parameters<typeof startFakeOpenAIRealtime>[0] = {},
): Promise<{ client: RawSocket; server: FakeRealtimeConnection }> {
  fake ??= await startFakeOpenAIRealtime({ setupDelayMs: 0, firstAudioAfterTurnEndMs: 0, ...options });
  const client = await openRaw(`${fake.url}/realtime?model=gpt-realtime-2`, {
    Authorization: 'Bearer realtime-turns-key',
  });
  await waitFor(() => client.messages.some((m) => m.type === 'session.created'), 'session.created');
  return { client, server: fake.connections.at(-1)! };
}

async function turnDetection(
  client: RawSocket,
  server: FakeRealtimeConnection,
  turn_detection: Record<string, unknown>,
): Promise<void> {
  const updates = server.sessionUpdates + server.errors.length;
  client.send({ type: 'session.update', session: { type: 'realtime', audio: { input: { turn_detection } } } });
  await server.waitFor(
    () => server.sessionUpdates + server.errors.length > updates,
    5000,
    'the session.update handled',
  );
}

/** Appends the audio and waits until the fake has taken all of it. */
async function send(client: RawSocket, server: FakeRealtimeConnection, ...parts: string[][]): Promise<void> {
  const target = server.audio.length + parts.reduce((n, p) => n + p.length, 0);
  for (const part of parts) for (const audio of part) client.send({ type: 'input_audio_buffer.append', audio });
  await server.waitFor(() => server.audio.length === target, 5000, 'the audio taken');
}

/** What the fake sent (its own record: no race with the socket's delivery). */
const events = (server: FakeRealtimeConnection, type: string): Record<string, unknown>[] =>
  server.sent.filter((m) => m.type === type);
const stopped = (server: FakeRealtimeConnection): number => events(server, 'input_audio_buffer.speech_stopped').length;

describe('fake realtime: server_vad', () => {
  it('the default session (silence 500 ms): 600 ms of silence after speech ends the turn, as the bridge sends today', async () => {
    const { client, server } = await connect();
    await send(client, server, speech(400), silence(400));
    expect(stopped(server)).toBe(0);
    await send(client, server, silence(200));
    expect(events(server, 'input_audio_buffer.committed')).toHaveLength(1);
    expect(events(server, 'input_audio_buffer.speech_started')).toHaveLength(1);
    expect(stopped(server)).toBe(1);
  });

  it('silence_duration_ms 800: a 700 ms pause is not a turn end; 900 ms of quiet is', async () => {
    const { client, server } = await connect();
    await turnDetection(client, server, { type: 'server_vad', silence_duration_ms: 800 });
    const quiet: number[] = [];
    server.on('userTurn', (turn) => quiet.push(turn.quietMs));
    await send(client, server, speech(400), silence(700), speech(300), silence(700));
    expect(stopped(server)).toBe(0);
    await send(client, server, silence(200));
    expect(stopped(server)).toBe(1);
    // audio_end_ms is where the window ran out, its silence included: 400 + 700 + 300 + 800 ms.
    expect(events(server, 'input_audio_buffer.speech_stopped')[0]!.audio_end_ms).toBe(2200);
    // The quiet it counted, reported with the turn (a bench's service window): the 800 ms.
    expect(quiet).toEqual([800]);
  });

  it('a pause the client sends no audio for ends nothing', async () => {
    const { client, server } = await connect();
    await send(client, server, speech(400));
    await new Promise((r) => setTimeout(r, 1000));
    expect(stopped(server)).toBe(0);
    expect(events(server, 'response.created')).toHaveLength(0);
  });

  it('threshold: a higher one needs louder audio to start speech', async () => {
    const { client, server } = await connect();
    const quiet = chunks('speech', 400, RATE).map(() =>
      pcmToBase64(new Int16Array(2400).map((_, i) => Math.round(3000 * Math.sin((2 * Math.PI * 440 * i) / RATE)))),
    );
    await turnDetection(client, server, { type: 'server_vad', threshold: 0.9 });
    await send(client, server, quiet, silence(600));
    expect(events(server, 'input_audio_buffer.speech_started')).toHaveLength(0);
    await turnDetection(client, server, { type: 'server_vad', threshold: 0.5 });
    await send(client, server, quiet, silence(600));
    expect(events(server, 'input_audio_buffer.speech_started')).toHaveLength(1);
  });

  it('prefix_padding_ms: speech_started reports the start minus the padding', async () => {
    const { client, server } = await connect();
    await turnDetection(client, server, { type: 'server_vad', prefix_padding_ms: 200 });
    await send(client, server, silence(1000), speech(300), silence(600));
    expect(events(server, 'input_audio_buffer.speech_started')[0]!.audio_start_ms).toBe(800);
  });
});

describe('fake realtime: the semantic_vad stand-in', () => {
  it('medium, mid-sentence: a 700 ms pause is not a turn end; the 4 s cap is', async () => {
    const { client, server } = await connect();
    await turnDetection(client, server, { type: 'semantic_vad', eagerness: 'medium' });
    server.setUtteranceCue('mid');
    await send(client, server, speech(500), silence(700), speech(300), silence(SEMANTIC_VAD_CAP_MS.medium - 100));
    expect(stopped(server)).toBe(0);
    await send(client, server, silence(100));
    expect(stopped(server)).toBe(1);
  });

  it('after an utterance-final cue the turn ends sooner (the short window)', async () => {
    const { client, server } = await connect();
    await turnDetection(client, server, { type: 'semantic_vad' });
    server.setInputTranscript('What time is it?');
    await send(client, server, speech(500), silence(SEMANTIC_VAD_FINAL_MS.auto - 100));
    expect(stopped(server)).toBe(0);
    await send(client, server, silence(100));
    expect(stopped(server)).toBe(1);
  });

  it('high waits at most 2 s, low 8 s', async () => {
    const { client, server } = await connect();
    await turnDetection(client, server, { type: 'semantic_vad', eagerness: 'high' });
    await send(client, server, speech(300), silence(SEMANTIC_VAD_CAP_MS.high));
    expect(stopped(server)).toBe(1);
    await turnDetection(client, server, { type: 'semantic_vad', eagerness: 'low' });
    await send(client, server, speech(300), silence(SEMANTIC_VAD_CAP_MS.low - 100));
    expect(stopped(server)).toBe(1);
    await send(client, server, silence(100));
    expect(stopped(server)).toBe(2);
  });

  it('reads the cue from the words heard so far: a sentence said whole ends soon, half of it waits', async () => {
    const script = new SpeechScript();
    const sentence = 'Please book a table for two at eight tonight.';
    const mono24k = (pcm48kStereo: Int16Array): string[] => {
      const out = new Int16Array(Math.floor(pcm48kStereo.length / 4));
      for (let i = 0; i < out.length; i++) out[i] = pcm48kStereo[4 * i]!;
      const parts: string[] = [];
      for (let at = 0; at < out.length; at += 2400) parts.push(pcmToBase64(out.subarray(at, at + 2400)));
      return parts;
    };
    const whole = mono24k(script.utterance(sentence));
    const { client, server } = await connect({ autoReply: { stream: (rate) => script.streaming(rate), toneMs: 100 } });
    await turnDetection(client, server, { type: 'semantic_vad', eagerness: 'medium' });
    await send(client, server, whole.slice(0, Math.floor(whole.length / 2)), silence(1500));
    expect(stopped(server)).toBe(0);
    await send(client, server, whole.slice(Math.floor(whole.length / 2)), silence(700));
    expect(stopped(server)).toBe(1);
  });

  it.each([
    [
      'an unknown eagerness',
      { type: 'semantic_vad', eagerness: 'eager' },
      'invalid_value',
      'session.audio.input.turn_detection.eagerness',
    ],
    [
      'a server_vad field on semantic_vad',
      { type: 'semantic_vad', silence_duration_ms: 800 },
      'unknown_parameter',
      'session.audio.input.turn_detection.silence_duration_ms',
    ],
    [
      'a threshold above 1',
      { type: 'server_vad', threshold: 1.5 },
      'invalid_value',
      'session.audio.input.turn_detection.threshold',
    ],
    [
      'a negative silence',
      { type: 'server_vad', silence_duration_ms: -5 },
      'invalid_value',
      'session.audio.input.turn_detection.silence_duration_ms',
    ],
  ])('refuses %s with the service error event', async (_what, turn, code, param) => {
    const { client, server } = await connect();
    await turnDetection(client, server, turn);
    const error = events(server, 'error').at(-1)!.error as { code: string; param: string; type: string };
    expect(error).toMatchObject({ type: 'invalid_request_error', code, param });
    expect(server.sessionUpdates).toBe(0);
  });
});
