// The library floor (issue 51 item 6): the least a Discord ↔ Gemini Live voice bridge built on the
// libraries this project uses can cost. A bare script, none of our code: the gateway by hand over
// `ws` (hello, identify, heartbeat, op 4), `@discordjs/voice` for the voice connection (its DAVE
// session, UDP, RTP, receive and player), `@discordjs/opus` to decode, prism-media's Opus encoder
// behind the library's raw-PCM player, and `ws` to the model. In between only the naive part any
// bridge needs: each speaker packet decoded (48 kHz stereo), averaged to mono and decimated 3:1 to
// 16 kHz without a filter, sent in 100 ms `realtimeInput` messages (Google's 50-100 ms; the core
// sends 100 ms too) and `audioStreamEnd` when the library's receive stream ends after 100 ms of
// silence; the model's 24 kHz audio doubled sample by sample to 48 kHz stereo and played; a reply
// cut (`interrupted`) stops the player. No gate, mixer, resampler filter, echo test or buffer policy.
//
// Started by bench/lib/library-floor-call.ts as its own process (fakes in the bench's process), so
// its CPU from /proc is the floor's alone. Configuration in env (LVB_FLOOR_*); prints `READY` once
// the voice connection is Ready and the model's setup complete. Runs with Node's defaults (no
// start-up options), Opus at the libraries' defaults (48 kHz stereo both ways).
import { createAudioPlayer, createAudioResource, EndBehaviorType, joinVoiceChannel, StreamType, VoiceConnectionStatus, entersState, type DiscordGatewayAdapterLibraryMethods } from '@discordjs/voice';
import opus from '@discordjs/opus';
import { PassThrough } from 'node:stream';
import WebSocket from 'ws';
import { reportGcTo } from './lib/idle-watch.ts';
import { decimationFactor, downmixDecimate, upsampleToStereo } from './lib/library-floor-pcm.ts';

const env = (name: string): string => {
  const value = process.env[`LVB_FLOOR_${name}`];
  if (!value) throw new Error(`LVB_FLOOR_${name} is not set`);
  return value;
};
const [GATEWAY, TOKEN, GUILD, CHANNEL, OWNER, MODEL_URL, MODEL] = ['GATEWAY', 'TOKEN', 'GUILD', 'CHANNEL', 'OWNER', 'MODEL_URL', 'MODEL'].map(env) as [string, string, string, string, string, string, string];
const CHUNK_SAMPLES = 1600; // 100 ms at 16 kHz
/** Gemini Live's rates: 16 kHz in (48 / 3), 24 kHz out (× 2). */
const INPUT_FACTOR = decimationFactor(16_000);
const OUTPUT_FACTOR = decimationFactor(24_000);
// Measurement only: GC events on stdout, so the bench can wait for V8's settling pass before the call
// (bench/lib/idle-watch.ts); the observer runs only when a GC has happened.
reportGcTo(process.stdout);
// Exit on SIGTERM (the bench's stop) through process.exit, so a --cpu-prof run writes its profile.
process.on('SIGTERM', () => process.exit(0));

// --- the model --------------------------------------------------------------------------------
const model = new WebSocket(MODEL_URL);
const modelReady = new Promise<void>((resolve, reject) => {
  model.once('open', () => model.send(JSON.stringify({ setup: { model: `models/${MODEL}`, generationConfig: { responseModalities: ['AUDIO'] } } })));
  model.once('close', (code, reason) => reject(new Error(`model closed ${code} ${reason.toString()}`)));
  model.on('message', (raw) => {
    const message = JSON.parse(raw.toString()) as { setupComplete?: object; serverContent?: { modelTurn?: { parts?: { inlineData?: { data: string } }[] }; interrupted?: boolean; turnComplete?: boolean } };
    if (message.setupComplete) resolve();
    const content = message.serverContent;
    if (!content) return;
    for (const part of content.modelTurn?.parts ?? []) if (part.inlineData) play(Buffer.from(part.inlineData.data, 'base64'));
    if (content.interrupted) cutReply();
    if (content.turnComplete) endReply();
  });
});

