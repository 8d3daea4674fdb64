// User speech the service has not answered yet, kept so that a new socket hears it. OpenAI Realtime
// and GPT-Live have no resumption: audio sent to a socket that then drops or expires (and audio that
// arrives while no socket is open) is gone with that session, and the history the adapters replay
// holds only transcripts of turns the service already finished. Gemini resumes, but a resumed
// session knows the conversation only as of its handle. So the session keeps the user's audio since
// the service last began answering (bounded, 5 s by default: the oldest gives way) and sends it
// again, in order with its ends of speech, on the next socket; it stays kept until the new service
// answers it, so a second drop before the answer replays it again.
import { AudioHold } from '../audio-hold.ts';

export class UnansweredAudio {
  readonly #hold: AudioHold;

  constructor(maxMs = 5000) {
    this.#hold = new AudioHold(maxMs);
  }

  /** Chunks kept. */
  get size(): number {
    return this.#hold.size;
  }

  /** Nothing kept: the service has answered everything the user said. */
  get isEmpty(): boolean {
    return this.#hold.isEmpty;
  }

  /** Every chunk of user audio (16 kHz mono), sent live or not. */
  push(pcm16kMono: Int16Array): void {
    this.#hold.push(pcm16kMono);
  }

  /** The user stopped talking (the voice gate closed). */
  end(): void {
    this.#hold.end();
  }

  /** The service began answering: what it heard is in its conversation now. */
  answered(): void {
    this.#hold.clear();
  }

  /** Sends everything kept on the new socket; `send` gets views valid only during the call. */
  replay(send: (pcm16kMono: Int16Array) => void, endOfSpeech: () => void): void {
    if (this.#hold.isEmpty) return;
    this.#hold.drain(send, endOfSpeech);
    this.#hold.restoreLast();
  }
}
