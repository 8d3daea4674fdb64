// The three model fakes apply the services' published timing BY DEFAULT (issue #44 item 3,
// main/fakes/shared/service-timing.ts): session setup, first audio after the service's end of turn,
// and audio delivered faster than real time. Measured on the fake's own clock: vitest's fake
// timers drive the fakes' timers and Date, so "nothing before the modelled delay, the message
// exactly at it" is checked on what the fake itself sent (its `sent` record), whatever the load.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeGemini, type FakeGemini } from '../../../main/fakes/gemini/index.ts';
import {
  startFakeOpenAILive,
  startFakeOpenAIRealtime,
  type FakeOpenAILive,
  type FakeOpenAIRealtime,
} from '../../../main/fakes/openai/index.ts';
import { pcmToBase64, tone } from '../../../main/fakes/shared/pcm.ts';
import { SERVICE_TIMING } from '../../../main/fakes/shared/service-timing.ts';

const KEY = 'fake-timing-test-key';
const CHUNK_MS = 40;

let fake: FakeGemini | FakeOpenAIRealtime | FakeOpenAILive | null = null;
let client: WebSocket | null = null;
afterEach(async () => {
  vi.useRealTimers();
  client?.terminate();
  client = null;
  await fake?.close();
  fake = null;
});

/** Fake only the timers and the clock the fakes schedule with; sockets keep running for real. */
function fakeClock(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
}