// One chunk buffer, reused: sendAudio turns it into base64 before it is written again.
const pending = new Int16Array(CHUNK_SAMPLES);
let pendingLength = 0;
function sendAudio(samples: Int16Array): void {
  model.send(JSON.stringify({ realtimeInput: { audio: { data: Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64'), mimeType: 'audio/pcm;rate=16000' } } }));
}
/** 48 kHz stereo → 16 kHz mono (bench/lib/library-floor-pcm.ts: L + R averaged, every third frame, no low-pass). */
function heard(stereo: Buffer): void {
  pendingLength = downmixDecimate(new Int16Array(stereo.buffer, stereo.byteOffset, stereo.byteLength >> 1), INPUT_FACTOR, pending, pendingLength, sendAudio);
}
function speechEnded(): void {
  if (pendingLength > 0) sendAudio(pending.subarray(0, pendingLength));
  pendingLength = 0;
  model.send(JSON.stringify({ realtimeInput: { audioStreamEnd: true } }));
}

// --- playback -----------------------------------------------------------------------------------
const player = createAudioPlayer({ behaviors: { maxMissedFrames: 50 } });
let reply: PassThrough | null = null;
/** 24 kHz mono → 48 kHz stereo (bench/lib/library-floor-pcm.ts: each sample four times, two frames of L = R). */
function play(mono24k: Buffer): void {
  if (!reply) {
    reply = new PassThrough({ highWaterMark: 1 << 20 });
    player.play(createAudioResource(reply, { inputType: StreamType.Raw }));
  }
  const output = upsampleToStereo(new Int16Array(mono24k.buffer, mono24k.byteOffset, mono24k.byteLength >> 1), OUTPUT_FACTOR);
  reply.write(Buffer.from(output.buffer));
}
function endReply(): void {
  reply?.end();
  reply = null;
}
function cutReply(): void {
  endReply();
  player.stop(true);
}

// --- the gateway and the voice connection --------------------------------------------------------
const decoder = new opus.OpusEncoder(48_000, 2);
let adapter: DiscordGatewayAdapterLibraryMethods | null = null;
let botId = '';
let sequence: number | null = null;
const gateway = new WebSocket(`${GATEWAY}/?v=10&encoding=json`);
gateway.on('message', (raw) => {
  const message = JSON.parse(raw.toString()) as { op: number; s: number | null; t: string | null; d: Record<string, unknown> };
  if (message.s !== null) sequence = message.s;
  if (message.op === 10) {
    setInterval(() => gateway.send(JSON.stringify({ op: 1, d: sequence })), Number(message.d.heartbeat_interval));
    gateway.send(JSON.stringify({ op: 2, d: { token: TOKEN, intents: 1 | 128, properties: { os: 'linux', browser: 'library-floor', device: 'library-floor' } } }));
  }
  if (message.op !== 0) return;
  if (message.t === 'READY') botId = String((message.d.user as { id: string }).id);
  if (message.t === 'GUILD_CREATE') void join();
  if (message.t === 'VOICE_STATE_UPDATE' && message.d.user_id === botId) adapter?.onVoiceStateUpdate(message.d as never);
  if (message.t === 'VOICE_SERVER_UPDATE') adapter?.onVoiceServerUpdate(message.d as never);
});

async function join(): Promise<void> {
  const connection = joinVoiceChannel({
    guildId: GUILD,
    channelId: CHANNEL,
    selfDeaf: false,
    selfMute: false,
    daveEncryption: true,
    adapterCreator: (methods) => {
      adapter = methods;
      return { sendPayload: (payload) => (gateway.send(JSON.stringify(payload)), true), destroy: () => (adapter = null) };
    },
  });
  await entersState(connection, VoiceConnectionStatus.Ready, 20_000);
  connection.subscribe(player);
  let listening = false;
  const listen = (): void => {
    if (listening) return;
    listening = true;
    const stream = connection.receiver.subscribe(OWNER, { end: { behavior: EndBehaviorType.AfterSilence, duration: 100 } });
    stream.on('data', (packet: Buffer) => heard(decoder.decode(packet)));
    stream.once('end', () => {
      listening = false;
      speechEnded();
    });
  };
  connection.receiver.speaking.on('start', (userId) => userId === OWNER && listen());
  await modelReady;
  process.stdout.write('READY\n');
}
