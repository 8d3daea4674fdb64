// What bench:voice's runs share: the product in a child process (bench/lib/voice-bot.ts) talking over
// IPC (validated with zod), and the fake speakers' speech-like utterances.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { seededRandom, type startFakeDiscord } from '../../main/fakes/discord/index.ts';
import { monoToStereo, speechLike, toInt16Mono } from './speech-like.ts';

const BOT = fileURLToPath(new URL('./voice-bot.ts', import.meta.url));

const DaveStatusSchema = z
  .object({
    protocol_version: z.number().nullable(),
    transitions: z.number(),
    decrypt_failures: z.number(),
    recoveries: z.number(),
    rejoins: z.number(),
    rebuilds: z.number(),
    epoch: z.number().nullable(),
    speakers: z
      .array(z.object({ recoveries: z.object({ resubscribe: z.number(), rebuild: z.number(), rejoin: z.number() }) }))
      .optional(),
  })
  .nullable();
export const BotMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('joined'), dave: DaveStatusSchema }),
  z.object({ type: z.literal('failed'), reason: z.string() }),
  z.object({
    type: z.literal('report'),
    framesDecoded: z.record(z.string(), z.number()),
    framesPlayed: z.number(),
    gaps: z.record(z.string(), z.array(z.tuple([z.number(), z.number()]))).optional(),
    dave: DaveStatusSchema,
    state: z.string(),
  }),
]);
export type BotMessage = z.infer<typeof BotMessage>;

export function startBot(env: Record<string, string>): {
  child: ChildProcess;
  next: (type: BotMessage['type']) => Promise<BotMessage>;
} {
  const child = fork(BOT, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting: { type: string; resolve: (m: BotMessage) => void }[] = [];
  child.on('message', (raw) => {
    const parsed = BotMessage.safeParse(raw);
    if (!parsed.success) return;
    const index = waiting.findIndex((w) => w.type === parsed.data.type || parsed.data.type === 'failed');
    if (index >= 0) waiting.splice(index, 1)[0]!.resolve(parsed.data);
  });
  const next = (type: BotMessage['type']) =>
    new Promise<BotMessage>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`voice bot: no ${type} message`)), 30_000);
      waiting.push({ type, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  return { child, next };
}

/**
 * One utterance: 3.8 s of speech-like audio over a microphone's noise floor (±2 LSB, so pauses between
 * words are not digital silence), then 0.2 s of digital silence, which the speaker sends as Opus
 * silence frames (never encrypted): about 5 % of the frames pass through.
 */
export function utterance(seed: number): Int16Array {
  const random = seededRandom(seed);
  const speech = monoToStereo(toInt16Mono(speechLike(48_000, 3.8, seed).map((v) => v + (random() * 4 - 2))));
  const out = new Int16Array(speech.length + 2 * 48_000 * 0.2);
  out.set(speech);
  return out;
}

export async function speakFor(
  fake: Awaited<ReturnType<typeof startFakeDiscord>>,
  userId: string,
  untilMs: number,
  seed: number,
): Promise<void> {
  let n = 0;
  while (performance.now() < untilMs)
    await fake.speak(userId, utterance(seed + n++), { seed: seed + n, silenceTail: n % 4 === 0 });
}
