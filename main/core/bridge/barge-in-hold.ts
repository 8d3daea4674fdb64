// The barge-in hold (barge-in.ts "Onsets"): a speaker's onset that the echo tests cannot judge yet
// stops the reply within a frame (PlaybackBuffer.hold) and keeps it, until one of their later frames
// is speech (the cut: CallAudio.interrupt ends the hold) or their next frames are not, and the
// reply plays on from where it faded (release).
//
// The hold is counted on the held speaker's own stream, the frames that decide it, and not on the
// player's: the player sends a slot up to a period early on any wake-up, and after a late timer
// several slots 1 ms apart (voice/playback.ts), so five of its frames could pass in a few ms, before
// the speaker's next frame had even arrived. The reply then played on for a frame and was cut on
// that frame: one frame of the reply after the fade (barge-in-local.test.ts under load).
import type { CallMetrics } from './metrics.ts';

/**
 * The frames of the held speaker a hold takes, unconfirmed, the onset included, before the reply
 * plays on: the onset and their next four (80 ms of their stream; with the fade, a 90 ms gap in
 * the reply). bench/lib/noise-phantoms.ts counts holds in the same frames.
 */
export const HOLD_FRAMES = 5;
/**
 * A hold whose speaker sends nothing more for this long ends all the same (a push-to-talk key let
 * go, lost packets): the line the input draws between a late packet and a pause (call-audio.ts
 * SILENCE_AFTER_MS), so a burst of late packets still decides the hold. It is time the process was
 * listening, counted on the output's frames, each for the time since the one before and at most a
 * frame period: a stalled event loop reads no packet (a speaker's wait in the socket, and Node runs
 * the player's late timer before it reads sockets), so a stall says nothing of the speaker.
 */
export const HOLD_QUIET_MS = 200;
const FRAME_MS = 20;

export interface BargeInHoldDeps {
  playback: { hold(): void; release(): void; readonly held: boolean };
  /** Told when a speaker's hold ended unconfirmed (their onsets may be our echo). */
  detector: { suspectEcho(speakerId: string): void };
  metrics: CallMetrics;
}

export class BargeInHold {
  readonly #d: BargeInHoldDeps;
  /** The speaker playback is held on, or null. */
  #speaker: string | null = null;
  /** Their frames still to come before the hold ends unconfirmed. */
  #framesLeft = 0;
  /** Listening time since their last frame (see HOLD_QUIET_MS), and when the output's last frame went. */
  #quietMs = 0;
  #lastFrameOutAt = 0;

  constructor(deps: BargeInHoldDeps) {
    this.#d = deps;
  }

  /** The speaker playback is held on (null: none). */
  get speaker(): string | null {
    return this.#speaker;
  }

  /** Hold playback on `speakerId`'s onset at `now`. Returns false when nothing was held (a hold already, nothing playing). */
  hold(speakerId: string, now: number): boolean {
    if (this.#speaker !== null) return false;
    this.#d.playback.hold();
    if (!this.#d.playback.held) return false;
    this.#speaker = speakerId;
    this.#framesLeft = HOLD_FRAMES - 1;
    this.#quietMs = 0;
    this.#lastFrameOutAt = now;
    this.#d.metrics.bargeInHolds += 1;
    return true;
  }

  /** A frame of `speakerId` that was not speech: the held speaker's fourth after the onset ends the hold. */
  speakerFrame(speakerId: string): void {
    if (speakerId !== this.#speaker) return;
    this.#quietMs = 0;
    if (--this.#framesLeft <= 0) this.#release();
  }

  /** A frame went to the player at `now`: a hold whose speaker went quiet (HOLD_QUIET_MS) ends. */
  frameOut(now: number): void {
    if (this.#speaker === null) return;
    this.#quietMs += Math.min(FRAME_MS, now - this.#lastFrameOutAt);
    this.#lastFrameOutAt = now;
    if (this.#quietMs >= HOLD_QUIET_MS) this.#release();
  }

  /** The reply was cut, or the call forgotten: the hold is over, nothing plays on. */
  clear(): void {
    this.#speaker = null;
  }

  #release(): void {
    const speaker = this.#speaker!;
    this.#speaker = null;
    this.#d.playback.release();
    this.#d.detector.suspectEcho(speaker);
    this.#d.metrics.bargeInHoldsReleased += 1;
  }
}
