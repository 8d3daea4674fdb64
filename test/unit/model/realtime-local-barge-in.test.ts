// A local barge-in reaches OpenAI Realtime even while the service's own turn detection holds the
// user's turn open (semantic_vad waits up to its eagerness cap through the bridge's paced silence,
// so speech over the reply brings no new `speech_started`): the session's `bargedIn` cancels the
// reply and truncates its item at what was played, once.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIRealtimeProvider } from '../../../main/core/model/openai/realtime/provider.ts';
import { startFakeOpenAIRealtime } from '../../../main/fakes/openai/index.ts';
import { chirpMono } from '../../integration/bridge/signals.ts';
import { fakeKey } from '../../integration/gemini/helpers.ts';

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

/** 20 ms frames of 16 kHz mono as the voice gate hands them: a loud square wave (speech to the fake's RMS detector), or silence. */
const SPEECH = new Int16Array(320).map((_, i) => (i % 40 < 20 ? 8000 : -8000));
const QUIET = new Int16Array(320);

describe('OpenAI Realtime: local barge-in while the service holds the user turn open', () => {
  it('bargedIn() cancels the reply and truncates it at what was played; later speech cuts nothing more', async () => {
    const key = fakeKey('realtime-local-barge-in');
    const fake = await startFakeOpenAIRealtime({ validKeys: [key], autoReply: false });
    cleanup.push(() => fake.close());
    let playedMs = 0;
    const provider = createOpenAIRealtimeProvider({
      apiKey: key,
      model: 'gpt-realtime-2.1',
      voice: 'marin',
      baseUrl: fake.url,
      logger,
    });
    // semantic_vad (the default), eagerness medium: the fake ends a turn with no final cue after 4 s of quiet.
    const session = await provider.connect({ tools: [], patience: 'natural', playedMs: () => playedMs });
    cleanup.push(() => session.close());
    const c = await fake.connection(0);
    let interrupted = 0;
    let emittedSamples = 0;
    session.on('interrupted', () => interrupted++);
    session.on('audio', (pcm: Int16Array) => (emittedSamples += pcm.length));

    // The user speaks, then pauses: the service heard speech start and keeps the turn open.
    const started = new Promise<void>((resolve) => c.once('speechStarted', () => resolve()));
    for (let f = 0; f < 15; f++) session.sendAudio(SPEECH);
    await started;
    for (let f = 0; f < 10; f++) session.sendAudio(QUIET);

    // A reply plays (the service may answer while its turn is open: a tool result, a text); the user talks over it.
    const outcome = c.reply({ pcm: chirpMono(2, 300, 600, 24_000, 12_000), chunkMs: 20, paceMs: 10 });
    await until(() => emittedSamples >= 24_000 * 0.4, 'the reply to be under way');
    for (let f = 0; f < 10; f++) session.sendAudio(SPEECH);
    playedMs = 240; // what the bridge's player had handed out when it cut (frozen there)
    session.bargedIn?.();
    // Before the cancel's response.done: a second cut of the same reply (as a speech_started would be) sends nothing.
    session.bargedIn?.();
    await outcome;
    await until(() => c.truncations.length > 0, 'the truncate', 3000);

    expect(c.cancels).toBe(1);
    expect(c.truncations).toEqual([{ item_id: expect.any(String), audio_end_ms: 240 }]);
    expect(interrupted).toBe(1);

    // More speech and another local cut after the reply ended: nothing more is cancelled or truncated.
    for (let f = 0; f < 10; f++) session.sendAudio(SPEECH);
    session.bargedIn?.();
    await new Promise((r) => setTimeout(r, 100));
    expect(c.cancels).toBe(1);
    expect(c.truncations).toHaveLength(1);
    expect(interrupted).toBe(1);
    expect(c.errors).toEqual([]);
  });
});
