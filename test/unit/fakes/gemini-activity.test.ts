// The fake Gemini Live service ends a user turn as the service does (issue #52 item 4): automatic
// activity detection on the audio it RECEIVED (the setup's silence window, sensitivities and
// prefix, or the stated defaults), `voiceActivity` on 3.8, activityStart/activityEnd only with
// detection off, audioStreamEnd a flush of the turn in progress. Raw sockets, audio sent as fast as
// the socket takes it: the fake counts samples, so the outcome never depends on the wall clock.
import { afterEach, describe, expect, it } from 'vitest';
import {
  GEMINI_AAD_DEFAULTS,
  startFakeGemini,
  type FakeGemini,
  type FakeGeminiConnection,
} from '../../../main/fakes/gemini/index.ts';
import { pcmToBase64, tone } from '../../../main/fakes/gemini/pcm.ts';
import { chunks, closeRawSockets, openRaw, waitFor, type RawSocket } from './raw-socket.ts';

let fake: FakeGemini | null = null;
afterEach(async () => {
  closeRawSockets();
  await fake?.close();
  fake = null;
});

const NATURAL = { automaticActivityDetection: { silenceDurationMs: 800 } };

async function setUp(
  setup: Record<string, unknown>,
  options: Parameters<typeof startFakeGemini>[0] = {},
): Promise<{ client: RawSocket; server: FakeGeminiConnection }> {
  fake ??= await startFakeGemini({ setupDelayMs: 0, firstAudioAfterTurnEndMs: 0, ...options });
  const url = `${fake.url.replace('http:', 'ws:')}//ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=gemini-activity-key`;
  const client = await openRaw(url);
  client.send({ setup: { model: 'models/gemini-3.8-live', ...setup } });
  await waitFor(
    () => client.messages.some((m) => 'setupComplete' in m) || client.ws.readyState !== client.ws.OPEN,
    'setupComplete',
  );
  return { client, server: fake.connections.at(-1)! };
}

/** Sends audio and waits until the fake has taken every chunk of it. */
async function send(client: RawSocket, server: FakeGeminiConnection, ...parts: string[][]): Promise<void> {
  const target = server.audio.length + parts.reduce((n, p) => n + p.length, 0);
  for (const part of parts)
    for (const data of part) client.send({ realtimeInput: { audio: { data, mimeType: 'audio/pcm;rate=16000' } } });
  await server.waitFor(() => server.audio.length === target, 5000, 'the audio taken');
}

const speech = (ms: number): string[] => chunks('speech', ms, 16_000);
const silence = (ms: number): string[] => chunks('silence', ms, 16_000);
const voiceActivity = (client: RawSocket): unknown[] =>
  client.messages.flatMap((m) => (m.voiceActivity ? [m.voiceActivity] : []));

