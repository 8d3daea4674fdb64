// The user's audio on Gemini sockets across resumes: sent live when a socket is ready, held (in
// order) while none is; every chunk written is numbered and kept until the service confirms
// consuming it, so a transparent resume sends exactly what it did not hear (unconsumed-tail.ts);
// without that, an utterance the resumed session has not answered is sent again whole
// (session-core/unanswered-audio.ts). All three are the one unheard-speech store
// (audio/unheard-speech.ts) under their policies: until a socket is up, until acknowledged, until
// answered.
import type { Logger } from 'pino';
import { UnheardSpeech, untilSocketUp } from '../../audio/unheard-speech.ts';
import { UnansweredAudio } from '../session-core/unanswered-audio.ts';
import { UnconsumedTail } from '../unconsumed-tail.ts';
import { encodePcm } from '../wire/pcm-codec.ts';
import type { GeminiConnection } from './connection.ts';

export const INPUT_AUDIO_MIME = 'audio/pcm;rate=16000';

type Sdk = NonNullable<GeminiConnection['sdk']>;

const UNANSWERED_MS = 30_000;

export class GeminiAudioInput {
  readonly #hold: UnheardSpeech;
  /**
   * Every chunk sent since the model last answered or issued a resumable handle: what a resumed
   * session has not heard. Replayed on the next socket when a socket ends before the reply began.
   */
  readonly #unanswered: UnansweredAudio;
  #replayUnanswered = false;
  /**
   * Entries of #unanswered from this number on are not in the latest handle's state: a resume from
   * it replays only those. The ones before stay until an answer: a session that gives up hands them
   * all over, since the session the call opens next is fresh and has heard none of them.
   */
  #uncoveredFrom = 0;
  /** Sent audio the service has not confirmed consuming (transparent resumption). */
  readonly #tail: UnconsumedTail;
  /** The latest handle came with `lastConsumedClientMessageIndex`: a resume replays the tail. */
  #tailIndexed = false;
  /** The socket whose message numbers the tail's entries carry. */
  #tailOwner: GeminiConnection | null = null;

  constructor(holdAudioMs: number, replayTailMs: number) {
    this.#hold = new UnheardSpeech(untilSocketUp(holdAudioMs));
    // As long as the model link's own hold (bridge/model-link.ts): this is what a session that gives
    // up after its retries (~26-34 s) hands over, and the day soak lost every word said in them (#55).
    // Cleared by every answer and resumable handle, so it only fills while no service hears the call.
    this.#unanswered = new UnansweredAudio(Math.max(holdAudioMs, UNANSWERED_MS));
    this.#tail = new UnconsumedTail(replayTailMs);
  }

  get droppedSamples(): number {
    return this.#hold.evictedSamples;
  }

  get heldChunks(): number {
    return this.#hold.keptChunks;
  }

  get replayedSamples(): number {
    return this.#tail.replayedSamples;
  }

