// Continuous playback: one Opus packet per 20 ms slot, pulled from a PlaybackSource, encoded and sent
// through the connection's own packet API (prepareAudioPacket + dispatchAudio: RTP header, E2EE,
// transport encryption, the speaking flag) in one synchronous step.
//
// Why not @discordjs/voice's AudioPlayer: its global cycle is a timer of its own that wakes the
// process every 20 ms, prepares each packet a cycle before sending it, and reads through an object-
// mode stream and an immediate per cycle. On the machines measured, each wake-up costs 100-250 µs
// of CPU before any work (docs/performance.md), and in a call the player's timer fired a few ms
// apart from wake-ups the call had anyway (a model chunk arriving, a speaker's packet). Here a slot
// may be sent at any wake-up within its own 20 ms period (`poke`), so while chunks or packets flow
// they carry the sends and the timer only fires when nothing else woke the process. When the timer
// does fire and the next frame is already buffered (the end of a reply, which the model sends faster
// than real time), that frame goes out in the same wake-up (after its I/O, so a barge-in read then
// fades it), one period early: the slot timer then wakes every 40 ms instead of 20 while a reply
// plays out of the buffer. A packet is never late and never more than one period early (two for a barge-in's fade), which a receiver's jitter buffer
// absorbs (it plays by RTP timestamp; sequence numbers and timestamps are assigned as each packet
// goes, so early packets leave no gap).
import type { Logger } from 'pino';
import { VoiceConnectionStatus, type VoiceConnection } from '@discordjs/voice';
import { FRAME_SAMPLES_48K, type PlaybackSource } from '../ports.ts';
import { OPUS_SILENCE_FRAME, type OpusFactory, type OpusMonoEncoder } from './opus.ts';

/** true: play; false: hold the source (send silence); 'discard': read the source and drop it (send silence). */
export type PlayGate = boolean | 'discard';

/** One Opus frame: what @discordjs/voice's RTP timestamps assume (960 samples at 48 kHz). */
const SLOT_MS = 20;

/**
 * Reads one frame per call and encodes it (mono, as the source gives it: the model speaks mono).
 * One per connection, its codec reset at each stream's start rather than made anew (opus.ts `reset`).
 */
class FrameEncoder {
  #source: PlaybackSource | null = null;
  readonly #codec: OpusMonoEncoder;
  /** The source's frame (48 kHz mono, the PlaybackSource contract), reused; the encoder reads its bytes. */
  #frame = new Int16Array(FRAME_SAMPLES_48K);
  #frameBytes = Buffer.from(this.#frame.buffer);

  constructor(codec: OpusMonoEncoder) {
    this.#codec = codec;
  }

  get active(): boolean {
    return this.#source !== null;
  }

  /** Begin a stream from `source`: Opus state from the previous stream would leak into this one. */
  begin(source: PlaybackSource): void {
    this.#source = source;
    this.#codec.reset();
  }

  end(): void {
    this.#source = null;
  }

  /** Whether the frame after the one just read is already buffered at the source. */
  hasFrameAhead(): boolean {
    return (this.#source?.framesAhead?.() ?? 0) > 0;
  }

  /** Read the next frame and throw it away: audio for a room nobody is in any more. */
  skipNext(): void {
    this.#source!.readFrame(this.#frame);
  }

  /** After dropped audio: the encoder's memory of it must not reach the next listener. */
  resetCodec(): void {
    this.#codec.reset();
  }

  encodeNext(): Buffer {
    this.#source!.readFrame(this.#frame);
    return this.#codec.encode(this.#frameBytes);
  }

  destroy(): void {
    this.#source = null;
    this.#codec.destroy();
  }
}

export class ContinuousPlayback {
  readonly #connection: VoiceConnection;
  readonly #log: Logger;
  readonly #mayPlay: () => PlayGate;
  readonly #now: () => number;
  readonly #encoder: FrameEncoder;
  #timer: NodeJS.Timeout | null = null;
  /** When the next slot is due (ms on #now); it may go out anywhere in (due - SLOT_MS, due]. */
  #due = 0;
  /** The last slot dropped its frame (an emptied room). */
  #discarding = false;

