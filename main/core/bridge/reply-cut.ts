// Cutting the model's reply short: by the service (`interrupted`), by the user's "stop talking"
// (POST /interrupt, the tray), or here, the moment an allowed speaker talks over it (local barge-in,
// barge-in.ts). Playback fades out within a frame, the rest of the reply is dropped, and the open
// transcript line ends with how much was heard. The notes are written when the model's turn ends
// (its `interrupted` or turnComplete, or a new reply), not at the cut: the user's words that the
// service's transcription still sends (they lag the speech) belong to the request before the cut.
//
// Local barge-in stops playback now, not when the service's signal comes. The service is told by the
// speech itself, which the voice gate forwards (Gemini interrupts on it), and by the session's
// `bargedIn`: the Realtime session cancels and truncates at what we played, frozen here (its
// service's speech_started may never come: a turn its detector holds open sends none), and
// GPT-Live's model yields without an event. What the service still sends of that
// reply is dropped (playback-buffer.ts), and its own `interrupted` for it only confirms the cut.
// Speech the wake names keep from the model is not for it: the service would not stop either.
import type { BridgeState } from '../api-types.ts';
import type { LiveModelSession } from '../ports.ts';
import type { BargeInHandler, CallAudio } from './call-audio.ts';
import type { CallMetrics } from './metrics.ts';
import type { SpeakerActivity } from './room.ts';
import type { SpeakerNotes } from './speaker-notes.ts';
import type { TranscriptAggregator } from './transcripts.ts';

export type CutReason = 'interrupted' | 'stopped by you';

export interface ReplyCutDeps {
  audio: CallAudio;
  metrics: CallMetrics;
  activity: SpeakerActivity;
  speakerNotes: SpeakerNotes;
  transcripts: TranscriptAggregator;
  /** pokePlayback(true) sends the fade frame now. */
  voice: { pokePlayback?(urgent?: boolean): void };
  /** The call's current model session: the model link. */
  link: { readonly session: LiveModelSession | null };
  /** The call's state: a cut is local only while it is connected (not reconnecting, parked or ending). */
  call: { readonly state: BridgeState };
  /** `withholding`: the wake names may keep speech starting now from the model (wake-gate.ts). */
  wake: { readonly withholding: boolean };
  /** Told when a reply was cut after `playedMs` of it had played (the spoken outcomes follow it: reply-follower.ts). */
  follower?: { replyCut(why: CutReason, playedMs: number): void };
}

export class ReplyCut implements BargeInHandler {
  readonly #d: ReplyCutDeps;
  /** This reply was cut here (local barge-in): the service's own `interrupted` for it only confirms. */
  #cutLocally = false;

  constructor(deps: ReplyCutDeps) {
    this.#d = deps;
  }

  /** An allowed speaker talks over the bot's reply (call-audio.ts, barge-in.ts). */
  speakerTalkedOver(): void {
    const d = this.#d;
    if (d.call.state !== 'connected' || d.wake.withholding) return;
    d.metrics.localBargeIns += 1;
    this.cut('interrupted');
    this.#cutLocally = true;
    d.link.session?.bargedIn?.();
  }

  /**
   * An allowed speaker's onset that the echo tests cannot judge yet (barge-in.ts): playback stops
   * now and the reply waits; the next frames cut it (speakerTalkedOver) or let it play on.
   */
  speakerMayTalkOver(speakerId: string): void {
    const d = this.#d;
    if (d.call.state !== 'connected' || d.wake.withholding) return;
    if (d.audio.holdPlayback(speakerId)) d.voice.pokePlayback?.(true);
  }

  /** The service cut the model off: the reply's turn is over, its notes are written. */
  serviceInterrupted(): void {
    if (this.#cutLocally) this.#cutLocally = false;
    else this.cut('interrupted');
    this.#d.transcripts.flush();
  }

  /** The model's next reply began (its first audio): the previous one's pending cut is written first. */
  replyStarted(): void {
    this.turnEnded();
    this.#d.transcripts.replyStarted();
  }

  /** The model's turn ended, or a new reply began: a later `interrupted` is about another reply. */
  turnEnded(): void {
    this.#cutLocally = false;
    // A new reply after a cut the service never confirmed: the cut one's notes go first.
    if (this.#d.transcripts.cutPending) this.#d.transcripts.flush();
  }

  /**
   * Stop the model's voice now: the rest of this reply is dropped. The Stop button tells the session
   * too, as a barge-in does: the service cancels the reply and keeps only what was heard (Realtime's
   * cancel + truncate), so the model does not go on from words nobody heard.
   */
  cut(why: CutReason): { interrupted: boolean; played_ms: number } {
    const d = this.#d;
    // A barge-in is always honoured (as before); the user's button only in a live call.
    if (why === 'stopped by you' && d.call.state !== 'connected') return { interrupted: false, played_ms: 0 };
    const result = this.#stopVoice(why);
    if (why === 'stopped by you') {
      this.#cutLocally = true;
      d.link.session?.bargedIn?.();
    }
    return result;
  }

  #stopVoice(why: CutReason): { interrupted: boolean; played_ms: number } {
    const d = this.#d;
    d.activity.cutOff(); // the cut-off request stays open: its voices keep counting (room.ts)
    d.speakerNotes.turnEnded();
    const playedMs = d.audio.interrupt();
    // The fade frame goes out now, not at the next slot (the current one may have gone out early).
    d.voice.pokePlayback?.(true);
    d.transcripts.cutOutput(`(${why} after ${Math.round(playedMs)} ms)`);
    d.follower?.replyCut(why, playedMs);
    return { interrupted: true, played_ms: Math.round(playedMs) };
  }
}
