// Two stages of the call's pipeline (pipeline.ts) and the clocks between them, apart from the call's
// state machine:
//   mix:      speaker frames (48 kHz mono) → mute/push-to-talk gate → barge-in test → mixer, on
//             packet arrival or the input clock; time without packets as silence → resample
//   playback: model speech (24 kHz mono) → jitter/playback buffer → 20 ms frames at 24 kHz pulled by
//             upsample on the encoder's clock; it starts and stops the two (nothing per tick when
//             there is no audio), and keeps the output's books on each frame upsample hands on
// It also builds, once, the stages next to them (resample, gate; upsample); pipeline.ts wires them all.
// Everything is allocated once; the per-frame paths reuse buffers and log nothing.
import type { LevelReading } from '../api-types.ts';
import { PlaybackBuffer, SILENCE_DBFS, SpeakerMixer, type EffectStats, type PlaybackStats } from '../audio/index.ts';
import type { PlaybackSource } from '../ports.ts';
import { BargeInDetector } from './barge-in.ts';
import { BargeInHold } from './barge-in-hold.ts';
import { GateStage, ResampleStage } from './input-stages.ts';
import type { CallMetrics } from './metrics.ts';
import { UpsampleStage } from './output-stages.ts';
import {
  Outlet,
  pulledStageOf,
  stageOf,
  type ModelAudioSink,
  type PcmSink,
  type ReplyFrameSink,
  type SpeakerFrameSink,
  type Stage,
} from './pipeline.ts';

const INPUT_TICK_MS = 20;
/** 20 ms at 48 kHz: the silence one tick adds once nobody is sending packets. */
const SILENT_TICK_SAMPLES = 960;
/**
 * How long without any packet before the input counts as a pause. Discord stops sending when a
 * speaker stops, so time must reach the gate as silence (to close it); but packets also arrive late
 * in bursts (network jitter, a busy event loop), and silence inserted before a late packet would
 * stretch the speech. So a gap shorter than this is waited out, and a longer one is filled in full.
 * With one speaker it is also the pause watchdog, re-armed per packet: while a lone speaker's
 * packets flow, each is mixed as it arrives and no clock runs (on the machines measured, every
 * timer wake-up costs 100-250 µs of CPU: docs/performance.md).
 */
const SILENCE_AFTER_MS = 200;
/** Cap on the silence filled in at one wake-up (after a long gap, the gate closes long before). */
const MAX_SILENCE_FILL_TICKS = 50;
/**
 * Silence put into the closed gate once a pause has closed it, before the input goes idle until
 * the next packet (500 ms: more than the gate's 300 ms pre-roll, so the next utterance's pre-roll
 * starts with silence and no speech lingers in it). Nothing is sent to the model for it, so it is
 * filled in at once rather than tick by tick.
 */
const IDLE_INPUT_TICKS = 25;
/**
 * Consecutive silent frames handed to the player after which the output counts as idle (100 ms): as
 * Discord's clients do, five frames of silence after speech, then no packets (protocols.md). Each
 * frame kept the player's 20 ms slot timer waking the process and a packet going out (it was 25
 * frames, 500 ms, per reply); a reply after the stop restarts the player at once.
 */
const IDLE_OUTPUT_FRAMES = 5;
export const SILENT_LEVEL: LevelReading = { rms: 0, peak: 0 };

/** dBFS (the meters' unit) → fraction of full scale (the API's unit). */
function linearLevel(reading: { rmsDbfs: number; peakDbfs: number }): LevelReading {
  const lin = (db: number) => (db <= SILENCE_DBFS ? 0 : Math.round(10 ** (db / 20) * 1e4) / 1e4);
  return { rms: lin(reading.rmsDbfs), peak: lin(reading.peakDbfs) };
}

export interface CallAudioOptions {
  inputChunkMs: number;
  /** Asked when a pause reaches the hangover: true while the service hears the utterance (it ends the turn). */
  holdTurn?: () => boolean;
  metrics: CallMetrics;
  /** Monotonic ms clock. */
  now: () => number;
  /** Input or output became active after being idle (restart UI updates). */
  onActivity?: () => void;
  /** Every frame that flows, a packet in (unmuted) or a frame out, with its time (UI updates ride on it). */
  onFrame?: (now: number) => void;
}

