// The product side of `npm run bench:voice`, in its own process: the bridge's Discord voice adapter
// (real discord.js + @discordjs/voice) joins the fake's channel, counts the 20 ms PCM frames it
// delivers per speaker, and plays a continuous speech-like signal. It answers the parent's IPC
// requests with its counters and DAVE state; CPU and RSS are read by the parent from /proc.
import pino from 'pino';
import { z } from 'zod';
import { createDiscordVoice } from '../../main/core/voice/index.ts';
import { speechLike, toInt16Mono } from './speech-like.ts';

const Env = z.object({
  LVB_VOICE_TOKEN: z.string().min(1),
  LVB_VOICE_API: z.string().url(),
  LVB_VOICE_OWNER: z.string().min(1),
  LVB_VOICE_SPEAKERS: z.string().min(1),
});
const Request = z.object({ type: z.enum(['report', 'stop']) });

const env = Env.parse(process.env);
const speakers = env.LVB_VOICE_SPEAKERS.split(',');
const voice = createDiscordVoice({
  token: env.LVB_VOICE_TOKEN,
  ownerId: env.LVB_VOICE_OWNER,
  allowedSpeakers: speakers,
  apiBaseUrl: env.LVB_VOICE_API,
  logger: pino({ level: 'silent' }),
});
const framesDecoded: Record<string, number> = Object.fromEntries(speakers.map((id) => [id, 0]));
/** Per speaker: gaps longer than GAP_MS between consecutive decoded frames, as [from, to] wall-clock ms (the churn run compares them with what was sent). */
const GAP_MS = 100;
const gaps: Record<string, [number, number][]> = Object.fromEntries(speakers.map((id) => [id, []]));
const lastFrameAt: Record<string, number> = {};
voice.on('pcm', (speakerId) => {
  framesDecoded[speakerId] = (framesDecoded[speakerId] ?? 0) + 1;
  const now = Date.now();
  const last = lastFrameAt[speakerId];
  if (last !== undefined && now - last > GAP_MS) gaps[speakerId]?.push([last, now]);
  lastFrameAt[speakerId] = now;
});

// 10 s of speech-like audio, looped: every frame the bot sends is audible.
const loop = toInt16Mono(speechLike(48_000, 10, 7));
let offset = 0;
let framesPlayed = 0;
voice.startPlayback({
  readFrame(out) {
    framesPlayed += 1;
    for (let i = 0; i < out.length; i++) {
      out[i] = loop[offset]!;
      offset = (offset + 1) % loop.length;
    }
  },
});

const send = (message: unknown) => process.send?.(message);
process.on('message', (raw) => {
  const request = Request.safeParse(raw);
  if (!request.success) return;
  if (request.data.type === 'report')
    send({ type: 'report', framesDecoded, framesPlayed, gaps, dave: voice.daveStatus?.() ?? null, state: voice.state });
  else void voice.destroy().then(() => process.exit(0));
});

try {
  await voice.join();
  send({ type: 'joined', dave: voice.daveStatus?.() ?? null });
} catch (error) {
  send({ type: 'failed', reason: (error as Error).message });
  process.exit(1);
}
