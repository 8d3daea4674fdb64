// The library floor (issue 51 item 6): the least a Discord ↔ live model voice bridge built on the
// libraries this project uses can cost (LVB_FLOOR_PROVIDER: gemini, openai-realtime, openai-live). A bare script, none of our code: the gateway by hand over
// `ws` (hello, identify, heartbeat, op 4), `@discordjs/voice` for the voice connection (its DAVE
// session, UDP, RTP, receive and player), `@discordjs/opus` to decode, prism-media's Opus encoder
// behind the library's raw-PCM player, and `ws` to the model. In between only the naive part any
// bridge needs: each speaker packet decoded (48 kHz stereo), averaged to mono and decimated to the
// provider's input rate without a filter (3:1 to Gemini's 16 kHz, 2:1 to OpenAI's 24 kHz), sent in
// 100 ms audio messages of its protocol (Google's 50-100 ms; the core sends 100 ms too), and the end
// of the user's audio when the library's receive stream ends after 100 ms of silence (Gemini:
// `audioStreamEnd`; OpenAI: paced digital silence for its detector, bench/lib/library-floor-models.ts);
// the model's 24 kHz audio doubled sample by sample to 48 kHz stereo and played; the service's
// barge-in signal stops the player. No gate, mixer, resampler filter, echo test or buffer policy.
//
// Started by bench/lib/library-floor-call.ts as its own process (fakes in the bench's process), so
// its CPU from /proc is the floor's alone. Configuration in env (LVB_FLOOR_*); prints `READY` once
// the voice connection is Ready and the model's setup complete. Runs with Node's defaults (no
// start-up options), Opus at the libraries' defaults (48 kHz stereo both ways).
import {
  createAudioPlayer,
  createAudioResource,
  EndBehaviorType,
  joinVoiceChannel,
  StreamType,
  VoiceConnectionStatus,
  entersState,
  type DiscordGatewayAdapterLibraryMethods,
} from '@discordjs/voice';
import opus from '@discordjs/opus';
import { PassThrough } from 'node:stream';
import WebSocket from 'ws';
import { reportGcTo } from './lib/idle-watch.ts';
import { decimationFactor, downmixDecimate, upsampleToStereo } from './lib/library-floor-pcm.ts';
import { connectFloorModel } from './lib/library-floor-models.ts';
import type { BenchProvider } from './lib/model-fakes.ts';

const env = (name: string): string => {
  const value = process.env[`LVB_FLOOR_${name}`];
  if (!value) throw new Error(`LVB_FLOOR_${name} is not set`);
  return value;
};
const [GATEWAY, TOKEN, GUILD, CHANNEL, OWNER, MODEL_URL, MODEL, KEY] = [
  'GATEWAY',
  'TOKEN',
  'GUILD',
  'CHANNEL',
  'OWNER',
  'MODEL_URL',
  'MODEL',
  'KEY',
].map(env) as [string, string, string, string, string, string, string, string];
// Checked here rather than with model-fakes.ts's parser, which would load the fakes' modules into the floor's memory.
const FLOOR_PROVIDERS: readonly BenchProvider[] = ['gemini', 'openai-realtime', 'openai-live'];
const PROVIDER = FLOOR_PROVIDERS.find((p) => p === env('PROVIDER'));
if (!PROVIDER) throw new Error(`LVB_FLOOR_PROVIDER ${env('PROVIDER')}: use ${FLOOR_PROVIDERS.join(', ')}`);
// Measurement only: GC events on stdout, so the bench can wait for V8's settling pass before the call
// (bench/lib/idle-watch.ts); the observer runs only when a GC has happened.
reportGcTo(process.stdout);
// Exit on SIGTERM (the bench's stop) through process.exit, so a --cpu-prof run writes its profile.
process.on('SIGTERM', () => process.exit(0));

// --- the model (bench/lib/library-floor-models.ts: the provider's own messages over `ws`) -------------
let speaking = false;
const model = connectFloorModel(PROVIDER, MODEL_URL, KEY, MODEL, {
  play,
  endReply,
  cutReply,
  userSpeaking: () => speaking,
});
const INPUT_FACTOR = decimationFactor(model.inputRate);
const OUTPUT_FACTOR = decimationFactor(model.outputRate);
// One 100 ms chunk buffer, reused: the model side turns it into base64 before it is written again.
const pending = new Int16Array(model.inputRate / 10);
let pendingLength = 0;
/** 48 kHz stereo → mono at the model's rate (bench/lib/library-floor-pcm.ts: L + R averaged, every 3rd or 2nd frame, no low-pass). */
function heard(stereo: Buffer): void {
  pendingLength = downmixDecimate(
    new Int16Array(stereo.buffer, stereo.byteOffset, stereo.byteLength >> 1),
    INPUT_FACTOR,
    pending,
    pendingLength,
    model.sendAudio,
  );
}
function speechEnded(): void {
  if (pendingLength > 0) model.sendAudio(pending.subarray(0, pendingLength));
  pendingLength = 0;
  model.speechEnded();
}

// --- playback -----------------------------------------------------------------------------------
const player = createAudioPlayer({ behaviors: { maxMissedFrames: 50 } });
let reply: PassThrough | null = null;
/** The model's 24 kHz mono → 48 kHz stereo (bench/lib/library-floor-pcm.ts: each sample four times, two frames of L = R). */
function play(mono24k: Buffer): void {
  if (!reply) {
    reply = new PassThrough({ highWaterMark: 1 << 20 });
    player.play(createAudioResource(reply, { inputType: StreamType.Raw }));
  }
  const output = upsampleToStereo(
    new Int16Array(mono24k.buffer, mono24k.byteOffset, mono24k.byteLength >> 1),
    OUTPUT_FACTOR,
  );
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
  const message = JSON.parse(raw.toString()) as {
    op: number;
    s: number | null;
    t: string | null;
    d: Record<string, unknown>;
  };
  if (message.s !== null) sequence = message.s;
  if (message.op === 10) {
    setInterval(() => gateway.send(JSON.stringify({ op: 1, d: sequence })), Number(message.d.heartbeat_interval));
    gateway.send(
      JSON.stringify({
        op: 2,
        d: {
          token: TOKEN,
          intents: 1 | 128,
          properties: { os: 'linux', browser: 'library-floor', device: 'library-floor' },
        },
      }),
    );
  }
  if (message.op !== 0) return;
  if (message.t === 'READY') botId = String((message.d.user as { id: string }).id);
  if (message.t === 'GUILD_CREATE') void join();
  if (message.t === 'VOICE_STATE_UPDATE' && message.d.user_id === botId)
    adapter?.onVoiceStateUpdate(message.d as never);
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
      return {
        sendPayload: (payload) => (gateway.send(JSON.stringify(payload)), true),
        destroy: () => (adapter = null),
      };
    },
  });
  await entersState(connection, VoiceConnectionStatus.Ready, 20_000);
  connection.subscribe(player);
  let listening = false;
  const listen = (): void => {
    if (listening) return;
    listening = true;
    speaking = true;
    model.speechStarted();
    const stream = connection.receiver.subscribe(OWNER, {
      end: { behavior: EndBehaviorType.AfterSilence, duration: 100 },
    });
    stream.on('data', (packet: Buffer) => heard(decoder.decode(packet)));
    stream.once('end', () => {
      listening = false;
      speaking = false;
      speechEnded();
    });
  };
  connection.receiver.speaking.on('start', (userId) => userId === OWNER && listen());
  await model.ready;
  process.stdout.write('READY\n');
}