/** Where the barge-in test's verdicts go (reply-cut.ts): connected once (connectBargeIn), after both exist. */
export interface BargeInHandler {
  /** An allowed speaker talks over the bot's reply (barge-in.ts): cut it (local barge-in). */
  speakerTalkedOver(speakerId: string): void;
  /** An allowed speaker's onset the echo tests cannot yet judge: the handler may hold playback (holdPlayback). */
  speakerMayTalkOver(speakerId: string): void;
}

export class CallAudio {
  readonly #metrics: CallMetrics;
  readonly #now: () => number;
  readonly #mixer = new SpeakerMixer();
  readonly #playback = new PlaybackBuffer();
  #onActivity: () => void;
  #onFrame: (now: number) => void;
  /** Where the mix goes (resample), and what pulls playback (upsample): wired by pipeline.ts. */
  readonly #mixed = new Outlet<PcmSink<48_000>>('mix');
  readonly #toUpsample = new Outlet<ReplyFrameSink>('playback');
  /**
   * The stages between mix and the wake-name gate, and between playback and the encoder: built once
   * here, wired by pipeline.ts.
   */
  readonly resample = new ResampleStage();
  readonly gate: GateStage;
  readonly upsample = new UpsampleStage((frame48k) => this.#frameOut(frame48k));
  readonly mix: Stage<SpeakerFrameSink, PcmSink<48_000>>;
  readonly playback: Stage<ModelAudioSink, ReplyFrameSink>;
  /** Null until connected: without a handler no speaker frame is tested. */
  #bargeInHandler: BargeInHandler | null = null;
  #activityConnected = false;
  /** Speech over the bot vs. its echo, against what was played (the playback reference). */
  readonly #bargeIn = new BargeInDetector();
  /** Playback held on an onset, until that speaker's next frames confirm it or not (barge-in-hold.ts). */
  readonly #hold: BargeInHold;
  /** Between start() and stop(): the input clock may run (it runs only while there is input). */
  #running = false;
  /** Input arrived and has not yet gone quiet (onActivity fired for it). */
  #inputActive = false;
  #inputTimer: NodeJS.Timeout | null = null;
  /** Re-armed by every packet; fires when a lone speaker's packets pause (see SILENCE_AFTER_MS). */
  #pauseWatchdog: NodeJS.Timeout | null = null;
  /** A pause's next fill-in: when the gate will next complete a chunk or close (see #fillSilence). */
  #fillTimer: NodeJS.Timeout | null = null;
  #mixedSinceTick = false;
  #fillingSilence = false;
  /** 20 ms ticks of silence filled in since the last packet (the pause's start). */
  #silenceTicksFilled = 0;
  #silentOutputFrames = 0;
  #outputIdle = false;
  /** Mute / push-to-talk gate (see setUserAudioOpen); survives reset(): it is the user's choice, not the call's. */
  #userAudioOpen = true;

  // Latency bookkeeping, ms on the monotonic clock (0 = nothing pending).
  #lastFrameArrival = 0;
  #egressStart = 0;
  #bargeInStart = 0;
  #lastNonSilentOut = 0;

  constructor(options: CallAudioOptions) {
    this.#metrics = options.metrics;
    this.#now = options.now;
    this.#onActivity = options.onActivity ?? (() => undefined);
    this.#onFrame = options.onFrame ?? (() => undefined);
    this.#hold = new BargeInHold({ playback: this.#playback, detector: this.#bargeIn, metrics: options.metrics });
    this.gate = new GateStage({
      chunkMs: options.inputChunkMs,
      metrics: options.metrics,
      now: options.now,
      ...(options.holdTurn ? { holdTurn: options.holdTurn } : {}),
    });
    this.mix = stageOf(
      'mix',
      { stage: 'mix', caps: 'speaker-pcm@48k', frame: (speakerId, frame) => this.pushSpeakerFrame(speakerId, frame) },
      this.#mixed,
    );
    this.playback = pulledStageOf(
      'playback',
      { stage: 'playback', caps: 'pcm@24k', push: (pcm24k) => this.pushModelAudio(pcm24k) },
      this.#toUpsample,
      this.#playback,
    );
  }

  /**
   * Allow the 20 ms input clock (covers late speakers and pauses). It runs only when it has work:
   * while several people are heard, or from 100 ms into a pause until the pause has closed the gate.
   * A lone speaker's packets are mixed as they arrive (only a pause watchdog is re-armed), and a call
   * in which nobody speaks does no work per tick.
   */
  start(): void {
    this.stop();
    this.#running = true;
    this.#outputIdle = false;
    this.#silentOutputFrames = 0;
  }

  stop(): void {
    this.#running = false;
    this.#inputIdle();
  }

  /** From now on, onActivity and onFrame go to `listener` (the UI ticker, built after the audio from its levels; once). */
  connectActivity(listener: { start(): void; frame(now: number): void }): void {
    if (this.#activityConnected) throw new Error('the activity listener is already connected');
    this.#activityConnected = true;
    this.#onActivity = () => listener.start();
    this.#onFrame = (now) => listener.frame(now);
  }

  /** The barge-in test's verdicts go to `handler` from now on (once: a second handler is a wiring mistake). */
  connectBargeIn(handler: BargeInHandler): void {
    if (this.#bargeInHandler !== null) throw new Error('the barge-in handler is already connected');
    this.#bargeInHandler = handler;
  }

  /** A reply is playing or queued to play (not an interrupted one, not a sound effect alone). */
  get botTalking(): boolean {
    const turn = this.#playback.turnState;
    return !this.#outputIdle && (turn === 'active' || turn === 'ending');
  }

  /** A reply's turn is not over at the player yet (playing, its end still buffered, or just cut): the patience learner asks. */
  get replyPlaying(): boolean {
    return this.#playback.turnState !== 'idle';
  }

  /** False while the output is idle (the player was told to stop); tests and status read it. */
  get outputActive(): boolean {
    return !this.#outputIdle;
  }

  /**
   * A packet arrived: input is active. With several speakers the 20 ms clock runs (it mixes whoever
   * is there when someone is late); with one it stops, and the pause watchdog stands in for it.
   */
  #onInputPacket(): void {
    if (!this.#running) return;
    if (!this.#inputActive) {
      this.#inputActive = true;
      this.#onActivity();
    }
    this.#stopFill();
    if (this.#mixer.activeSpeakers > 1) {
      this.#stopPauseWatchdog();
      this.#startInputClock();
      return;
    }
    this.#stopInputClock();
    if (this.#pauseWatchdog) this.#pauseWatchdog.refresh();
    else {
      this.#pauseWatchdog = setTimeout(() => this.#fillSilence(), SILENCE_AFTER_MS);
      this.#pauseWatchdog.unref();
    }
  }

  #startInputClock(): void {
    if (!this.#running || this.#inputTimer) return;
    this.#mixedSinceTick = false;
    this.#inputTimer = setInterval(() => this.#onInputTick(), INPUT_TICK_MS);
    this.#inputTimer.unref();
  }

  #stopFill(): void {
    if (this.#fillTimer) clearTimeout(this.#fillTimer);
    this.#fillTimer = null;
  }

  #stopInputClock(): void {
    if (this.#inputTimer) clearInterval(this.#inputTimer);
    this.#inputTimer = null;
  }

  #stopPauseWatchdog(): void {
    if (this.#pauseWatchdog) clearTimeout(this.#pauseWatchdog);
    this.#pauseWatchdog = null;
  }

  /** The input went quiet (a pause closed the gate, or the user muted): nothing runs until the next packet. */
  #inputIdle(): void {
    this.#stopInputClock();
    this.#stopPauseWatchdog();
    this.#stopFill();
    this.#inputActive = false;
  }

  #resumeOutput(): void {
    this.#silentOutputFrames = 0;
    if (!this.#outputIdle) return;
    this.#outputIdle = false;
    this.#toUpsample.next.start();
    this.#onActivity();
  }

  /** Forget everything of the previous call (buffers, filter state, pending measurements). */
  reset(): void {
    this.#mixer.reset();
    this.#mixed.next.flush();
    this.#playback.reset();
    this.upsample.reset();
    this.#bargeIn.reset();
    this.#stopFill();
    this.#lastFrameArrival = 0;
    this.#fillingSilence = false;
    this.#egressStart = 0;
    this.#bargeInStart = 0;
    this.#hold.clear();
  }

  /**
   * Mute / push-to-talk gate, ahead of the mixer, the voice gate and the model. Closing it ends an
   * utterance in progress the way a pause does (the voice gate closes: its last chunk and the end of
   * the audio input reach the model, so it answers what it heard), forgets the partial mix and stops
   * the input clock: while closed, a frame costs one comparison and nothing runs per tick.
   */
  setUserAudioOpen(open: boolean): void {
    if (open === this.#userAudioOpen) return;
    this.#userAudioOpen = open;
    if (open) return;
    this.#inputIdle();
    this.#mixer.reset();
    this.#fillingSilence = false;
    this.#mixed.next.flush();
  }

  get userAudioOpen(): boolean {
    return this.#userAudioOpen;
  }

  /** One 20 ms 48 kHz mono frame from an allowed speaker (copied by the mixer). */
  pushSpeakerFrame(speakerId: string, frame: Int16Array): void {
    if (!this.#userAudioOpen) {
      this.#metrics.framesMuted += 1;
      return;
    }
    this.#metrics.framesIn += 1;
    const now = this.#now();
    // The pause this packet ends: its silence up to now reaches the gate before the packet does.
    if (this.#fillingSilence) this.#fillOwedSilence(now);
    this.#lastFrameArrival = now;
    this.#onFrame(this.#lastFrameArrival);
    this.#fillingSilence = false;
    // Talking over the bot's reply cuts it here, before the frame is mixed: the fade goes out at once
    // (on a first frame not yet told from echo, the reply is held: holdPlayback).
    const handler = this.#bargeInHandler;
    if (handler !== null) {
      if (!this.botTalking) this.#bargeIn.heard(speakerId, frame, now);
      else {
        const verdict = this.#bargeIn.judgeConfirmed(frame, now, speakerId);
        if (verdict === 'speech') handler.speakerTalkedOver(speakerId);
        else if (verdict === 'onset' && this.#hold.speaker === null) handler.speakerMayTalkOver(speakerId);
        else this.#hold.speakerFrame(speakerId);
      }
    }
    this.#mixer.push(speakerId, frame);
    this.#onInputPacket();
    // Mix as soon as every active speaker has a frame (or one is a frame ahead), so one speaker (the
    // common case) waits for no clock; the 20 ms input tick covers the last frame of a talk spurt.
    while (this.#mixer.readyToMix()) {
      const mixed = this.#mixer.mixNext();
      if (mixed) this.#mixed.next.push(mixed, this.#lastFrameArrival);
      this.#mixedSinceTick = true;
    }
  }

  /** Model speech (24 kHz mono). Returns true when it starts a reply (playback was idle). */
  pushModelAudio(pcm24k: Int16Array): boolean {
    this.#metrics.bytesFromModel += pcm24k.byteLength;
    const startsReply = this.#playback.turnState === 'idle';
    if (startsReply && this.#egressStart === 0) this.#egressStart = this.#now();
    this.#playback.write(pcm24k);
    this.#resumeOutput();
    return startsReply;
  }

  /**
   * A speaker's onset while the bot talks (barge-in.ts): fade the reply out within a frame and keep
   * it, until a later frame of theirs is speech (interrupt()) or their next frames are not (it plays
   * on, and their onsets are taken for echo from then on: barge-in-hold.ts). Returns whether
   * playback is now held.
   */
  holdPlayback(speakerId: string): boolean {
    return this.#hold.hold(speakerId, this.#now());
  }

  /** Barge-in: fade out within a frame and drop the rest of the turn. Returns ms of the turn played. */
  interrupt(): number {
    this.#metrics.interrupts += 1;
    this.#hold.clear();
    // The barge-in latency is how long our speech went on after the interruption; with the player
    // stopped (the reply's audio had run out) none did, and a measurement armed now would only be
    // taken at the next reply's end, seconds later.
    this.#bargeInStart = this.#outputIdle ? 0 : this.#now();
    this.#egressStart = 0;
    return this.#playback.interrupt().playedMs;
  }

  turnComplete(): void {
    this.#playback.endTurn();
  }

  /** Mix a short 48 kHz mono clip over whatever plays (notification sound). */
  playEffect(clip: Int16Array, gain: number): void {
    this.upsample.mixEffect(clip, gain);
    this.#resumeOutput();
  }

  /** Current input/output levels; resets the meters' peak hold (call at the UI rate, not per frame). */
  readLevels(): { input: LevelReading; output: LevelReading } {
    return { input: linearLevel(this.gate.meter.read()), output: linearLevel(this.upsample.meter.read()) };
  }

  /** The buffer's counters and the effects' (allocates: call at the UI rate). */
  playbackStats(): PlaybackStats & EffectStats {
    return { ...this.#playback.stats(), ...this.upsample.effectStats() };
  }

  /** Copy the mixer's drop counter into the call metrics (allocates: call at the UI rate). */
  syncMetrics(): void {
    this.#metrics.droppedFrames = this.#mixer.stats().droppedFrames;
  }

  /** What the Discord player pulls every 20 ms: the upsample stage's output. */
  get playbackSource(): PlaybackSource {
    return this.upsample.source;
  }

  /** Each 48 kHz frame on its way to the encoder (upsample hands it on): the barge-in reference, latency, idleness. */
  #frameOut(out: Int16Array): void {
    this.#metrics.framesOut += 1;
    const now = this.#now();
    this.#hold.frameOut(now);
    this.#onFrame(now);
    if (this.#bargeIn.notePlayed(out, now)) {
      this.#silentOutputFrames = 0;
      this.#lastNonSilentOut = now;
      if (this.#egressStart > 0) {
        this.#metrics.egress.record(now - this.#egressStart);
        this.#egressStart = 0;
      }
    } else {
      if (this.#bargeInStart > 0) {
        // First silent frame after an interruption: the barge-in latency is when sound last left us.
        this.#metrics.bargeIn.record(Math.max(0, this.#lastNonSilentOut - this.#bargeInStart));
        this.#bargeInStart = 0;
      }
      // Five silent frames with nothing queued: the player may stop, as Discord's clients stop
      // sending when they have nothing to say. Audio that is queued but not yet playing (a reply
      // still filling its start margin) keeps it running; a turn that is open with nothing queued
      // does not (GPT-Live's turns end on 700 ms without audio, which would be 30 packets of
      // silence after every reply); the next audio restarts the player.
      const drained = this.#playback.drained && !this.upsample.effectsPlaying;
      if (++this.#silentOutputFrames >= IDLE_OUTPUT_FRAMES && drained && !this.#outputIdle) {
        this.#outputIdle = true;
        this.#toUpsample.next.stop();
      }
    }
  }

  #onInputTick(): void {
    if (this.#mixedSinceTick) {
      this.#mixedSinceTick = false;
      return;
    }
    const mixed = this.#mixer.mixNext();
    if (mixed) {
      this.#mixed.next.push(mixed, 0);
      return;
    }
    if (this.#now() - this.#lastFrameArrival >= SILENCE_AFTER_MS) this.#fillSilence();
  }

  /**
   * A real pause (nobody has sent a packet for SILENCE_AFTER_MS): time reaches the gate as silence,
   * from the last packet on, so the gate closes and the model is told the input ended. Only the
   * gate's outputs are observable (a chunk of hangover silence to the model, the close), so rather
   * than a 20 ms clock this fills in what is owed and sleeps until the next of those moments; once
   * the gate has closed, the idle silence goes in at once and nothing runs until the next packet.
   */
  #fillSilence(): void {
    this.#stopInputClock();
    this.#stopPauseWatchdog();
    this.#fillTimer = null;
    if (!this.#running) return;
    const now = this.#now();
    if (!this.#fillingSilence) {
      this.#fillingSilence = true;
      this.#silenceTicksFilled = 0;
    }
    this.#fillOwedSilence(now);
    const untilOutput = this.#mixed.next.untilOutput();
    if (untilOutput === null) {
      this.#mixed.next.silence(IDLE_INPUT_TICKS * SILENT_TICK_SAMPLES);
      this.#inputIdle();
      return;
    }
    const ticks = Math.max(1, Math.ceil(untilOutput / SILENT_TICK_SAMPLES));
    const dueAt = this.#lastFrameArrival + (this.#silenceTicksFilled + ticks) * INPUT_TICK_MS;
    this.#fillTimer = setTimeout(() => this.#fillSilence(), Math.max(1, dueAt - now));
    this.#fillTimer.unref();
  }

  /** Silence for the whole 20 ms ticks since the pause began that the gate has not heard yet. */
  #fillOwedSilence(now: number): void {
    const owed = Math.floor((now - this.#lastFrameArrival) / INPUT_TICK_MS) - this.#silenceTicksFilled;
    const ticks = Math.min(MAX_SILENCE_FILL_TICKS, owed);
    if (ticks <= 0) return;
    this.#silenceTicksFilled += ticks;
    this.#mixed.next.silence(ticks * SILENT_TICK_SAMPLES);
  }
}
