// GPT-Live has no turn events: the adapter ends a turn after `turnGapMs` without model audio. It
// used to poll for that every 50 ms for as long as the model talked (20 wake-ups a second); it now
// sets one timer for the moment the gap would be complete and moves it only when that moment
// comes and audio arrived meanwhile. Here a 2-second reply arrives in 40 ms deltas: the turn still
// ends (turnComplete, once), with a handful of turn timers instead of about forty.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock, type TimerClock } from '../../../main/core/contracts/clock.ts';
import { createOpenAILiveProvider } from '../../../main/core/model/openai/live/provider.ts';
import type { LiveModelSession } from '../../../main/core/ports.ts';
import { startFakeOpenAILive } from '../../../main/fakes/openai/index.ts';
import { fakeKey } from '../gemini/helpers.ts';

async function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('GPT-Live turn end', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
    cleanup.length = 0;
  });

  it('ends the turn after the quiet gap without polling while the model talks', async () => {
    const key = fakeKey('live-turn');
    const fake = await startFakeOpenAILive({ validKeys: [key], autoReply: false });
    cleanup.push(() => fake.close());
    let timersSet = 0;
    const clock: TimerClock = {
      now: () => systemClock.now(),
      setTimeout: (fn, ms) => {
        timersSet++;
        return systemClock.setTimeout(fn, ms);
      },
      clearTimeout: (handle) => systemClock.clearTimeout(handle),
    };
    const provider = createOpenAILiveProvider({
      apiKey: key,
      model: 'gpt-live-1.1',
      fallbackModels: [],
      voice: 'marin',
      baseUrl: fake.url,
      logger: pino({ level: 'silent' }),
      backoff: { initialMs: 20, maxMs: 100, maxAttempts: 3 },
      clock,
    });
    const session: LiveModelSession = await provider.connect({ tools: [] });
    cleanup.push(() => session.close());
    const connection = await fake.connection(0);
    let deltas = 0;
    let turnsComplete = 0;
    session.on('audio', () => {
      if (deltas++ === 0) timersSet = 0; // count from the turn's first audio
    });
    session.on('turnComplete', () => turnsComplete++);

    expect(await connection.reply({ toneMs: 2000, chunkMs: 40, paceMs: 40 })).toBe('completed');
    await until(() => turnsComplete === 1, 'turnComplete');
    expect(deltas).toBe(50);
    // The gap is 700 ms: one timer at the turn's start and one more per 700 ms of audio, about 4.
    expect(timersSet).toBeLessThanOrEqual(6);
    expect(turnsComplete).toBe(1);
  });
});
