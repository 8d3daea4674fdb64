// The fake's transcription-only sessions (`<base>/realtime?intent=transcription`), as the Realtime
// transcription guide describes them: `session.update` must say `type: "transcription"` (a
// conversation session's `type: "realtime"` is refused here, and the conversation fake refuses
// `transcription` in turn), the model sits under `audio.input.transcription.model`, and the
// session never generates responses: response and conversation-item events are refused. With
// `turn_detection: null` nothing is transcribed until the client commits (≥ 100 ms of audio):
// `input_audio_buffer.committed`, then a delta and `conversation.item.input_audio_transcription
// .completed` for that item. What the fake "hears" is the test's `transcribe(pcm24k)`.
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { base64ToPcm, concatPcm } from '../../shared/pcm.ts';
import { audioFormat, BASE64_RE, describeIssue, turnDetection } from './protocol.ts';

export const TRANSCRIPTION_MODELS = [
  'gpt-4o-mini-transcribe',
  'gpt-4o-transcribe',
  'gpt-4o-transcribe-latest',
  'whisper-1',
  'gpt-realtime-whisper',
  'gpt-live-transcribe',
] as const;
const RATE = 24_000;

const transcriptionSession = z
  .object({
    type: z.literal('transcription'),
    audio: z
      .object({
        input: z
          .object({
            format: audioFormat.optional(),
            transcription: z
              .object({
                model: z.enum(TRANSCRIPTION_MODELS),
                language: z.string().optional(),
                prompt: z.string().optional(),
              })
              .strict()
              .optional(),
            turn_detection: turnDetection.optional(),
            noise_reduction: z
              .object({ type: z.enum(['near_field', 'far_field']) })
              .strict()
              .nullish(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    include: z.array(z.string()).optional(),
  })
  .strict();

const eventId = z.string().max(64).optional();
const schemas: Record<string, z.ZodType> = {
  'session.update': z
    .object({ type: z.literal('session.update'), event_id: eventId, session: transcriptionSession })
    .strict(),
  'input_audio_buffer.append': z
    .object({ type: z.literal('input_audio_buffer.append'), event_id: eventId, audio: z.string().regex(BASE64_RE) })
    .strict(),
  'input_audio_buffer.commit': z.object({ type: z.literal('input_audio_buffer.commit'), event_id: eventId }).strict(),
  'input_audio_buffer.clear': z.object({ type: z.literal('input_audio_buffer.clear'), event_id: eventId }).strict(),
};

export interface TranscriptionHooks {
  /** The text the "transcriber" hears in one committed buffer (24 kHz mono). */
  transcribe: (pcm24k: Int16Array) => string;
  delayMs: number;
}

export class FakeTranscriptionConnection {
  readonly received: Record<string, unknown>[] = [];
  readonly errors: { code: string; message: string; event_id: string | null }[] = [];
  /** Each committed buffer and what the fake said it held. */
  readonly commits: { samples: number; transcript: string }[] = [];
  model: string | null = null;
  samplesReceived = 0;
  #buffer: Int16Array[] = [];
  #nextId = 1;
  readonly #socket: WebSocket;
  readonly #hooks: TranscriptionHooks;

  constructor(socket: WebSocket, hooks: TranscriptionHooks) {
    this.#socket = socket;
    this.#hooks = hooks;
    socket.on('message', (data) => this.#handle(String(data)));
    this.send({
      type: 'session.created',
      session: { object: 'realtime.session', type: 'transcription', id: `sess_transcribe_${Date.now()}` },
    });
  }

  get isOpen(): boolean {
    return this.#socket.readyState === this.#socket.OPEN;
  }

  send(event: Record<string, unknown>): void {
    if (this.isOpen) this.#socket.send(JSON.stringify({ event_id: `event_t${this.#nextId++}`, ...event }));
  }

  #error(code: string, message: string, eventId: string | null): void {
    this.errors.push({ code, message, event_id: eventId });
    this.send({
      type: 'error',
      error: { type: 'invalid_request_error', code, message, param: null, event_id: eventId },
    });
  }

  #handle(text: string): void {
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return this.#error('invalid_json', 'We could not parse the JSON body of your request.', null);
    }
    this.received.push(event);
    const type = String(event.type);
    const id = typeof event.event_id === 'string' ? event.event_id : null;
    const schema = schemas[type];
    if (!schema)
      return this.#error(
        'invalid_request_error',
        `'${type}' is not supported in transcription sessions: they do not generate responses.`,
        id,
      );
    const checked = schema.safeParse(event);
    if (!checked.success) {
      const issue = describeIssue(checked.error);
      return this.#error(issue.code, issue.message, id);
    }
    if (type === 'session.update') {
      const session = (event.session ?? {}) as { audio?: { input?: { transcription?: { model?: string } } } };
      this.model = session.audio?.input?.transcription?.model ?? this.model;
      this.send({ type: 'session.updated', session: { ...session, object: 'realtime.session' } });
    } else if (type === 'input_audio_buffer.append') {
      const pcm = base64ToPcm(event.audio as string);
      this.#buffer.push(pcm);
      this.samplesReceived += pcm.length;
    } else if (type === 'input_audio_buffer.clear') {
      this.#buffer = [];
      this.send({ type: 'input_audio_buffer.cleared' });
    } else {
      this.#commit(id);
    }
  }

  #commit(eventId: string | null): void {
    const pcm = concatPcm(this.#buffer);
    if (pcm.length < (RATE * 100) / 1000) {
      return this.#error(
        'input_audio_buffer_commit_empty',
        `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${(pcm.length / 24).toFixed(2)}ms of audio.`,
        eventId,
      );
    }
    this.#buffer = [];
    const itemId = `item_t${this.#nextId++}`;
    this.send({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id: itemId });
    if (!this.model) return; // no transcription model configured: nothing is transcribed
    const transcript = this.#hooks.transcribe(pcm);
    this.commits.push({ samples: pcm.length, transcript });
    setTimeout(() => {
      this.send({
        type: 'conversation.item.input_audio_transcription.delta',
        item_id: itemId,
        content_index: 0,
        delta: transcript,
      });
      this.send({
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: itemId,
        content_index: 0,
        transcript,
        usage: { type: 'duration', seconds: pcm.length / RATE },
      });
    }, this.#hooks.delayMs).unref();
  }
}
