// The library floor's model side (bench/library-floor.ts, issue 51 item 6): each provider's wire
// protocol over a bare `ws`, the least a bridge must send and read: its audio message at its input
// rate, its end of the user's audio, its reply audio, its barge-in signal. No session policy, no
// reconnects, no transcripts, no tools, no truncation.
//
// Discord sends no packets while a user is quiet, so a service whose own detector ends the turn
// (OpenAI Realtime's semantic_vad, GPT-Live) must be sent the quiet: once the library's receive
// stream ends, digital silence in 100 ms chunks every 100 ms until the reply's first audio, the user
// talks again, or 5 s (semantic_vad medium's 4 s + 1 s), the same rule the core follows
// (main/core/audio/end-of-turn.ts). Gemini takes `audioStreamEnd` instead.
import WebSocket from 'ws';
import type { BenchProvider } from './model-fakes.ts';

export interface FloorModelHooks {
  /** Model audio, 16-bit mono at `outputRate`. */
  play(pcm: Buffer): void;
  /** The reply is over: the player plays out what it has. */
  endReply(): void;
  /** The service cut the reply (the user barged in): the player stops now. */
  cutReply(): void;
  /** Whether the owner's receive stream is open (GPT-Live yields without an event). */
  userSpeaking(): boolean;
}

export interface FloorModel {
  readonly inputRate: number;
  readonly outputRate: number;
  readonly ready: Promise<void>;
  sendAudio(samples: Int16Array): void;
  /** The library's receive stream ended (100 ms without packets). */
  speechEnded(): void;
  /** The owner's receive stream opened again. */
  speechStarted(): void;
}

const PACE_MS = 100;
const PACE_CAP_MS = 5000;
const base64 = (samples: Int16Array): string =>
  Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64');

export function connectFloorModel(
  provider: BenchProvider,
  url: string,
  key: string,
  modelId: string,
  hooks: FloorModelHooks,
): FloorModel {
  const socket = new WebSocket(url, provider === 'gemini' ? {} : { headers: { Authorization: `Bearer ${key}` } });
  const inputRate = provider === 'gemini' ? 16_000 : 24_000;
  const silence = new Int16Array((inputRate * PACE_MS) / 1000);
  const send = (event: object): void => socket.send(JSON.stringify(event));
  let pacing: NodeJS.Timeout | null = null;
  const stopPacing = (): void => {
    if (pacing) clearInterval(pacing);
    pacing = null;
  };
  let replying = false;
  const audio = (data: string): void => {
    stopPacing();
    replying = true;
    hooks.play(Buffer.from(data, 'base64'));
  };
  const ended = (cut: boolean): void => {
    replying = false;
    if (cut) hooks.cutReply();
    else hooks.endReply();
  };
  const audioMessage: (samples: Int16Array) => object =
    provider === 'gemini'
      ? (s) => ({ realtimeInput: { audio: { data: base64(s), mimeType: 'audio/pcm;rate=16000' } } })
      : provider === 'openai-realtime'
        ? (s) => ({ type: 'input_audio_buffer.append', audio: base64(s) })
        : (s) => ({ type: 'session.input_audio.append', audio: base64(s) });

  const ready = new Promise<void>((resolve, reject) => {
    socket.once('close', (code, reason) => reject(new Error(`model closed ${code} ${reason.toString()}`)));
    socket.once('open', () => {
      if (provider === 'gemini')
        send({ setup: { model: `models/${modelId}`, generationConfig: { responseModalities: ['AUDIO'] } } });
      if (provider === 'openai-live')
        send({
          type: 'session.start',
          session: { model: modelId, audio: { format: { type: 'audio/pcm', rate: 24_000 } } },
        });
    });
    socket.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as Record<string, unknown> & { type?: string };
      if (provider === 'gemini') {
        const content = m.serverContent as
          | {
              modelTurn?: { parts?: { inlineData?: { data: string } }[] };
              interrupted?: boolean;
              turnComplete?: boolean;
            }
          | undefined;
        if (m.setupComplete) resolve();
        for (const part of content?.modelTurn?.parts ?? []) if (part.inlineData) audio(part.inlineData.data);
        if (content?.interrupted) ended(true);
        if (content?.turnComplete) ended(false);
        return;
      }
      switch (m.type) {
        // Realtime: the session as the core sets it up (24 kHz both ways, semantic_vad that creates the response; the client cancels).
        case 'session.created':
          return send({
            type: 'session.update',
            session: {
              type: 'realtime',
              model: modelId,
              output_modalities: ['audio'],
              audio: {
                input: {
                  format: { type: 'audio/pcm', rate: 24_000 },
                  turn_detection: {
                    type: 'semantic_vad',
                    eagerness: 'medium',
                    create_response: true,
                    interrupt_response: false,
                  },
                },
                output: { format: { type: 'audio/pcm', rate: 24_000 } },
              },
            },
          });
        case 'session.updated':
        case 'session.started':
          return resolve();
        case 'response.output_audio.delta':
        case 'session.output_audio.delta':
          return audio(m.delta as string);
        case 'input_audio_buffer.speech_started':
          if (!replying) return;
          send({ type: 'response.cancel' });
          return ended(true);
        case 'response.done':
          return replying ? ended(false) : undefined;
        // GPT-Live ends a reply with its usage; one that ended while the owner talks is a yield.
        case 'session.usage.updated':
          return replying ? ended(hooks.userSpeaking()) : undefined;
        default:
          return;
      }
    });
  });

  return {
    inputRate,
    outputRate: 24_000,
    ready,
    sendAudio: (samples) => send(audioMessage(samples)),
    speechEnded: () => {
      if (provider === 'gemini') return send({ realtimeInput: { audioStreamEnd: true } });
      stopPacing();
      const until = performance.now() + PACE_CAP_MS;
      pacing = setInterval(() => (performance.now() > until ? stopPacing() : send(audioMessage(silence))), PACE_MS);
    },
    speechStarted: stopPacing,
  };
}
