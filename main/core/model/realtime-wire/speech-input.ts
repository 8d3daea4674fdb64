// The user's speech on a Realtime-protocol or GPT-Live socket: 16 kHz from the voice gate,
// resampled to 24 kHz where the service takes only that (OpenAI), sent as it is where 16 kHz is
// taken, written as a prepared JSON string (the 20 ms hot path builds no event object). The end of
// speech is the service's to find: the bridge sends the pause itself as paced silence until the
// service's detector ends the turn (audio/end-of-turn.ts), so nothing is added here at the end; a
// turn the bridge ends (its silence cap, or a replay on a new socket) is committed (`endJson`).
// Every chunk is also kept until the service answers it (session-core/unanswered-audio.ts) and
// written again on the next socket after a drop.
import { Resampler16kTo24kMono } from '../../audio/resampler-16k-to-24k.ts';
import { UnansweredAudio } from '../session-core/unanswered-audio.ts';
import { encodePcm } from '../wire/pcm-codec.ts';
import type { JsonSocket } from './json-socket.ts';


export class SpeechInput {
  readonly #unanswered = new UnansweredAudio();
  /** Null: the service takes 16 kHz as the gate hands it. */
  readonly #resampler: Resampler16kTo24kMono | null;
  readonly #appendJson: (base64: string) => string;
  /** What ends a turn the bridge ends (a commit and a response request), or null: the service ends every turn itself (GPT-Live). */
  readonly #endJson: readonly string[] | null;

  /**
   * `appendJson` builds the service's audio-append event around base64 PCM; `rate` is what the
   * service takes (default 24 kHz); `endJson` the events that end a turn the bridge ends.
   */
  constructor(appendJson: (base64: string) => string, rate: 16_000 | 24_000 = 24_000, endJson: readonly string[] | null = null) {
    this.#appendJson = appendJson;
    this.#resampler = rate === 24_000 ? new Resampler16kTo24kMono() : null;
    this.#endJson = endJson;
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
    if (commit) this.#commit(socket);
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
    this.#unanswered.replay((pcm) => this.#send(socket, pcm), () => this.#commit(socket));
    return heard;
  }

  #send(socket: JsonSocket, pcm16kMono: Int16Array): void {
    socket.sendRaw(this.#appendJson(encodePcm(this.#resampler ? this.#resampler.process(pcm16kMono) : pcm16kMono)));
  }

  #commit(socket: JsonSocket | null | undefined): void {
    this.#resampler?.reset();
    if (socket?.isOpen) for (const json of this.#endJson ?? []) socket.sendRaw(json);
  }
}
