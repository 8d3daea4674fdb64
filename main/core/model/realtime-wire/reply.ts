// The model's reply on a Realtime-protocol socket, apart from the session that keeps the sockets:
// its turn (session-core/model-turn.ts, as every session's: opened by response.created, cut by a
// barge-in's response.cancel, ended by response.done or by the end of its socket), the assistant
// audio item it plays (what a truncate names, and how much of it we emitted) and its transcript.
// Barge-in: the bridge's local barge-in (`bargedIn`) or the service VAD's
// `input_audio_buffer.speech_started`, whichever comes first, while a reply is generating or still
// playing → `response.cancel` (if generating) + `conversation.item.truncate` at the audio the
// player actually handed out (`playedMs`), so the model's transcript matches what was heard. The
// service's signal alone is not enough: a turn its detector holds open (semantic_vad waits up to
// 8 s through the bridge's paced silence) sends no new speech_started for speech over a reply.
import type { EventEmitter } from 'node:events';
import type { LiveModelEvents } from '../../ports.ts';
import { ModelTurn } from '../session-core/model-turn.ts';
import { ReplyTranscript } from '../session-core/reply-transcript.ts';
import { decodePcm } from '../wire/pcm-codec.ts';
import { REALTIME_AUDIO_RATE, RESPONSE_CANCEL, truncateEvent } from './events.ts';

export interface ReplyHost<C> {
  /** The session: the bridge's events go out on it. */
  events: EventEmitter<LiveModelEvents>;
  /** The socket events are read from and written to now, if any. */
  active(): C | null;
  /** Writes on the active socket (nothing when none is open). */
  send(event: object): void;
  /** How much of the reply's audio the bridge's player has handed out (absent: all that was emitted). */
  playedMs?: () => number;
  /** The dialect has `conversation.item.truncate` (xAI has not: a cancel is all). */
  truncates: boolean;
  /** The reply's words, for the history the next socket is given. */
  record(text: string): void;
  /** The answer is being heard: the words it answers need no replay on a new socket. */
  answered(): void;
  /** The model said or did something (the text queue waits for its turn to end). */
  activity(): void;
  /** The reply is over (done, cancelled or its socket gone): the text queue may speak. */
  ended(): void;
  stats: { cancels: number; truncations: number };
}

export class RealtimeReply<C> {
  readonly #h: ReplyHost<C>;
  readonly #turn = new ModelTurn<C>();
  /** The assistant audio item of the latest reply and how much audio of it we emitted. */
  #audioItem: { id: string; samples: number } | null = null;
  /** What the reply in progress said (the history keeps what was said up to a barge-in). */
  readonly #text: ReplyTranscript;

  constructor(host: ReplyHost<C>) {
    this.#h = host;
    this.#text = new ReplyTranscript(host.record);
  }

  /** A response is generating (response.created seen, its response.done not yet). */
  get generating(): boolean {
    return this.#turn.open;
  }

  /**
   * response.created: not yet answered (the audio follows the service's first-audio delay, and a
   * socket that drops before it leaves words nobody answered: they are sent again on the next one).
   */
  created(connection: C): void {
    // A response after a cut one whose response.done never came: that one is over (session-core's
    // rule), and the model is busy again (the text queue stays held).
    if (this.#turn.output(connection).endedCut) {
      this.#text.end(true);
      this.#h.events.emit('turnComplete');
    }
    this.#text.reset();
    this.#h.activity();
  }

  audio(itemId: string, base64: string): void {
    // The cut reply's tail, before its response.done: the user is not to hear it.
    if (this.#turn.interruptPending) return;
    const pcm = decodePcm(base64);
    if (this.#audioItem?.id !== itemId) {
      this.#h.answered();
      this.#audioItem = { id: itemId, samples: 0 };
    }
    this.#audioItem.samples += pcm.length;
    this.#h.activity();
    this.#h.events.emit('audio', pcm);
  }

  transcriptDelta(delta: string): void {
    if (this.#turn.interruptPending) return;
    this.#text.add(delta);
    this.#h.events.emit('outputTranscript', delta);
  }

  transcriptDone(transcript: string): void {
    if (!this.#turn.interruptPending) this.#text.set(transcript);
  }

  /** response.done (completed, or cancelled by a barge-in). */
  done(): void {
    const cut = this.#turn.interruptPending;
    this.#turn.complete();
    this.#text.end(cut);
    this.#h.ended();
    this.#h.events.emit('turnComplete');
  }

  /**
   * `connection` ended. A reply in progress (or cancelled by a barge-in and awaiting its
   * response.done) ends with it: the bridge's playback drops audio after `interrupted` until
   * `turnComplete`, so without it the first reply on the next socket would be thrown away.
   */
  socketEnded(connection: C): void {
    const replying = this.#turn.socketEnded(connection);
    // Cut off when it was replying: recorded with "…" in the replayed history.
    this.#text.end(replying);
    this.#h.ended();
    if (!replying) return;
    this.#audioItem = null;
    this.#h.events.emit('turnComplete');
  }

  bargeIn(): void {
    // Already cut (by the bridge, or an earlier speech_started): nothing left to cancel or truncate.
    if (this.#turn.interruptPending) return;
    const item = this.#audioItem;
    const emittedMs = item ? (item.samples * 1000) / REALTIME_AUDIO_RATE : 0;
    const playedMs = this.#h.playedMs ? Math.max(0, Math.min(emittedMs, this.#h.playedMs())) : emittedMs;
    const stillPlaying = item !== null && playedMs < emittedMs - 1;
    const active = this.#h.active();
    const generating = active !== null && this.#turn.openOn(active);
    if (!generating && !stillPlaying) return;
    if (generating) {
      this.#h.send(RESPONSE_CANCEL);
      this.#h.stats.cancels++;
      this.#turn.interrupted(active);
    }
    if (item && this.#h.truncates) {
      this.#h.send(truncateEvent(item.id, Math.floor(playedMs)));
      this.#h.stats.truncations++;
    }
    this.#audioItem = null;
    this.#h.events.emit('interrupted');
    // A cancelled reply still ends with response.done (status "cancelled"); a finished one already did.
    if (!generating) this.#h.events.emit('turnComplete');
  }
}