describe('fake gemini: automatic activity detection on the audio received', () => {
  it('natural settings (silenceDurationMs 800): a 700 ms pause is not a turn end; 900 ms of quiet is', async () => {
    const { client, server } = await setUp({ realtimeInputConfig: NATURAL });
    await send(client, server, speech(400), silence(700), speech(300));
    expect(server.userTurnEnds).toEqual([]);
    await send(client, server, silence(700));
    expect(server.userTurnEnds).toEqual([]);
    await send(client, server, silence(200));
    expect(server.userTurnEnds.map((e) => e.by)).toEqual(['detected']);
    // The quiet it counted (what a bench subtracts to see the client's share): its 800 ms window, at 2.2 s of audio received.
    expect(server.userTurnEnds[0]).toMatchObject({ quietSamples: 800 * 16, atSample: 2200 * 16 });
    // 3.8 reports where speech began and stopped on the audio clock (its audioOffset).
    await waitFor(() => voiceActivity(client).length === 2, 'voiceActivity start and end');
    expect(voiceActivity(client)).toEqual([
      { voiceActivityType: 'ACTIVITY_START', audioOffset: '0s' },
      { voiceActivityType: 'ACTIVITY_END', audioOffset: '1.4s' },
    ]);
  });

  it('counts the quiet from where speech stopped inside a chunk, not from the chunk boundary (its detector runs on the stream)', async () => {
    // The bridge's setup for natural patience: 800 ms, END_SENSITIVITY_LOW (speech kept down to RMS 75).
    const { client, server } = await setUp({
      realtimeInputConfig: {
        automaticActivityDetection: { silenceDurationMs: 800, endOfSpeechSensitivity: 'END_SENSITIVITY_LOW' },
      },
    });
    // A 100 ms chunk holding a word's last 20 ms and then 80 ms of quiet: loud over the whole chunk.
    const tail = new Int16Array(1600);
    tail.set(tone(20, { rate: 16_000, amplitude: 2000 }));
    await send(client, server, speech(400), [pcmToBase64(tail)], chunks('silence', 700, 16_000, 20));
    expect(server.userTurnEnds).toEqual([]);
    await send(client, server, chunks('silence', 20, 16_000, 20));
    // 80 + 720 ms of quiet since the word ended: the 800 ms window, not 800 ms after the chunk.
    expect(server.userTurnEnds).toEqual([{ by: 'detected', atSample: 1220 * 16, quietSamples: 800 * 16 }]);
    await waitFor(() => voiceActivity(client).length === 2, 'voiceActivity start and end');
    expect(voiceActivity(client)[1]).toEqual({ voiceActivityType: 'ACTIVITY_END', audioOffset: '0.42s' });
  });

  it('without a setting, the stated default window ends the turn', async () => {
    const { client, server } = await setUp({});
    await send(client, server, speech(300), silence(GEMINI_AAD_DEFAULTS.silenceDurationMs - 100));
    expect(server.userTurnEnds).toEqual([]);
    await send(client, server, silence(100));
    expect(server.userTurnEnds.map((e) => e.by)).toEqual(['detected']);
  });

  it('a pause the client sends no audio for is no pause to the service: the turn stays open', async () => {
    const { client, server } = await setUp({
      realtimeInputConfig: { automaticActivityDetection: { silenceDurationMs: 300 } },
    });
    await send(client, server, speech(400));
    // Nothing the service could count: wait several windows of wall time.
    await new Promise((r) => setTimeout(r, 1000));
    expect(server.userTurnEnds).toEqual([]);
    expect(server.userSpeaking).toBe(true);
    expect(voiceActivity(client)).toHaveLength(1);
  });

  it('audioStreamEnd flushes the turn in progress (and is nothing once the service ended it)', async () => {
    const { client, server } = await setUp({ realtimeInputConfig: NATURAL });
    await send(client, server, speech(400), silence(200));
    client.send({ realtimeInput: { audioStreamEnd: true } });
    await server.waitFor(() => server.audioStreamEnds === 1, 5000, 'the flush');
    expect(server.userTurnEnds.map((e) => e.by)).toEqual(['audioStreamEnd']);
    await send(client, server, speech(300), silence(900));
    client.send({ realtimeInput: { audioStreamEnd: true } });
    await server.waitFor(() => server.audioStreamEnds === 2, 5000, 'the second flush');
    expect(server.userTurnEnds.map((e) => e.by)).toEqual(['audioStreamEnd', 'detected']);
  });

  it('the auto-reply answers the turn the detection ended, once', async () => {
    const { client, server } = await setUp(
      { realtimeInputConfig: NATURAL },
      { autoReply: { toneMs: 100, transcript: 'Yes.' } },
    );
    await send(client, server, speech(400), silence(900));
    await waitFor(
      () => client.messages.some((m) => (m.serverContent as { turnComplete?: boolean } | undefined)?.turnComplete),
      'the reply',
    );
    client.send({ realtimeInput: { audioStreamEnd: true } });
    await server.waitFor(() => server.audioStreamEnds === 1, 5000, 'the flush');
    expect(server.replyTimings).toHaveLength(1);
  });

  it('sends voiceActivity on 3.8 only', async () => {
    const { client, server } = await setUp({ model: 'models/gemini-3.1-flash-live-preview' });
    await send(client, server, speech(300), silence(600));
    expect(server.userTurnEnds).toHaveLength(1);
    expect(voiceActivity(client)).toEqual([]);
  });

  it('end-of-speech sensitivity LOW keeps a murmur inside the turn; HIGH (the default) counts it as quiet', async () => {
    const murmur = chunks('speech', 600, 16_000).map(() =>
      Buffer.from(new Int16Array(1600).map((_, i) => Math.round(250 * Math.sin(i / 3))).buffer).toString('base64'),
    );
    const low = await setUp({
      realtimeInputConfig: {
        automaticActivityDetection: { silenceDurationMs: 500, endOfSpeechSensitivity: 'END_SENSITIVITY_LOW' },
      },
    });
    await send(low.client, low.server, speech(300), murmur);
    expect(low.server.userTurnEnds).toEqual([]);
    const high = await setUp({ realtimeInputConfig: { automaticActivityDetection: { silenceDurationMs: 500 } } });
    await send(high.client, high.server, speech(300), murmur);
    expect(high.server.userTurnEnds).toHaveLength(1);
  });

  it('prefixPaddingMs: speech shorter than it never opens a turn', async () => {
    const { client, server } = await setUp({
      realtimeInputConfig: { automaticActivityDetection: { prefixPaddingMs: 300, silenceDurationMs: 300 } },
    });
    await send(client, server, speech(200), silence(500));
    expect(voiceActivity(client)).toEqual([]);
    expect(server.userTurnEnds).toEqual([]);
    await send(client, server, speech(400), silence(300));
    expect(server.userTurnEnds).toHaveLength(1);
  });

  it('accepts the proto (snake_case) names and int32 as a string', async () => {
    const { client, server } = await setUp({
      realtime_input_config: {
        automatic_activity_detection: {
          silence_duration_ms: '800',
          start_of_speech_sensitivity: 'START_SENSITIVITY_LOW',
        },
      },
    });
    expect(client.messages.some((m) => 'setupComplete' in m)).toBe(true);
    expect(server.activity.window.silenceSamples).toBe(800 * 16);
  });

  it.each([
    ['a negative window', { automaticActivityDetection: { silenceDurationMs: -1 } }],
    ['a fraction of a ms', { automaticActivityDetection: { silenceDurationMs: 800.5 } }],
    ['an unknown sensitivity', { automaticActivityDetection: { endOfSpeechSensitivity: 'END_SENSITIVITY_MEDIUM' } }],
    ['an unknown field', { automaticActivityDetection: { silenceMs: 800 } }],
    ['an unknown activityHandling', { activityHandling: 'SOMETIMES' }],
  ])('refuses %s with 1007, as an invalid argument', async (_what, config) => {
    const { client, server } = await setUp({ realtimeInputConfig: config });
    expect((await client.closed).code).toBe(1007);
    expect(server.refusedFor).toMatch(/^invalid realtimeInputConfig/);
  });
});

