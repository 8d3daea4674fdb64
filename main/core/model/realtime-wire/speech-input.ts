// The user's speech on a Realtime-protocol or GPT-Live socket: 16 kHz from the voice gate,
// resampled to 24 kHz where the service takes only that (OpenAI), sent as it is where 16 kHz is
// taken, written as a prepared JSON string (the 20 ms hot path builds no event object). The end of
// speech is the service's to find: the bridge sends the pause itself as paced silence until the
// service's detector ends the turn (audio/end-of-turn.ts), so nothing is added here at the end; a
// turn the bridge ends (its silence cap, or a replay on a new socket) is committed where a client
// event can end one, and a replay is followed by a pause where none can (GPT-Live).
// Every chunk is also kept until the service answers it (session-core/unanswered-audio.ts) and
// written again on the next socket after a drop.
import { Resampler16kTo24kMono } from '../../audio/resampler-16k-to-24k.ts';
import { UnansweredAudio } from '../session-core/unanswered-audio.ts';
import { encodePcm } from '../wire/pcm-codec.ts';
import type { JsonSocket } from './json-socket.ts';

/** Silence after a replayed utterance for a service whose own detector ends turns (GPT-Live): its 500 ms window and margin. */
const REPLAY_PAUSE_MS = 600;

export class SpeechInput {
  readonly #unanswered = new UnansweredAudio();
  /** Null: the service takes 16 kHz as the gate hands it. */
  readonly #resampler: Resampler16kTo24kMono | null;
  readonly #appendJson: (base64: string) => string;
  /** What ends a turn the bridge ends (its silence cap): a commit and a response request; none where the service ends every turn itself. */
  readonly #capEnd: readonly string[];
  /** What ends a replayed utterance on a new socket, whose detector never heard the pause after it. */
  readonly #replayEnd: readonly string[];

  /**
   * `appendJson` builds the service's audio-append event around base64 PCM; `rate` is what the
   * service takes (default 24 kHz). `commitJson`: the events that end a turn the client ends (a
   * commit and a response request); null for a service no client event ends a turn on (GPT-Live),
   * where a replay is followed by REPLAY_PAUSE_MS of silence for its own detector instead.
   */
  constructor(
    appendJson: (base64: string) => string,
    rate: 16_000 | 24_000 = 24_000,
    commitJson: readonly string[] | null = null,
  ) {
    this.#appendJson = appendJson;
    this.#resampler = rate === 24_000 ? new Resampler16kTo24kMono() : null;
    this.#capEnd = commitJson ?? [];
    this.#replayEnd = commitJson ?? [appendJson(encodePcm(new Int16Array((rate * REPLAY_PAUSE_MS) / 1000)))];
  }

  /** Keeps the chunk; writes it when the socket is open. False: not sent live (kept for the next socket). */
  write(socket: JsonSocket | null | undefined, pcm16kMono: Int16Array): boolean {
    this.#unanswered.push(pcm16kMono);
    if (!socket?.isOpen) return false;
    this.#send(socket, pcm16kMono);
    return true;
  }

  /** The user's input ended; `commit`: the service has not ended the turn (the bridge's cap ran out). */
  end(socket: JsonSocket | null | undefined, commit: boolean): void {
    this.#unanswered.end();
    this.#resampler?.reset();
    if (commit) this.#sendAll(socket, this.#capEnd);
  }

  /** The service began answering: what it heard is in its conversation now. */
  answered(): void {
    this.#unanswered.answered();
  }

  /** On a new socket: the words the old one heard but never answered. True when there were any. */
  replay(socket: JsonSocket): boolean {
    this.#resampler?.reset();
    const heard = !this.#unanswered.isEmpty;
    // The old socket's turn had ended: the new one is told so at once (its detector never heard the pause).
    this.#unanswered.replay(
      (pcm) => this.#send(socket, pcm),
      () => this.#sendAll(socket, this.#replayEnd),
    );
    return heard;
  }

  /**
   * Takes what no service has answered (copies, in order; null: an end of speech) and forgets it:
   * for the session the bridge opens when this one gave up (as gemini/audio-input.ts hands its own).
   */
  take(): (Int16Array | null)[] {
    const taken: (Int16Array | null)[] = [];
    this.#unanswered.replay(
      (pcm) => taken.push(pcm.slice()),
      () => taken.push(null),
    );
    this.#unanswered.answered();
    return taken;
  }

  #send(socket: JsonSocket, pcm16kMono: Int16Array): void {
    socket.sendRaw(this.#appendJson(encodePcm(this.#resampler ? this.#resampler.process(pcm16kMono) : pcm16kMono)));
  }

  #sendAll(socket: JsonSocket | null | undefined, events: readonly string[]): void {
    this.#resampler?.reset();
    if (socket?.isOpen) for (const json of events) socket.sendRaw(json);
  }
}
