// A new patience mid-call (setPatience on the session port, issue #52): the Realtime services take
// it at once as a session.update with only the turn detection (OpenAI, xAI); Gemini takes activity
// detection only in a setup, so the next socket's (a resume) carries it and nothing is sent before.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createGeminiProvider } from '../../../main/core/model/gemini/provider.ts';
import { createOpenAIRealtimeProvider } from '../../../main/core/model/openai/realtime/provider.ts';
import { createXaiProvider } from '../../../main/core/model/xai/provider.ts';
import { startFakeGemini } from '../../../main/fakes/gemini/index.ts';
import { startFakeOpenAIRealtime } from '../../../main/fakes/openai/index.ts';
import { startFakeXai } from '../../../main/fakes/xai/server.ts';
import { fakeKey } from '../gemini/helpers.ts';

const logger = pino({ level: 'silent' });
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => undefined);
});

async function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

type Json = Record<string, unknown>;

describe('setPatience mid-call', () => {
  it('OpenAI Realtime: semantic_vad eagerness follows at once; an explicit ms switches to server_vad', async () => {
    const key = fakeKey('patience-openai');
    const fake = await startFakeOpenAIRealtime({ validKeys: [key], autoReply: false });
    cleanup.push(() => fake.close());
    const provider = createOpenAIRealtimeProvider({
      apiKey: key,
      model: 'gpt-realtime-2.1',
      voice: 'marin',
      baseUrl: fake.url,
      logger,
    });
    const session = await provider.connect({ tools: [], patience: 'quick' });
    cleanup.push(() => session.close());
    const c = await fake.connection(0);
    const turnDetection = () => ((c.session.audio as Json).input as Json).turn_detection as Json;
    expect(turnDetection()).toMatchObject({ type: 'semantic_vad', eagerness: 'high' });
    session.setPatience('patient');
    await until(() => turnDetection().eagerness === 'low', 'eagerness low');
    session.setPatience(1500);
    await until(() => turnDetection().type === 'server_vad', 'server_vad');
    expect(turnDetection()).toMatchObject({ type: 'server_vad', silence_duration_ms: 1500 });
    expect(c.errors).toEqual([]);
  });

  it('xAI: server_vad silence_duration_ms follows at once', async () => {
    const key = fakeKey('patience-xai');
    const fake = await startFakeXai({ validKeys: [key], autoReply: false });
    cleanup.push(() => fake.close());
    const provider = createXaiProvider({
      apiKey: key,
      model: 'grok-voice-think-fast-1.0',
      voice: 'Ara',
      baseUrl: fake.url,
      logger,
    });
    const session = await provider.connect({ tools: [] });
    cleanup.push(() => session.close());
    const c = await fake.connection(0);
    expect(c.xaiSession.turn_detection).toMatchObject({ type: 'server_vad', silence_duration_ms: 800 });
    session.setPatience('patient');
    await until(
      () => (c.xaiSession.turn_detection as Json | null)?.silence_duration_ms === 1400,
      'silence_duration_ms 1400',
    );
    expect(c.errors).toEqual([]);
  });

  it('Gemini: nothing mid-session; the next setup (a resume) carries the new activity detection', async () => {
    const key = fakeKey('patience-gemini');
    const fake = await startFakeGemini({ validKeys: [key] });
    cleanup.push(() => fake.close());
    const provider = createGeminiProvider({
      apiKey: key,
      model: 'gemini-3.8-live',
      voice: 'Kore',
      baseUrl: fake.url,
      logger,
      backoff: { initialMs: 20, maxMs: 100 },
    });
    const session = await provider.connect({ tools: [], patience: 'natural' });
    cleanup.push(() => session.close());
    const first = await fake.connection(0);
    const aad = (setup: Json | null) =>
      ((setup?.config as Json | undefined)?.realtimeInputConfig as Json | undefined)?.automaticActivityDetection ??
      (setup?.realtimeInputConfig as Json | undefined)?.automaticActivityDetection;
    expect(aad(first.setup)).toMatchObject({ silenceDurationMs: 800, endOfSpeechSensitivity: 'END_SENSITIVITY_LOW' });
    const sentBefore = first.received.length;
    session.setPatience('quick');
    await new Promise((r) => setTimeout(r, 50));
    expect(first.received.length).toBe(sentBefore);
    first.resumptionUpdate();
    first.goAway(100, { closeAfter: true });
    const second = await fake.connection(1);
    await until(() => second.setup !== null, 'the resumed setup');
    expect(aad(second.setup)).toMatchObject({ silenceDurationMs: 500, endOfSpeechSensitivity: 'END_SENSITIVITY_HIGH' });
  });
});