  /**
   * `mayPlay`: whether audio may leave now (false while Discord's E2EE group is not ready: held),
   * or `'discard'`: everyone left the room, so what the source holds is read and dropped, never
   * kept for whoever comes back (it would play a reply to a room that no longer exists).
   */
  constructor(
    opus: OpusFactory,
    logger: Logger,
    connection: VoiceConnection,
    mayPlay: () => PlayGate = () => true,
    now: () => number = () => performance.now(),
  ) {
    this.#encoder = new FrameEncoder(opus.createMonoEncoder());
    this.#log = logger;
    this.#connection = connection;
    this.#mayPlay = mayPlay;
    this.#now = now;
  }

  get playing(): boolean {
    return this.#encoder.active;
  }

  /** Start (or restart) pulling from `source`: the first packet goes out now, then one per 20 ms slot. */
  start(source: PlaybackSource): void {
    this.stop();
    // A fresh encoder per start: Opus encoder state from the previous stream would leak into the new one.
    this.#encoder.begin(source);
    this.#due = this.#now();
    this.#sendSlot();
  }

  /**
   * A wake-up that can carry the next packet: send it now if its slot has begun (at most one
   * period early), else leave it to the timer. `urgent` (barge-in: the fade frame must replace the
   * speech now) also sends a slot that has not begun yet, at most two periods early: the current
   * slot may already have gone out early on a model chunk's wake-up.
   */
  poke(urgent = false): void {
    if (this.#encoder.active && this.#now() > this.#due - (urgent ? 2 * SLOT_MS : SLOT_MS)) this.#sendSlot();
  }

  /** Immediate stop: the speaking flag goes off; nothing is left prepared. */
  stop(): void {
    if (!this.#encoder.active) return;
    this.#clearTimer();
    this.#encoder.end();
    if (this.#connection.state.status === VoiceConnectionStatus.Ready) this.#connection.setSpeaking(false);
  }

  /** The connection is gone: stop, and free the encoder (opusscript's lives in its wasm heap). */
  close(): void {
    this.stop();
    this.#encoder.destroy();
  }

  #sendSlot(): void {
    const encoder = this.#encoder;
    // Not connected (a reconnect): the slot passes without reading the source, so nothing the
    // model says is consumed unheard; the clock keeps running and playback resumes once Ready.
    const gate = this.#mayPlay();
    if (gate === 'discard') encoder.skipNext();
    else if (this.#discarding) encoder.resetCodec();
    this.#discarding = gate === 'discard';
    if (this.#connection.state.status === VoiceConnectionStatus.Ready) {
      try {
        // Prepared and sealed in the same synchronous step as the E2EE check, so its answer still holds.
        const packet = gate === true ? encoder.encodeNext() : OPUS_SILENCE_FRAME;
        this.#connection.prepareAudioPacket(packet);
        this.#connection.dispatchAudio();
      } catch (error) {
        this.#log.warn({ err: error }, 'voice playback failed');
        this.stop();
        return;
      }
    }
    this.#due += SLOT_MS;
    this.#arm();
  }

  #arm(): void {
    // A fresh Timeout per slot, as @discordjs/voice's cycle had: Node can re-arm a Timeout only
    // with its original duration (refresh()), and the delay here is the time left to the slot.
    this.#clearTimer();
    // After a stall the schedule is behind: a slot per wake-up (two when the next is buffered), 1 ms
    // apart, until caught up (as @discordjs/voice's cycle does), so the receiver gets the audio
    // rather than a skip.
    this.#timer = setTimeout(this.#onTimer, Math.max(1, Math.ceil(this.#due - this.#now())));
  }

  /** Nothing else woke the process within this slot's period: send it, and the next if it is ready. */
  readonly #onTimer = (): void => {
    this.#timer = null;
    if (!this.#encoder.active) return;
    this.#sendSlot();
    // The next slot goes in this wake-up too, but after its I/O (an immediate runs after the poll
    // phase): Node runs expired timers before it reads sockets, so a speaker's packet that came
    // while the process was busy is read after this callback. Sent here, the early frame would be
    // the reply, already on the wire when that packet's barge-in fades it out (one frame more of
    // the reply heard: barge-in-local.test.ts under load); sent after the I/O, it is the fade.
    if (this.#encoder.hasFrameAhead()) setImmediate(this.#sendAhead);
  };

  /** The timer's second send, after its wake-up's I/O: skipped when a poke already sent that slot. */
  readonly #sendAhead = (): void => {
    if (this.#encoder.hasFrameAhead() && this.#now() >= this.#due - SLOT_MS) this.#sendSlot();
  };

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