describe('fake gemini: detection disabled', () => {
  const DISABLED = { realtimeInputConfig: { automaticActivityDetection: { disabled: true } } };

  it('only activityStart/activityEnd drive the turn; silence ends nothing and audioStreamEnd is ignored', async () => {
    const { client, server } = await setUp(DISABLED);
    client.send({ realtimeInput: { activityStart: {} } });
    await send(client, server, speech(400), silence(3000));
    client.send({ realtimeInput: { audioStreamEnd: true } });
    await server.waitFor(() => server.audioStreamEnds === 1, 5000, 'the ignored flush');
    expect(server.ignoredAudioStreamEnds).toBe(1);
    expect(server.userTurnEnds).toEqual([]);
    client.send({ realtimeInput: { activityEnd: {} } });
    await server.waitFor(() => server.userTurnEnds.length === 1, 5000, 'the turn end');
    expect(server.userTurnEnds[0]!.by).toBe('activityEnd');
    expect(voiceActivity(client)).toEqual([]);
  });

  it('refuses activityStart while automatic detection is on (1007)', async () => {
    const { client, server } = await setUp({});
    client.send({ realtimeInput: { activityStart: {} } });
    expect((await client.closed).code).toBe(1007);
    expect(server.refusedFor).toMatch(/automatic activity detection on/);
  });
});
