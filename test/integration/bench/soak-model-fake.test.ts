// The day soak's fake model answers what the real services answer by default:
// - a turn said while it still answers someone else (Gemini's START_OF_ACTIVITY_INTERRUPTS cuts the
//   reply; the turn is then answered). With barge-in off, the fake ignored such a turn and the soak
//   counted the speaker's word as lost (short run 12: a guest's reply still playing when the owner spoke);
// - a text turn (a /say, an /ask, a voice reminder): with no answer to text, a CLI /say was "spoken"
//   only when someone happened to speak within 30 s (the next reply was taken as its reply), else
//   dropped (short runs 11 and 12: 3 of 7 each).
// The real Gemini provider talks to the soak's own fake (soakModelOptions).
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startBenchModel, type BenchModelFake } from '../../../bench/lib/model-fakes.ts';
import { soakModelOptions } from '../../../bench/lib/soak-call.ts';
import { createGeminiProvider } from '../../../main/core/model/index.ts';
import type { LiveModelSession } from '../../../main/core/ports.ts';
import { transcribePhrase } from '../../../main/fakes/shared/phrases.ts';
import { phrase16k, until } from './soak-signals.ts';

const logger = pino({ level: 'silent' });

/** A phrase in 20 ms chunks at about real time, then the quiet that ends the turn at the service. */
async function say(session: LiveModelSession, k: number): Promise<void> {
  const pcm = phrase16k(k);
  for (let at = 0; at < pcm.length; at += 320) {
    session.sendAudio(pcm.slice(at, at + 320));
    await new Promise((r) => setTimeout(r, 5));
  }
  for (let q = 0; q < 60; q++) {
    session.sendAudio(new Int16Array(320));
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('the soak fake model', () => {
  let cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
    cleanup = [];
  });

  async function soakFake(): Promise<BenchModelFake> {
    const fake = await startBenchModel('gemini', soakModelOptions({ rotateS: 0, deadlineS: 0 }));
    cleanup.push(() => fake.close());
    return fake;
  }

  async function connect(fake: BenchModelFake): Promise<LiveModelSession> {
    const env = fake.env();
    const session = await createGeminiProvider({
      apiKey: env.GEMINI_API_KEY!,
      model: env.GEMINI_MODEL!,
      baseUrl: env.GEMINI_LIVE_BASE_URL!,
      voice: 'Kore',
      logger,
      backoff: { initialMs: 20, maxMs: 200, maxAttempts: 3 },
    }).connect({ tools: [], systemInstruction: 'soak' });
    cleanup.push(() => session.close());
    return session;
  }

  it('gemini: a text turn is answered with audio and the words of the text', async () => {
    const fake = await soakFake();
    const texts: string[] = [];
    fake.onTextTurn!((turn) => {
      texts.push(turn.text);
      void turn.respond({ toneMs: 300, paceMs: 5, transcript: `said: ${turn.text}`, inputTranscript: '' });
    });
    const session = await connect(fake);
    let audioChunks = 0;
    const outputs: string[] = [];
    session.on('audio', () => audioChunks++);
    session.on('outputTranscript', (t) => outputs.push(t));
    session.sendText('the build is green');
    await until(() => outputs.join('').includes('the build is green'), 'the reply to the text');
    // The session's own wording around it (model/injected-text.ts): one turn, carrying the text.
    expect(texts).toHaveLength(1);
    expect(texts[0]).toContain('the build is green');
    expect(audioChunks).toBeGreaterThan(0);
  });

  it('gemini: the reply to phrase 3 is cut by phrase 9 said over it, and phrase 9 is answered', async () => {
    const fake = await soakFake();
    const heard: number[] = [];
    const outcomes: string[] = [];
    fake.onUserTurn((turn) => {
      const k = transcribePhrase(turn.pcm, turn.rate);
      heard.push(k);
      // The first reply is long and paced at real time, so the second phrase lands inside it.
      const reply = turn.respond({
        toneMs: k === 3 ? 8000 : 300,
        paceMs: k === 3 ? 40 : 5,
        transcript: `reply ${k}`,
        inputTranscript: `phrase ${k}`,
      });
      void reply?.done.then((o) => outcomes.push(`${k}:${o}`));
    });
    const session = await connect(fake);
    let audioChunks = 0;
    let interrupted = 0;
    session.on('audio', () => audioChunks++);
    session.on('interrupted', () => interrupted++);

    await say(session, 3);
    await until(() => audioChunks > 0, 'the reply to phrase 3 begins');
    await say(session, 9);
    await until(() => heard.length >= 2, 'phrase 9 taken as a turn');
    expect(heard).toEqual([3, 9]);
    await until(() => outcomes.length >= 2, 'both replies end');
    expect(outcomes).toEqual(['3:interrupted', '9:complete']);
    expect(interrupted).toBe(1);
  });
});
