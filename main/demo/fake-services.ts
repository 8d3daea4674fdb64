// The fake side of a simulated call: fake Discord (owner already in voice) and the fake live models
// (Gemini Live, OpenAI Realtime, GPT-Live, xAI Grok Voice) on loopback, plus the fake owner's voice.
// Runs in the test or benchmark process (startSimulatedCall) or in the demo's child process
// (fakes-process.ts), so the demo's own process holds the core alone.
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.ts';
import { KNOWN_LIVE_MODELS, startFakeGemini, type AutoReplyOptions, type FakeGemini } from '../fakes/gemini/index.ts';
import {
  KNOWN_GPT_LIVE_MODELS,
  KNOWN_REALTIME_MODELS,
  startFakeOpenAILive,
  startFakeOpenAIRealtime,
  type FakeOpenAILive,
  type FakeOpenAIRealtime,
} from '../fakes/openai/index.ts';
import { KNOWN_XAI_MODELS, startFakeXai, type FakeXai } from '../fakes/xai/server.ts';
import { answerAbout } from '../fakes/shared/model-answers.ts';
import { SpeechScript, type ScriptedListening } from '../fakes/shared/scripted-speech.ts';
import { CAST, PERSON_KEYS, type PersonKey } from './demo-script.ts';

/** The fake model's answer to speech that is not scripted (speechLikeSignal: no words in it to transcribe). */
export const DEMO_MODEL_REPLY = 'Hi! I can hear you clearly. This whole call is simulated on your machine.';

/**
 * How the fake models listen by default: scripted sentences are transcribed and answered from
 * their words; other speech (a speech-like signal) is "(N ms of speech)" and gets DEMO_MODEL_REPLY.
 */
export function scriptedListening(script: SpeechScript): Required<ScriptedListening> {
  const unscripted = / ms of speech\)$/;
  return {
    transcribe: (pcm, rate) =>
      script.transcribe(pcm, rate) || `(${Math.round((pcm.length / rate) * 1000)} ms of speech)`,
    stream: (rate) => script.streaming(rate),
    answer: (heard) => (unscripted.test(heard) ? DEMO_MODEL_REPLY : answerAbout(heard)),
  };
}

export interface FakeServicesOptions {
  /** The fake model answers speech and injected text by itself (default: a short reply with transcripts). */
  autoReply?: AutoReplyOptions | false;
  /** RMS of user audio that makes the fake model stop its reply (barge-in). Default the fake's own. */
  bargeInRms?: number | null;
  /** Add the fake voice gateway's test CA to this process's trust store (the core runs here). Default true. */
  trustCertificates?: boolean;
  /** Only these Gemini keys are accepted (default: any non-empty key, the fake's default). */
  geminiValidKeys?: readonly string[];
  /** Give the simulated people their server nicknames (demo-script.ts CAST); default false (the fake's usernames). */
  nicknames?: boolean;
}

/** What the core needs to reach the fakes; plain data, so it crosses a process boundary as JSON. */
export interface FakeServicesInfo {
  discordApiBaseUrl: string;
  botToken: string;
  ownerId: string;
  textChannelId: string;
  geminiUrl: string;
  geminiModel: string;
  openaiUrl: string;
  openaiModel: string;
  openaiLiveUrl: string;
  openaiLiveModel: string;
  xaiUrl: string;
  xaiModel: string;
  /** PEM file of the fake voice gateway's test CA: a core in another process must trust it. */
  caPath: string;
  /** The simulated people (demo-script.ts CAST): their Discord ids and the names the bot shows. */
  people: { key: PersonKey; id: string; name: string }[];
}