/** Lets real socket I/O run (setImmediate is not faked) until `predicate` holds. */
async function ioUntil(predicate: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 20_000; i++) {
    if (predicate()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function open(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  const ws = new WebSocket(url, { headers });
  client = ws;
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

const count = (sent: readonly Record<string, unknown>[], match: (m: Record<string, unknown>) => boolean): number =>
  sent.filter(match).length;

/**
 * Advances the fake clock to 1 ms before `ms`, checks `sentCount` has not moved, then to `ms`,
 * checks it moved by one: the event came exactly after the modelled delay, on the fake's clock.
 */
async function arrivesAfter(ms: number, sentCount: () => number): Promise<void> {
  const before = sentCount();
  await vi.advanceTimersByTimeAsync(ms - 1);
  expect(sentCount()).toBe(before);
  await vi.advanceTimersByTimeAsync(1);
  expect(sentCount()).toBe(before + 1);
}

/** 20 ms frames: `loudMs` of tone, then `quietMs` of silence, at `rate`. */
function speech(loudMs: number, quietMs: number, rate: number): Int16Array[] {
  const frames: Int16Array[] = [];
  for (let t = 0; t < loudMs; t += 20) frames.push(tone(20, { rate, amplitude: 12_000 }));
  for (let t = 0; t < quietMs; t += 20) frames.push(new Int16Array((rate * 20) / 1000));
  return frames;
}

describe('the model fakes model the services’ timing by default', () => {
  it('gemini: setupComplete after setupMs, first audio firstAudioAfterTurnEndMs after audioStreamEnd, chunks every chunk/factor', async () => {
    const timing = SERVICE_TIMING.gemini;
    const gemini = await startFakeGemini({ autoReply: { toneMs: 400 } });
    fake = gemini;
    const ws = await open(
      `ws://127.0.0.1:${gemini.port}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=${KEY}`,
    );
    fakeClock();
    ws.send(JSON.stringify({ setup: { model: 'models/gemini-3.8-live' } }));
    await ioUntil(
      () => gemini.connections[0]?.setupDelayMs !== null && gemini.connections[0]?.setupDelayMs !== undefined,
      'the setup to arrive',
    );
    const connection = gemini.connections[0]!;
    expect(connection.setupDelayMs).toBe(timing.setupMs);
    await arrivesAfter(timing.setupMs, () => count(connection.sent, (m) => 'setupComplete' in m));

    for (const frame of speech(300, 0, 16_000))
      ws.send(
        JSON.stringify({ realtimeInput: { audio: { data: pcmToBase64(frame), mimeType: 'audio/pcm;rate=16000' } } }),
      );
    ws.send(JSON.stringify({ realtimeInput: { audioStreamEnd: true } }));
    await ioUntil(() => connection.audioStreamEnds === 1, 'audioStreamEnd');
    const audio = (): number =>
      count(connection.sent, (m) => (m.serverContent as { modelTurn?: unknown } | undefined)?.modelTurn !== undefined);
    await arrivesAfter(timing.firstAudioAfterTurnEndMs, audio);
    await arrivesAfter(CHUNK_MS / timing.deliveryRealtimeFactor, audio);
    expect(connection.replyTimings[0]).toMatchObject({
      firstAudioDelayMs: timing.firstAudioAfterTurnEndMs,
      chunkMs: CHUNK_MS,
      paceMs: CHUNK_MS / timing.deliveryRealtimeFactor,
    });
  });

  it('openai-realtime: session.created after setupMs, first audio delta firstAudioAfterTurnEndMs after server VAD’s speech_stopped, deltas every chunk/factor', async () => {
    const timing = SERVICE_TIMING['openai-realtime'];
    const realtime = await startFakeOpenAIRealtime({ autoReply: { toneMs: 400 } });
    fake = realtime;
    fakeClock();
    const ws = await open(`${realtime.url}/realtime?model=gpt-realtime-2`, { Authorization: `Bearer ${KEY}` });
    await ioUntil(
      () => realtime.connections[0]?.setupDelayMs !== null && realtime.connections[0]?.setupDelayMs !== undefined,
      'the socket',
    );
    const connection = realtime.connections[0]!;
    expect(connection.setupDelayMs).toBe(timing.setupMs);
    await arrivesAfter(timing.setupMs, () => count(connection.sent, (m) => m.type === 'session.created'));

    // The default session: server VAD, 500 ms of silence ends the turn (the documented default, counted in samples).
    for (const frame of speech(300, 600, 24_000))
      ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: pcmToBase64(frame) }));
    await ioUntil(() => connection.sent.some((m) => m.type === 'input_audio_buffer.speech_stopped'), 'speech_stopped');
    // The response exists at once; its audio waits for the service's latency.
    expect(count(connection.sent, (m) => m.type === 'response.created')).toBe(1);
    const deltas = (): number => count(connection.sent, (m) => m.type === 'response.output_audio.delta');
    await arrivesAfter(timing.firstAudioAfterTurnEndMs, deltas);
    await arrivesAfter(CHUNK_MS / timing.deliveryRealtimeFactor, deltas);
    expect(connection.replyTimings[0]).toMatchObject({
      firstAudioDelayMs: timing.firstAudioAfterTurnEndMs,
      paceMs: CHUNK_MS / timing.deliveryRealtimeFactor,
    });
  });

  it('openai-live: session.started after setupMs, first audio firstAudioAfterTurnEndMs after the user’s turn ends, deltas every chunk/factor', async () => {
    const timing = SERVICE_TIMING['openai-live'];
    const live = await startFakeOpenAILive({ autoReply: { toneMs: 400 } });
    fake = live;
    const ws = await open(`${live.url}/live/sessions`, { Authorization: `Bearer ${KEY}` });
    await ioUntil(() => live.connections.length === 1, 'the socket');
    const connection = live.connections[0]!;
    fakeClock();
    ws.send(
      JSON.stringify({
        type: 'session.start',
        session: { model: 'gpt-live-1.1', audio: { format: { type: 'audio/pcm', rate: 24000 } } },
      }),
    );
    await ioUntil(() => connection.setupDelayMs !== null, 'session.start');
    expect(connection.setupDelayMs).toBe(timing.setupMs);
    await arrivesAfter(timing.setupMs, () => count(connection.sent, (m) => m.type === 'session.started'));

    // GPT-Live's fake ends the user's turn after 500 ms of quiet (counted in samples).
    let turns = 0;
    connection.on('userTurn', () => turns++);
    for (const frame of speech(300, 520, 24_000))
      ws.send(JSON.stringify({ type: 'session.input_audio.append', audio: pcmToBase64(frame) }));
    await ioUntil(() => turns === 1, 'the end of the user turn');
    const deltas = (): number => count(connection.sent, (m) => m.type === 'session.output_audio.delta');
    await arrivesAfter(timing.firstAudioAfterTurnEndMs, deltas);
    await arrivesAfter(CHUNK_MS / timing.deliveryRealtimeFactor, deltas);
    expect(connection.replyTimings[0]).toMatchObject({
      firstAudioDelayMs: timing.firstAudioAfterTurnEndMs,
      paceMs: CHUNK_MS / timing.deliveryRealtimeFactor,
    });
  });

  it('each figure stays overridable: 0 setup and 0 first-audio latency answer at once', async () => {
    const gemini = await startFakeGemini({
      autoReply: { toneMs: 200 },
      setupDelayMs: 0,
      firstAudioAfterTurnEndMs: 0,
      deliveryRealtimeFactor: 4,
    });
    fake = gemini;
    const ws = await open(
      `ws://127.0.0.1:${gemini.port}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=${KEY}`,
    );
    ws.send(JSON.stringify({ setup: { model: 'models/gemini-3.8-live' } }));
    const connection = await gemini.connection(0);
    expect(connection.setupDelayMs).toBe(0);
    for (const frame of speech(200, 0, 16_000))
      ws.send(
        JSON.stringify({ realtimeInput: { audio: { data: pcmToBase64(frame), mimeType: 'audio/pcm;rate=16000' } } }),
      );
    ws.send(JSON.stringify({ realtimeInput: { audioStreamEnd: true } }));
    await ioUntil(() => connection.replyTimings.length === 1, 'the reply');
    expect(connection.replyTimings[0]).toMatchObject({ firstAudioDelayMs: 0, paceMs: CHUNK_MS / 4 });
  });
});
