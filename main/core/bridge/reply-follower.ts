// Follows what the model does with the texts handed to it (spoken-outcomes.ts keeps the records), so
// each outcome is true:
// - the reply to a hand-over is the model's next turn of audio (texts go over only when the model is
//   not talking: model/text-injection.ts); the texts handed over together share that reply;
// - `spoken` only once that turn ended AND its audio was handed to the Discord player to the last
//   frame (the playback buffer's turn is over), not when the model finished sending it (it sends
//   about twice as fast as it plays);
// - `cut` when the reply is cut off (a barge-in, the service's interruption, "Stop talking"), with the
//   words actually heard: each transcript fragment is stamped with how much of the reply's audio had
//   arrived with it, and only fragments whose audio was played before the cut count;
// - `dropped` when no reply came in REPLY_WAIT_MS of the model being reachable, or the call ended
//   first (a text written on a socket that then died is written again on the next: held-texts.ts;
//   counting an outage's minute would drop what is then said, and a sender told "dropped, safe to
//   send again" would have it said twice: the short day soak of 2026-12-03);
// - a hand-over whose reply the service cancelled before any of its audio came (someone began to
//   speak just after it went over, and the service's `interrupted` stopped the generation) was not
//   said: it is handed over once more at the next pause (its reply is then the model's next turn
//   after that pause, not the answer to the speaker), or dropped with that reason if it was again.
// Per audio chunk this adds one number; nothing runs per tick.
import type { ConnectionState } from '../api-types.ts';
import type { PlaybackStats } from '../audio/playback-buffer.ts';
import type { CutReason } from './reply-cut.ts';
import type { SpokenOutcomes } from './spoken-outcomes.ts';

/** A hand-over the model does not answer with audio within this long was not spoken. */
export const REPLY_WAIT_MS = 30_000;
/** Model audio: 24 kHz mono. */
const SAMPLES_PER_MS = 24;

export interface ReplyFollowerDeps {
  outcomes: SpokenOutcomes;
  /** The player's figures (how much of the current turn played). */
  audio: { playbackStats(): PlaybackStats };
  /** Who is talking now, and their names: a cut reply's outcome names who cut it. */
  speaking: ReadonlySet<string>;
  activity: { name(id: string): string };
}

/** Hands a text over once more (the same record, followed again). `handedOver` takes null for a text that may not be resent. */
export type Resend = () => void;

interface Reply {
  ids: string[];
  /** The playback buffer's turn number of this reply. */
  turn: number;
  receivedMs: number;
  fragments: { text: string; endMs: number }[];
}

export class ReplyFollower {
  readonly #d: ReplyFollowerDeps;
  /** Handed to the model, no reply yet. */
  #pending: string[] = [];
  /** How to hand a pending text over again, once (taken when used). */
  readonly #resends = new Map<string, Resend>();
  #noReplyTimer: NodeJS.Timeout | null = null;
  /** The reply arriving now. */
  #replying: Reply | null = null;
  /** Replies the model finished sending, still playing out. */
  #playingOut: Reply[] = [];
  #playoutTimer: NodeJS.Timeout | null = null;
  /** Since the last reply's end no other audio came: a late fragment is still that reply's. */
  #lateWords = false;
  /** The model session is connected: the wait for a reply runs only then. */
  #reachable = true;

  constructor(deps: ReplyFollowerDeps) {
    this.#d = deps;
  }

  /** The text of `id` was written on the live session as the model's next turn. */
  handedOver(id: string, resend: Resend | null = null): void {
    this.#pending.push(id);
    if (resend) this.#resends.set(id, resend);
    this.#d.outcomes.progress(id, 'handed to the model; waiting for its reply');
    this.#waitForReply();
  }

