// Continuous playback pulled from a PlaybackSource on the player's own 20 ms clock. The resource
// is an object-mode stream of ready Opus packets (no prism transcoding graph)
// whose `_read` asks the source for exactly one 20 ms frame and encodes it. highWaterMark 0: no
// frame is read ahead, the player's read() pulls and encodes synchronously, so a flush of the source
// (barge-in) or a reply's first chunk is on the wire one player cycle later (the library prepares
// each packet a cycle before sending it; with a one-frame read-ahead it was two). The source always
// fills (silence when empty), so the player never misses frames and never goes Idle mid-call.
import { Readable } from 'node:stream';
import {
  AudioPlayerStatus,
  AudioResource,
  createAudioPlayer,
  NoSubscriberBehavior,
  type AudioPlayer,
  type VoiceConnection,
} from '@discordjs/voice';
import type { Logger } from 'pino';
import { FRAME_SAMPLES_48K, type PlaybackSource } from '../ports.ts';
import type { OpusFactory, OpusMonoEncoder } from './opus.ts';

/** Silence frames the player sends after a resource ends (createAudioResource's default). */
const SILENCE_PADDING_FRAMES = 5;
/** The Opus silence frame: sent (never E2EE-encrypted, as Discord's clients do) while audio may not go out. */
const OPUS_SILENCE = Buffer.from([0xf8, 0xff, 0xfe]);

/** Reads one frame per `_read` and encodes it (mono, see OpusMonoEncoder); never ends on its own. */
class PulledOpusStream extends Readable {
  #source: PlaybackSource;
  #codec: OpusMonoEncoder;
  #mayPlay: () => boolean;
  /** The source's frame (48 kHz stereo, the PlaybackSource contract) and its mono downmix, both reused. */
  #frame = new Int16Array(FRAME_SAMPLES_48K * 2);
  #mono = new Int16Array(FRAME_SAMPLES_48K);
  #monoBytes = Buffer.from(this.#mono.buffer);

  constructor(source: PlaybackSource, codec: OpusMonoEncoder, mayPlay: () => boolean) {
    super({ objectMode: true, highWaterMark: 0 });
    this.#source = source;
    this.#codec = codec;
    this.#mayPlay = mayPlay;
  }

  override _read(): void {
    try {
      this.push(this.encodeNext());
    } catch (error) {
      this.destroy(error as Error);
    }
  }

  /**
   * Pull the source's next 20 ms frame and encode it. The caller prepares (and DAVE-encrypts) the
   * packet in the same synchronous step, so the gate's answer still holds when the packet is sealed;
   * while it says no, the source is not read (the reply waits instead of leaking or being dropped).
   */
  encodeNext(): Buffer {
    if (!this.#mayPlay()) return OPUS_SILENCE;
    const frame = this.#frame;
    const mono = this.#mono;
    this.#source.readFrame(frame);
    // L and R are the same model voice; a sound effect mixed in may differ: average (never clips).
    for (let i = 0, j = 0; i < mono.length; i++, j += 2) mono[i] = (frame[j]! + frame[j + 1]!) >> 1;
    return this.#codec.encode(this.#monoBytes);
  }
}

/**
 * Drop the packet the library prepared (and sealed) for its next cycle. After a stop it would
 * otherwise be the first packet of the next playback: a stale frame of the previous reply, sealed
 * under whatever E2EE state held back then (plain, if that was during a downgrade).
 */
export function discardPreparedPacket(connection: VoiceConnection | null): void {
  const state = connection?.state;
  if (!state || !('networking' in state)) return;
  const networking = state.networking.state;
  if ('preparedPacket' in networking) networking.preparedPacket = undefined;
}

export class ContinuousPlayback {
  readonly player: AudioPlayer;
  #opus: OpusFactory;
  #codec: OpusMonoEncoder | null = null;
  #stream: PulledOpusStream | null = null;
  #resource: AudioResource | null = null;
  #log: Logger;
  #mayPlay: () => boolean;

  /** `mayPlay`: whether audio may leave now (false while Discord's E2EE group is not ready). */
  constructor(opus: OpusFactory, logger: Logger, mayPlay: () => boolean = () => true) {
    this.#opus = opus;
    this.#log = logger;
    this.#mayPlay = mayPlay;
    // Pause while no connection is Ready (reconnects): the source is not drained meanwhile.
    this.player = createAudioPlayer({ behaviors: { noSubscriber: NoSubscriberBehavior.Pause, maxMissedFrames: 50 } });
    this.player.on('error', (error) => {
      this.#log.warn({ err: error }, 'voice playback failed');
      this.#release();
    });
  }

  get playing(): boolean {
    return this.#resource !== null && this.player.state.status !== AudioPlayerStatus.Idle;
  }

  /**
   * `connection`: when given, the first packet goes out as soon as the player's first cycle has
   * prepared it, not one 20 ms cycle later (a reply restarting a stopped player).
   */
  start(source: PlaybackSource, connection?: VoiceConnection | null): void {
    this.stop();
    // A fresh encoder per start: Opus encoder state from the previous stream would leak into the new one.
    this.#codec = this.#opus.createMonoEncoder();
    this.#stream = new PulledOpusStream(source, this.#codec, this.#mayPlay);
    // The resource directly, not createAudioResource(): for any input type that builds the library's
    // transcoding graph once per process, and building it probes for FFmpeg with spawnSync (`ffmpeg
    // -h`, then avconv and more on failure): 90 ms measured with no FFmpeg installed, in which the
    // event loop stood still, at the first join. Ready Opus packets need no graph (no edges).
    this.#resource = new AudioResource([], [this.#stream], null, SILENCE_PADDING_FRAMES);
    const resource = this.#resource;
    // The player's first cycle runs on an immediate queued by play() (after the stream turned
    // readable): it prepares the reply's first frame for the cycle after. Send that packet right
    // behind it instead. The source is still read once per 20 ms cycle (reading a frame ahead here
    // made the third frame race the model's second chunk); the next cycle finds nothing prepared,
    // so the first packet is simply up to 20 ms early, well inside a receiver's jitter buffer.
    if (connection) {
      this.player.once(AudioPlayerStatus.Playing, () => {
        setImmediate(() => {
          if (this.#resource === resource) connection.dispatchAudio();
        });
      });
    }
    this.player.play(this.#resource);
  }

  /**
   * Barge-in without stopping: the player prepared (encoded and encrypted) its next packet a cycle
   * ago; replace it now with the source's next frame (the barge-in fade), so the interrupted speech
   * never reaches the wire. Overwriting the prepared packet is what @discordjs/voice's docs warn
   * about (that packet is lost): here losing it is the point. Sequence numbers and timestamps are
   * assigned when a packet is sent, so the receiver sees no gap.
   */
  flush(connection: VoiceConnection): void {
    if (!this.#stream || this.player.state.status !== AudioPlayerStatus.Playing) return;
    connection.prepareAudioPacket(this.#stream.encodeNext());
    // And send it now rather than at the next tick: a packet up to 20 ms early is well inside any
    // receiver's jitter buffer, and the next tick simply finds nothing prepared to send.
    connection.dispatchAudio();
  }

  /** Immediate stop (barge-in): no trailing padding frames; the one queued frame is dropped. */
  stop(): void {
    if (!this.#resource) return;
    this.player.stop(true);
    this.#release();
  }

  #release(): void {
    this.#stream?.destroy();
    this.#codec?.destroy();
    this.#stream = null;
    this.#codec = null;
    this.#resource = null;
  }
}
