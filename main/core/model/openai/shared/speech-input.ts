// The user's speech on an OpenAI socket (Realtime or GPT-Live): 16 kHz from the voice gate,
// resampled to the 24 kHz both services take, written as a prepared JSON string (the 20 ms hot path
// builds no event object); an end of speech is 600 ms of silence, so the service hears a pause, not
// a cut. Every chunk is also kept until the service answers it (session-core/unanswered-audio.ts)
// and written again on the next socket after a drop.
import { Resampler16kTo24kMono } from '../../../audio/resampler-16k-to-24k.ts';
import { UnansweredAudio } from '../../session-core/unanswered-audio.ts';
import { encodePcm } from '../../wire/pcm-codec.ts';
import type { JsonSocket } from './json-socket.ts';

const OPENAI_AUDIO_RATE = 24_000;

export class SpeechInput {
  readonly #unanswered = new UnansweredAudio();
  readonly #resampler = new Resampler16kTo24kMono();
  readonly #appendJson: (base64: string) => string;
  readonly #endOfSpeechJson: string;

  /** `appendJson` builds the service's audio-append event around base64 PCM. */
  constructor(appendJson: (base64: string) => string) {
    this.#appendJson = appendJson;
    this.#endOfSpeechJson = appendJson(encodePcm(new Int16Array((OPENAI_AUDIO_RATE * 600) / 1000)));
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
    this.#resampler.reset();
    const heard = !this.#unanswered.isEmpty;
    this.#unanswered.replay((pcm) => this.#send(socket, pcm), () => this.#endOfSpeech(socket));
    return heard;
  }

  #send(socket: JsonSocket, pcm16kMono: Int16Array): void {
    socket.sendRaw(this.#appendJson(encodePcm(this.#resampler.process(pcm16kMono))));
  }

  #endOfSpeech(socket: JsonSocket | null | undefined): void {
    socket?.sendRaw(this.#endOfSpeechJson);
    this.#resampler.reset();
  }
}