  /** The model session's state: while it is not connected, the wait for a reply stops, and starts again whole once it is. */
  modelState(state: ConnectionState): void {
    this.#reachable = state === 'connected';
    if (!this.#reachable) this.#clearNoReply();
    else this.#waitForReply();
  }

  #waitForReply(): void {
    if (this.#reachable && this.#pending.length > 0)
      this.#noReplyTimer ??= setTimeout(() => this.#noReply(), REPLY_WAIT_MS).unref();
  }

  /** A chunk of the model's audio (24 kHz mono samples), after the call's playback took it. */
  modelAudio(samples: number): void {
    if (!this.#replying) {
      if (this.#pending.length === 0) {
        this.#lateWords = false; // another reply (to someone's speech): its words are not ours
        return;
      }
      this.#clearNoReply();
      this.#replying = {
        ids: this.#pending.splice(0),
        turn: this.#d.audio.playbackStats().turns,
        receivedMs: 0,
        fragments: [],
      };
      for (const id of this.#replying.ids) this.#resends.delete(id);
      for (const id of this.#replying.ids) this.#d.outcomes.progress(id, 'being spoken');
    }
    this.#replying.receivedMs += samples / SAMPLES_PER_MS;
  }

  /** A fragment of the model's words: it describes the audio that arrived up to now. */
  outputTranscript(text: string): void {
    // A fragment late after the turn's end (transcription lags the audio) still belongs to that reply.
    const reply = this.#replying ?? (this.#lateWords ? this.#playingOut.at(-1) : undefined);
    reply?.fragments.push({ text, endMs: reply.receivedMs });
  }

  /**
   * The service stopped the model's generation (its `interrupted`). With texts handed over and none of
   * their reply's audio here, that reply was cancelled before a word: without this the next reply
   * (the answer to whoever spoke) would be taken for it and reported `spoken`.
   */
  serviceInterrupted(): void {
    if (this.#replying || this.#pending.length === 0) return;
    this.#clearNoReply();
    for (const id of this.#pending.splice(0)) {
      const resend = this.#resends.get(id);
      this.#resends.delete(id);
      if (resend) {
        this.#d.outcomes.progress(
          id,
          'someone spoke as the model began it; waiting for the next pause to hand it over again',
        );
        resend();
      } else
        this.#d.outcomes.settle(id, 'dropped', {
          reason: 'someone spoke as the model began it, twice; it was not said',
        });
    }
  }

  /** The model ended its turn: the reply plays out what is buffered, then it was spoken. */
  turnComplete(): void {
    const reply = this.#replying;
    if (!reply) return;
    this.#replying = null;
    this.#playingOut.push(reply);
    this.#lateWords = true;
    this.#checkPlayout();
  }

