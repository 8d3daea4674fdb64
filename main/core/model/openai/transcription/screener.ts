// The wake-name screener on OpenAI's Realtime transcription session: `<base>/realtime?intent=
// transcription` (no model in the URL), `session.update` with `type: "transcription"`, a
// transcription model and `turn_detection: null`, so nothing is transcribed until we commit and the
// service never answers (transcription sessions generate no responses). Per utterance: its first
// words are appended (16 kHz → 24 kHz, the only PCM rate the service takes), then
// `input_audio_buffer.commit`; the service names the committed item
// (`input_audio_buffer.committed`) and later sends its text
// (`conversation.item.input_audio_transcription.completed`). Commits are answered in order, so
// each commit's promise takes the next committed item id.
import type { Logger } from 'pino';
import { z } from 'zod';
import { Resampler16kTo24kMono } from '../../../audio/resampler-16k-to-24k.ts';
import type { ScreeningStream, SpeechScreener } from '../../../ports.ts';
import { encodePcm } from '../../wire/pcm-codec.ts';
import { toWebSocketBase } from '../../wire/ws-url.ts';
import {
  audioAppendJson,
  DEFAULT_REALTIME_BASE_URL,
  errorEvent,
  REALTIME_AUDIO_RATE,
} from '../../realtime-wire/realtime-input.ts';
import { createBearerScrubber, JsonSocket, type JsonEvent } from '../../realtime-wire/json-socket.ts';

export interface OpenAIScreenerOptions {
  apiKey: string;
  /** Transcription model, e.g. gpt-4o-mini-transcribe. */
  model: string;
  /** Same base as OPENAI_REALTIME_BASE_URL (ends in the API version). */
  baseUrl?: string;
  logger: Logger;
  handshakeTimeoutMs?: number;
}

const committed = z.object({ type: z.literal('input_audio_buffer.committed'), item_id: z.string() });
const completed = z.object({
  type: z.literal('conversation.item.input_audio_transcription.completed'),
  item_id: z.string(),
  transcript: z.string(),
});
const failed = z.object({ type: z.literal('conversation.item.input_audio_transcription.failed'), item_id: z.string() });

interface PendingCommit {
  eventId: string;
  itemId: string | null;
  settle: (text: string | null) => void;
}

class OpenAIScreeningStream implements ScreeningStream {
  readonly #socket: JsonSocket;
  readonly #log: Logger;
  readonly #resampler = new Resampler16kTo24kMono();
  readonly #pending: PendingCommit[] = [];
  #nextCommit = 1;

  constructor(socket: JsonSocket, log: Logger) {
    this.#socket = socket;
    this.#log = log;
    socket.attach({ onEvent: (event) => this.#onEvent(event), onClose: () => this.#failAll() });
  }

  get isOpen(): boolean {
    return this.#socket.isOpen;
  }

  sendAudio(pcm16kMono: Int16Array): void {
    this.#socket.sendRaw(audioAppendJson(encodePcm(this.#resampler.process(pcm16kMono))));
  }

  transcribe(timeoutMs: number): Promise<string | null> {
    this.#resampler.reset(); // the next audio is another utterance
    return new Promise((resolve) => {
      const eventId = `evt_screen_${this.#nextCommit++}`;
      const timer = setTimeout(() => settle(null), timeoutMs);
      const entry: PendingCommit = { eventId, itemId: null, settle: (text) => settle(text) };
      const settle = (text: string | null): void => {
        clearTimeout(timer);
        const at = this.#pending.indexOf(entry);
        if (at >= 0) this.#pending.splice(at, 1);
        resolve(text);
      };
      this.#pending.push(entry);
      if (!this.#socket.send({ type: 'input_audio_buffer.commit', event_id: eventId })) settle(null);
    });
  }

  close(): void {
    this.#failAll();
    this.#socket.close(1000, 'bye');
  }

  #onEvent(event: JsonEvent): void {
    if (event.type === 'input_audio_buffer.committed') {
      const parsed = committed.safeParse(event);
      const waiting = this.#pending.find((p) => p.itemId === null);
      if (parsed.success && waiting) waiting.itemId = parsed.data.item_id;
    } else if (event.type === 'conversation.item.input_audio_transcription.completed') {
      const parsed = completed.safeParse(event);
      if (parsed.success) this.#pending.find((p) => p.itemId === parsed.data.item_id)?.settle(parsed.data.transcript);
    } else if (event.type === 'conversation.item.input_audio_transcription.failed') {
      const parsed = failed.safeParse(event);
      if (parsed.success) this.#pending.find((p) => p.itemId === parsed.data.item_id)?.settle(null);
    } else if (event.type === 'error') {
      const parsed = errorEvent.safeParse(event);
      // A refused commit (e.g. less than 100 ms of audio) has no transcript coming.
      const eventId = parsed.success ? parsed.data.error.event_id : undefined;
      this.#pending.find((p) => p.eventId === eventId)?.settle(null);
      this.#log.warn({ code: parsed.success ? parsed.data.error.code : 'malformed' }, 'wake screener: error event');
    }
  }

  #failAll(): void {
    for (const p of [...this.#pending]) p.settle(null);
  }
}

export class OpenAITranscriptionScreener implements SpeechScreener {
  readonly #o: OpenAIScreenerOptions;

  constructor(options: OpenAIScreenerOptions) {
    this.#o = options;
  }

  async open(): Promise<ScreeningStream> {
    const { apiKey, model } = this.#o;
    const scrub = createBearerScrubber(apiKey);
    const url = `${toWebSocketBase(this.#o.baseUrl ?? DEFAULT_REALTIME_BASE_URL)}/realtime?intent=transcription`;
    const timeoutMs = this.#o.handshakeTimeoutMs ?? 10_000;
    const socket = await JsonSocket.open({ url, apiKey, scrub, timeoutMs });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no session.updated within the handshake timeout')), timeoutMs);
        const done = (err?: Error): void => {
          clearTimeout(timer);
          if (err) reject(err);
          else resolve();
        };
        socket.attach({
          onEvent: (event) => {
            if (event.type === 'session.created') {
              socket.send({
                type: 'session.update',
                session: {
                  type: 'transcription',
                  audio: {
                    input: {
                      format: { type: 'audio/pcm', rate: REALTIME_AUDIO_RATE },
                      transcription: { model },
                      turn_detection: null,
                    },
                  },
                },
              });
            } else if (event.type === 'session.updated') {
              done();
            } else if (event.type === 'error') {
              const parsed = errorEvent.safeParse(event);
              done(
                new Error(
                  scrub(
                    parsed.success
                      ? `${parsed.data.error.code ?? 'error'}: ${parsed.data.error.message}`
                      : 'malformed error event',
                  ),
                ),
              );
            }
          },
          onClose: (code, reason) =>
            done(new Error(`closed during the handshake (${code}${reason ? `: ${reason}` : ''})`)),
        });
      });
    } catch (err) {
      socket.close();
      throw err;
    }
    this.#o.logger.info({ model }, 'wake screener connected');
    return new OpenAIScreeningStream(socket, this.#o.logger);
  }
}