export interface FakeServices {
  discord: FakeDiscord;
  gemini: FakeGemini;
  /** The fake OpenAI Realtime service (always running, so a call can switch to it). */
  openai: FakeOpenAIRealtime;
  /** The fake GPT-Live service (always running too). */
  openaiLive: FakeOpenAILive;
  /** The fake xAI Grok Voice service (always running too). */
  xai: FakeXai;
  info: FakeServicesInfo;
  /** The sentences the simulated people say, as the fake models transcribe them. */
  script: SpeechScript;
  /** The owner says something (a speech-like signal) of the given length. */
  ownerSpeaks(seconds: number): Promise<void>;
  /** `who` says `sentence` (scripted speech the fake models transcribe back to it). */
  say(who: PersonKey, sentence: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A speech-like test signal at 48 kHz stereo: a voiced harmonic series (≈ 140 Hz fundamental with a
 * slow pitch glide) shaped by a syllable envelope of about 4 Hz, loud enough to open the voice gate.
 */
export function speechLikeSignal(seconds: number, amplitude = 6000): Int16Array {
  const frames = Math.round(48_000 * seconds);
  const pcm = new Int16Array(frames * 2);
  let phase = 0;
  for (let i = 0; i < frames; i++) {
    const t = i / 48_000;
    const f0 = 140 + 25 * Math.sin(2 * Math.PI * 0.7 * t);
    phase += (2 * Math.PI * f0) / 48_000;
    const syllables = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * t);
    const edges = Math.min(1, t / 0.02, (seconds - t) / 0.02);
    let v = 0;
    for (let h = 1; h <= 8; h++) v += Math.sin(h * phase) / h;
    pcm[2 * i] = pcm[2 * i + 1] = Math.round(amplitude * 0.5 * syllables * edges * v);
  }
  return pcm;
}

export async function startFakeServices(options: FakeServicesOptions = {}): Promise<FakeServices> {
  const discord = await startFakeDiscord({
    ownerInVoice: true,
    ...(options.trustCertificates === false ? { trustCertificates: false } : {}),
  });
  const script = new SpeechScript();
  const autoReply = options.autoReply ?? { ...scriptedListening(script), toneMs: 1800 };
  const gemini = await startFakeGemini({
    autoReply,
    ...(options.geminiValidKeys ? { validKeys: options.geminiValidKeys } : {}),
    ...(options.bargeInRms !== undefined ? { bargeInRms: options.bargeInRms } : {}),
  });
  // The same answers from every provider's fake (a scripted transcript, or the fixed one given).
  const sameReply = autoReply
    ? {
        transcript: autoReply.transcript,
        inputTranscript: autoReply.inputTranscript,
        transcribe: autoReply.transcribe,
        answer: autoReply.answer,
        toneMs: autoReply.toneMs,
      }
    : false;
  const openai = await startFakeOpenAIRealtime({ autoReply: sameReply });
  const openaiLive = await startFakeOpenAILive({ autoReply: sameReply });
  const xai = await startFakeXai({ autoReply: sameReply });
  const people = PERSON_KEYS.map((key) => {
    const user = discord.user(CAST[key].user);
    if (options.nicknames) user.nick = CAST[key].name;
    return { key, id: user.id, name: CAST[key].name };
  });
  return {
    discord,
    gemini,
    openai,
    openaiLive,
    xai,
    info: {
      discordApiBaseUrl: discord.apiBaseUrl,
      botToken: discord.botToken,
      ownerId: discord.owner.id,
      textChannelId: discord.textChannelId,
      geminiUrl: gemini.url,
      geminiModel: KNOWN_LIVE_MODELS[0],
      openaiUrl: openai.url,
      openaiModel: KNOWN_REALTIME_MODELS[0],
      openaiLiveUrl: openaiLive.url,
      openaiLiveModel: KNOWN_GPT_LIVE_MODELS[0],
      xaiUrl: xai.url,
      xaiModel: KNOWN_XAI_MODELS[0],
      caPath: discord.caPath,
      people,
    },
    script,
    async ownerSpeaks(seconds: number) {
      await discord.speak(discord.owner.id, speechLikeSignal(seconds));
    },
    async say(who, sentence) {
      await discord.speak(people.find((p) => p.key === who)!.id, script.utterance(sentence));
    },
    async close() {
      await gemini.close().catch(() => undefined);
      await openai.close().catch(() => undefined);
      await openaiLive.close().catch(() => undefined);
      await xai.close().catch(() => undefined);
      await discord.close().catch(() => undefined);
    },
  };
}
