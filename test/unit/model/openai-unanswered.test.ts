// What the OpenAI-shaped sessions (OpenAI Realtime and xAI on the Realtime wire, GPT-Live) hand the
// model link when they give up (issue #55), as Gemini's do (gemini-unanswered.test.ts): the user's
// speech no service answered, as copies, in order, `null` for each end of speech, once; nothing
// once the model answered it. Against each provider's fake, through the session contract only.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveModelSession } from '../../../main/core/ports.ts';
import {
  openaiLiveAdapter,
  openaiRealtimeAdapter,
  xaiAdapter,
  type FakeService,
  type ProviderAdapter,
} from '../../conformance/adapters.ts';
import { fakeKey, until } from '../../conformance/harness.ts';

const logger = pino({ level: 'silent' });
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => undefined);
});

async function connected(adapter: ProviderAdapter): Promise<{ fake: FakeService; session: LiveModelSession }> {
  const key = fakeKey(`unanswered-${adapter.name}`);
  const fake = await adapter.start({ autoReply: false, validKeys: [key] });
  cleanup.push(() => fake.close());
  const session = await fake.provider({ apiKey: key, logger }).connect({ tools: [] });
  cleanup.push(() => session.close());
  return { fake, session };
}

/** 20 ms chunks of 16 kHz mono, chunk i filled with `first + i`: order and content are checkable. */
function utterance(first: number, chunks: number): Int16Array[] {
  return Array.from({ length: chunks }, (_, i) => new Int16Array(320).fill(first + i));
}

for (const adapter of [openaiRealtimeAdapter, xaiAdapter, openaiLiveAdapter]) {
  describe(`${adapter.name}: takeUnanswered`, () => {
    it('hands over the speech the service has not answered: copies, in order, null at each end, once', async () => {
      const { fake, session } = await connected(adapter);
      const c = await fake.connection(0);
      const first = utterance(100, 10);
      const second = utterance(200, 5);
      for (const pcm of first) session.sendAudio(pcm);
      session.endAudioInput();
      for (const pcm of second) session.sendAudio(pcm);
      session.endAudioInput();
      await c.waitFor(() => c.inputPcm().length > 0, 'the speech at the service');

      const taken = session.takeUnanswered!();
      expect(taken.map((chunk) => (chunk ? chunk[0] : null))).toEqual([
        ...first.map((pcm) => pcm[0]),
        null,
        ...second.map((pcm) => pcm[0]),
        null,
      ]);
      // Copies: the caller's buffers may be reused, what was taken stays as it was said.
      first[0]!.fill(0);
      expect(taken[0]).not.toBe(first[0]);
      expect(taken[0]).toEqual(new Int16Array(320).fill(100));
      // Taken once: a second call has nothing.
      expect(session.takeUnanswered!()).toEqual([]);
    });

    it('nothing once the model answered it', async () => {
      const { fake, session } = await connected(adapter);
      const c = await fake.connection(0);
      let heard = 0;
      session.on('audio', (pcm) => (heard += pcm.length));
      for (const pcm of utterance(1, 10)) session.sendAudio(pcm);
      session.endAudioInput();
      await c.waitFor(() => c.inputPcm().length > 0, 'the speech at the service');
      await c.reply({ transcript: 'I heard you.', toneMs: 200 });
      await until(() => heard > 0, 'the answer');
      expect(session.takeUnanswered!()).toEqual([]);
    });
  });
}