  send(active: GeminiConnection | null, pcm16kMono: Int16Array): void {
    const sdk = active?.sdk;
    this.#unanswered.push(pcm16kMono);
    // Held while no socket is ready, and behind earlier held audio so the order stays.
    if (!sdk || !this.#hold.isEmpty) this.#hold.push(pcm16kMono);
    else this.#sendPcm(active!, sdk, pcm16kMono);
  }

  /** The voice gate closed. True when the end went out with speech awaiting a reply. */
  end(active: GeminiConnection | null): boolean {
    const sdk = active?.sdk;
    this.#unanswered.end();
    if (!sdk || !this.#hold.isEmpty) {
      this.#hold.end();
      return false;
    }
    this.#sendStreamEnd(active!, sdk);
    return !this.#unanswered.isEmpty;
  }

  /**
   * A socket was adopted: what the resumed service did not hear goes first, in order. True when an
   * end of speech went out (a reply is awaited).
   */
  adopt(connection: GeminiConnection, resumed: boolean, logger: Logger): boolean {
    const sdk = connection.sdk;
    // Transparent resume: exactly what the service did not consume is sent again, then what was held.
    const transparentReplay = Boolean(sdk && resumed && this.#tailIndexed && !this.#tail.isEmpty);
    let ended = false;
    if (transparentReplay && sdk) {
      const samples = this.#tail.replay(
        (pcm) => this.#sendPcm(connection, sdk, pcm),
        () => {
          this.#sendStreamEnd(connection, sdk);
          ended = true;
        },
      );
      logger.info(
        { connection: connection.id, replayedMs: Math.round(samples / 16) },
        'unconsumed user audio sent again after a transparent resume',
      );
    } else this.#tail.clear();
    this.#tailOwner = connection;
    const replay = !transparentReplay && this.#replayUnanswered && this.#unanswered.nextSeq > this.#uncoveredFrom;
    this.#replayUnanswered = false;
    if (!sdk || (!replay && this.#hold.isEmpty)) return ended;
    // After a resume the service knows the conversation as of the handle: an utterance it has not
    // answered is sent again whole (it includes what was held); otherwise just the held audio.
    const send = (pcm: Int16Array): void => this.#sendPcm(connection, sdk, pcm);
    const end = (): void => {
      this.#sendStreamEnd(connection, sdk);
      ended = true;
    };
    const chunks = replay ? this.#unanswered.size : this.#hold.size;
    if (replay) {
      const from = this.#uncoveredFrom;
      this.#unanswered.replay(
        (pcm, seq) => {
          if (seq >= from) send(pcm);
        },
        (seq) => {
          if (seq >= from) end();
        },
      );
      this.#hold.clear();
    } else this.#hold.replay(send, end);
    logger.info(
      { connection: connection.id, chunks, replay },
      replay ? 'unanswered user audio sent again after the resume' : 'held user audio sent after the resume',
    );
    return ended;
  }

  /** A resumable handle: the service's state includes client messages up to `index` (when given). */
  handle(connection: GeminiConnection, index: number | undefined): void {
    this.#tailIndexed = index !== undefined;
    if (index !== undefined && connection === this.#tailOwner) this.#tail.consumed(index);
  }

  /** The model answered: nothing to replay, nor to hand over. */
  answered(): void {
    this.#unanswered.answered();
    this.#uncoveredFrom = this.#unanswered.nextSeq;
  }

  /** A resumable handle covers what was said so far: a resume from it need not replay it (a fresh session would). */
  covered(): void {
    this.#uncoveredFrom = this.#unanswered.nextSeq;
  }

  /** The reply began: the utterance it answers is not sent again after a resume (it would be answered twice). */
  replyBegan(): void {
    this.#tail.clear();
  }

  /** The active socket ended: an unanswered utterance is sent again on the next one. */
  socketEnded(): void {
    this.#replayUnanswered = this.#unanswered.nextSeq > this.#uncoveredFrom;
  }

  /** A new service session (not a resume): its message numbers start again. */
  sessionBegan(): void {
    this.#tail.clear();
    this.#tailIndexed = false;
  }

  clear(): void {
    this.#hold.clear();
  }

  /** Takes what no service has answered (copies, in order; null: an end of speech) and forgets it. */
  takeUnanswered(): (Int16Array | null)[] {
    const taken: (Int16Array | null)[] = [];
    this.#unanswered.replay(
      (pcm) => taken.push(pcm.slice()),
      () => {
        taken.push(null);
      },
    );
    this.answered();
    this.#hold.clear();
    this.#replayUnanswered = false;
    return taken;
  }

  /** Every chunk written is numbered and kept until the service confirms it (transparent resumption). */
  #sendPcm(connection: GeminiConnection, sdk: Sdk, pcm: Int16Array): void {
    this.#tail.audio(pcm, connection.nextMessageIndex);
    sdk.sendRealtimeInput({ audio: { data: encodePcm(pcm), mimeType: INPUT_AUDIO_MIME } });
  }

  #sendStreamEnd(connection: GeminiConnection, sdk: Sdk): void {
    this.#tail.end(connection.nextMessageIndex);
    sdk.sendRealtimeInput({ audioStreamEnd: true });
  }
}