  /**
   * The reply playing now was cut after `playedMs` of its audio: by people talking over it (`by`,
   * their names), or by `why` (the stop button, the end of the call).
   */
  /** A reply was cut (reply-cut.ts): its outcome names who cut it, the people talking over it or the stop button. */
  replyCut(why: CutReason, playedMs: number): void {
    if (why === 'stopped by you') return this.cut(playedMs, 'Stop talking', 'stopped with Stop talking');
    const names = [...this.#d.speaking].map((id) => this.#d.activity.name(id));
    this.cut(
      playedMs,
      names.length ? names.join(' and ') : null,
      names.length ? `${names.join(' and ')} spoke` : 'the model service cut the reply off',
    );
  }

  cut(playedMs: number, by: string | null, why: string): void {
    // The cut is of the player's current turn: a reply of an earlier turn had played whole, and a
    // cut of a turn that is no reply to a text (someone's question) concerns no request.
    const turn = this.#d.audio.playbackStats().turns;
    for (const reply of this.#playingOut.filter((r) => r.turn < turn)) this.#spoken(reply);
    this.#playingOut = this.#playingOut.filter((r) => r.turn >= turn);
    const reply = this.#replying?.turn === turn ? this.#replying : this.#playingOut.find((r) => r.turn === turn);
    if (!reply) return;
    if (reply === this.#replying) this.#replying = null;
    else this.#playingOut = this.#playingOut.filter((r) => r !== reply);
    const heard = joinWords(reply.fragments.filter((f) => f.endMs <= playedMs + 1).map((f) => f.text));
    for (const id of reply.ids) this.#d.outcomes.settle(id, 'cut', { spoken_text: heard, by, reason: why });
  }

  /**
   * The session carrying the reply closed under it (an outage, a goAway switch-over): the rest of
   * that reply never comes. What played of it was heard; the texts still waiting for a reply stay
   * (a new session gets them again: model/held-texts.ts).
   */
  sessionClosed(): void {
    const reply = this.#replying;
    if (!reply) return;
    this.#replying = null;
    this.#settleUnfinished(
      reply,
      this.#d.audio.playbackStats().turnPlayedMs,
      'the model connection was lost while it spoke',
    );
  }

  /** The call ended: what was not spoken whole is dropped (or cut, if part of it was heard). */
  callEnded(reason: string): void {
    this.#clearNoReply();
    if (this.#playoutTimer) clearTimeout(this.#playoutTimer);
    this.#playoutTimer = null;
    // Replies whose audio was all handed to the player were heard whole.
    this.#checkPlayout(false);
    const played = this.#d.audio.playbackStats().turnPlayedMs;
    for (const reply of [...this.#playingOut, ...(this.#replying ? [this.#replying] : [])])
      this.#settleUnfinished(reply, played, `the call ended (${reason})`);
    for (const id of this.#pending)
      this.#d.outcomes.settle(id, 'dropped', { reason: `the call ended before the model said it (${reason})` });
    this.#pending = [];
    this.#resends.clear();
    this.#playingOut = [];
    this.#replying = null;
  }

  #spoken(reply: Reply): void {
    const words = joinWords(reply.fragments.map((f) => f.text));
    for (const id of reply.ids) this.#d.outcomes.settle(id, 'spoken', { spoken_text: words });
  }

  /** A reply stopped before its end: cut after the words heard, or dropped if none was. */
  #settleUnfinished(reply: Reply, playedMs: number, why: string): void {
    const heard = joinWords(reply.fragments.filter((f) => f.endMs <= playedMs + 1).map((f) => f.text));
    for (const id of reply.ids) {
      if (heard) this.#d.outcomes.settle(id, 'cut', { spoken_text: heard, reason: why });
      else this.#d.outcomes.settle(id, 'dropped', { reason: `${why}, before a word of it was heard` });
    }
  }

  #noReply(): void {
    this.#noReplyTimer = null;
    for (const id of this.#pending.splice(0)) {
      this.#resends.delete(id);
      this.#d.outcomes.settle(id, 'dropped', {
        reason: `the model did not say it (no reply within ${REPLY_WAIT_MS / 1000} s)`,
      });
    }
  }

  #clearNoReply(): void {
    if (this.#noReplyTimer) clearTimeout(this.#noReplyTimer);
    this.#noReplyTimer = null;
  }

  /** Settle the replies whose audio has all gone to the player; re-check when the buffered rest should have. */
  #checkPlayout(rearm = true): void {
    if (this.#playoutTimer) clearTimeout(this.#playoutTimer);
    this.#playoutTimer = null;
    const stats = this.#d.audio.playbackStats();
    const open = stats.turnState === 'active' || stats.turnState === 'ending';
    this.#playingOut = this.#playingOut.filter((reply) => {
      // Its turn is over in the player: nothing of it is left to play, or a later turn began. (A turn
      // that begins while the previous one's tail still plays keeps that tail first, a few frames
      // at most: the model does not start a new turn until it ended the last.)
      if (reply.turn < stats.turns || (reply.turn === stats.turns && !open)) {
        this.#spoken(reply);
        return false;
      }
      return true;
    });
    if (rearm && this.#playingOut.length > 0)
      this.#playoutTimer = setTimeout(() => this.#checkPlayout(), Math.max(40, stats.bufferedMs + 60)).unref();
  }
}

function joinWords(fragments: readonly string[]): string {
  return fragments.join('').replace(/\s+/g, ' ').trim();
}
