// The user's speech on a Realtime-protocol or GPT-Live socket: 16 kHz from the voice gate,
// resampled to 24 kHz where the service takes only that (OpenAI), sent as it is where 16 kHz is taken, written as a prepared JSON string (the 20 ms hot path
// builds no event object); an end of speech is 600 ms of silence, so the service hears a pause, not
// a cut. Every chunk is also kept until the service answers it (session-core/unanswered-audio.ts)
// and written again on the next socket after a drop.
import { Resampler16kTo24kMono } from '../../audio/resampler-16k-to-24k.ts';
import { UnansweredAudio } from '../session-core/unanswered-audio.ts';
import { encodePcm } from '../wire/pcm-codec.ts';
import type { JsonSocket } from './json-socket.ts';


export class SpeechInput {
  readonly #unanswered = new UnansweredAudio();
  /** Null: the service takes 16 kHz as the gate hands it. */
  readonly #resampler: Resampler16kTo24kMono | null;
  readonly #appendJson: (base64: string) => string;
  readonly #endOfSpeechJson: string;

  /** `appendJson` builds the service's audio-append event around base64 PCM; `rate` is what the service takes (default 24 kHz). */
  constructor(appendJson: (base64: string) => string, rate: 16_000 | 24_000 = 24_000) {
    this.#appendJson = appendJson;
    this.#resampler = rate === 24_000 ? new Resampler16kTo24kMono() : null;
    this.#endOfSpeechJson = appendJson(encodePcm(new Int16Array((rate * 600) / 1000)));
  }

  /** Keeps the chunk; writes it when the socket is open. False: not sent live (kept for the next socket). */
  write(socket: JsonSocket | null | undefined, pcm16kMono: Int16Array): boolean {
    this.#unanswered.push(pcm16kMono);
    if (!socket?.isOpen) return false;
    this.#send(socket, pcm16kMono);
    return true;
  }

  /** The voice gate closed. */
  end(socket: JsonSocket | null | undefined): void {
    this.#unanswered.end();
    this.#endOfSpeech(socket);
  }

  /** The service began answering: what it heard is in its conversation now. */
  answered(): void {
    this.#unanswered.answered();
  }

  /** On a new socket: the words the old one heard but never answered. True when there were any. */
  replay(socket: JsonSocket): boolean {
    this.#resampler?.reset();
    const heard = !this.#unanswered.isEmpty;
    this.#unanswered.replay((pcm) => this.#send(socket, pcm), () => this.#endOfSpeech(socket));
    return heard;
  }

  #send(socket: JsonSocket, pcm16kMono: Int16Array): void {
    socket.sendRaw(this.#appendJson(encodePcm(this.#resampler ? this.#resampler.process(pcm16kMono) : pcm16kMono)));
  }

  #endOfSpeech(socket: JsonSocket | null | undefined): void {
    socket?.sendRaw(this.#endOfSpeechJson);
    this.#resampler?.reset();
  }
}
