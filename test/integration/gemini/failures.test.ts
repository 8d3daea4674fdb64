import { afterEach, describe, expect, it } from 'vitest';
import { createGeminiProvider } from '../../../main/core/model/index.ts';
import { startFakeGemini, tone, type FakeGemini } from '../../../main/fakes/gemini/index.ts';
import { captureLogger, fakeKey, startHarness, waitUntil, type Harness } from './helpers.ts';

let fake: FakeGemini | null = null;
let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
  await fake?.close();
  fake = null;
});

describe('gemini live: configuration errors', () => {
  it('a rejected key is a clear error after ONE attempt: no fallback walk, no retry storm, key not logged', async () => {
    const good = fakeKey('good');
    const bad = fakeKey('wrong');
    fake = await startFakeGemini({ validKeys: [good] });
    const { logger, lines } = captureLogger();
    const provider = createGeminiProvider({
      apiKey: bad,
      model: 'gemini-3.8-live',
      fallbackModels: ['gemini-3.1-flash-live-preview', 'gemini-2.5-flash-native-audio-preview-12-2025'],
      voice: 'Kore',
      baseUrl: fake.url,
      logger,
      backoff: { initialMs: 5, maxMs: 20, maxAttempts: 10 },
    });
    await expect(provider.connect({ tools: [] })).rejects.toThrow(/rejected the API key.*API key not valid/);
    await new Promise((r) => setTimeout(r, 300)); // a storm would show up here
    expect(fake.upgradeAttempts).toBe(1);
    expect(fake.connections[0]!.closeCode).toBe(1007);
    expect(lines.join('\n')).not.toContain(bad);
  });

  it('an unknown model falls through to the next fallback model', async () => {
    fake = await startFakeGemini();
    const provider = createGeminiProvider({
      apiKey: fakeKey(),
      model: 'gemini-9.9-live-nonexistent',
      fallbackModels: ['gemini-3.8-live'],
      voice: 'Puck',
      baseUrl: fake.url,
      logger: captureLogger().logger,
    });
    const session = await provider.connect({ tools: [] });
    try {
      expect(session.model).toBe('gemini-3.8-live');
      expect(session.state).toBe('connected');
      expect(fake.connections.map((c) => [c.model, c.closeCode])).toEqual([
        ['gemini-9.9-live-nonexistent', 1008],
        ['gemini-3.8-live', null],
      ]);
    } finally {
      await session.close();
    }
  });

  it('when no model is accepted, connect fails once per model with every reason', async () => {
    fake = await startFakeGemini({ models: ['gemini-3.8-live'] });
    const provider = createGeminiProvider({
      apiKey: fakeKey(),
      model: 'old-live-a',
      fallbackModels: ['old-live-b'],
      voice: 'Kore',
      baseUrl: fake.url,
      logger: captureLogger().logger,
    });
    await expect(provider.connect({ tools: [] })).rejects.toThrow(/no configured Gemini model.*old-live-a.*old-live-b/);
    await new Promise((r) => setTimeout(r, 200));
    expect(fake.upgradeAttempts).toBe(2);
  });
});

describe('gemini live: barge-in', () => {
  it('loud user audio during a reply stops it: interrupted, then turnComplete', async () => {
    h = await startHarness();
    const conn = await h.fake.connection(0);
    const rec = h.rec;
    const reply = conn.reply({ toneMs: 3000, paceMs: 20, transcript: 'a reply that will be cut off' });
    await waitUntil(() => rec.audio.length >= 3, 'reply under way');
    h.session.sendAudio(tone(20, { rate: 16_000, amplitude: 12_000 }));
    expect(await reply).toBe('interrupted');
    await waitUntil(() => rec.turnCompletes === 1, 'turnComplete after interruption');
    expect(rec.interrupted).toBe(1);
    expect(rec.order.slice(-2)).toEqual(['interrupted', 'turnComplete']);
    expect(rec.audioSamples).toBeLessThan(72_000);
  });
});
