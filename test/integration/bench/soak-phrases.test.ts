// The soak's fake OpenAI models hear what the real adapters send: a pitch-coded phrase spoken into
// the OpenAI Realtime / GPT-Live provider (16 kHz, the voice gate's format; the adapters send it at
// 24 kHz) ends a user turn at the fake, whose shared phrase reader names the phrase; the reply and
// the input transcript it scripts reach the client. If the bench fakes lost the turn's audio, read it
// at the wrong rate, or never ended the turn, the phrase number (or the reply) would be wrong.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startBenchModel, type BenchModelFake, type BenchProvider } from '../../../bench/lib/model-fakes.ts';
import { createOpenAILiveProvider } from '../../../main/core/model/openai/live/provider.ts';
import { createOpenAIRealtimeProvider } from '../../../main/core/model/openai/realtime/provider.ts';
import type { LiveModelSession } from '../../../main/core/ports.ts';
import { transcribePhrase } from '../../../main/fakes/shared/phrases.ts';
import { phrase16k, until } from './soak-signals.ts';

const logger = pino({ level: 'silent' });

function connect(provider: BenchProvider, fake: BenchModelFake): Promise<LiveModelSession> {
  const env = fake.env();
  const common = {
    apiKey: env.OPENAI_API_KEY!,
    fallbackModels: [],
    voice: 'marin',
    logger,
    backoff: { initialMs: 20, maxMs: 100, maxAttempts: 3 },
    replyWaitMs: 200,
  };
  const built =
    provider === 'openai-realtime'
      ? createOpenAIRealtimeProvider({
          ...common,
          model: env.OPENAI_REALTIME_MODEL!,
          baseUrl: env.OPENAI_REALTIME_BASE_URL,
        })
      : createOpenAILiveProvider({ ...common, model: env.OPENAI_LIVE_MODEL!, baseUrl: env.OPENAI_LIVE_BASE_URL });
  return built.connect({ tools: [], systemInstruction: 'soak' });
}

describe('soak phrases through the OpenAI adapters', () => {
  let cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
    cleanup = [];
  });

  for (const provider of ['openai-realtime', 'openai-live'] as const) {
    it(`${provider}: the fake reads phrases 3 and 9 back and its replies reach the client`, async () => {
      const fake = await startBenchModel(provider, { bargeInRms: null });
      cleanup.push(() => fake.close());
      const heard: number[] = [];
      fake.onUserTurn((turn) => {
        const k = transcribePhrase(turn.pcm, turn.rate);
        heard.push(k);
        turn.respond({ toneMs: 200, transcript: `reply to phrase ${k}`, inputTranscript: `phrase ${k}` });
      });
      const session = await connect(provider, fake);
      cleanup.push(() => session.close());
      const inputs: string[] = [];
      const outputs: string[] = [];
      let turns = 0;
      session.on('inputTranscript', (t) => inputs.push(t));
      session.on('outputTranscript', (t) => outputs.push(t));
      session.on('turnComplete', () => turns++);

      for (const [n, k] of [3, 9].entries()) {
        const pcm = phrase16k(k);
        for (let at = 0; at < pcm.length; at += 640) {
          session.sendAudio(pcm.slice(at, at + 640));
          await new Promise((r) => setTimeout(r, 2));
        }
        // The gate's quiet hangover, then its close (GPT-Live hears the end of speech in the silence).
        for (let q = 0; q < 15; q++) session.sendAudio(new Int16Array(640));
        session.endAudioInput();
        await until(() => turns >= n + 1, `reply to phrase ${k}`);
      }
      expect(heard).toEqual([3, 9]);
      expect(outputs.join('')).toBe('reply to phrase 3reply to phrase 9');
      expect(inputs.join('')).toContain('phrase 3');
      expect(inputs.join('')).toContain('phrase 9');
    });
  }
});
