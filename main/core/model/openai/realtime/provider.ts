// OpenAI Realtime provider (GA Realtime API, the "legacy" speech API since GPT-Live, still what
// most OpenAI-compatible local servers speak). Transport: `ws` directly, see shared/json-socket.ts.
import type { Logger } from 'pino';
import type { LiveModelConnectOptions, LiveModelProvider, LiveModelSession } from '../../../ports.ts';
import { systemClock, type Clock } from '../../clock.ts';
import { defaultInjectedText } from '../../injected-text.ts';
import { DEFAULT_BACKOFF, type BackoffOptions } from '../../session-core/fallback.ts';
import { createBearerScrubber } from '../shared/json-socket.ts';
import { toWebSocketBase } from '../../wire/ws-url.ts';
import { DEFAULT_REALTIME_BASE_URL } from '../shared/realtime-input.ts';
import type { TurnDetectionMode } from './events.ts';
import { OpenAIRealtimeSession } from './session.ts';



export interface OpenAIRealtimeProviderOptions {
  apiKey: string;
  model: string;
  fallbackModels?: readonly string[];
  voice: string;
  /** OPENAI_REALTIME_BASE_URL: http(s)/ws(s) base ending in the API version, e.g. ws://127.0.0.1:PORT/v1. */
  baseUrl?: string;
  turnDetection?: TurnDetectionMode;
  transcriptionModel?: string;
  logger: Logger;
  clock?: Clock;
  backoff?: Partial<BackoffOptions>;
  formatInjectedText?: (text: string) => string;
  handshakeTimeoutMs?: number;
  frameAckTimeoutMs?: number;
  replyWaitMs?: number;
}

export function createOpenAIRealtimeProvider(options: OpenAIRealtimeProviderOptions): LiveModelProvider {
  const baseUrl = toWebSocketBase(options.baseUrl ?? DEFAULT_REALTIME_BASE_URL);
  const models = [...new Set([options.model, ...(options.fallbackModels ?? [])].filter(Boolean))];
  const logger = options.logger.child({ module: 'openai-realtime' });
  return {
    name: 'openai-realtime',
    async connect(connect: LiveModelConnectOptions): Promise<LiveModelSession> {
      const session = new OpenAIRealtimeSession({
        baseUrl,
        apiKey: options.apiKey,
        models,
        voice: options.voice,
        turnDetection: options.turnDetection ?? 'server_vad',
        transcriptionModel: options.transcriptionModel ?? 'gpt-4o-transcribe',
        systemInstruction: connect.systemInstruction,
        tools: connect.tools,
        vocabulary: connect.vocabulary,
        logger,
        clock: options.clock ?? systemClock,
        scrub: createBearerScrubber(options.apiKey),
        backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
        formatInjectedText: options.formatInjectedText ?? defaultInjectedText,
        playedMs: connect.playedMs,
        handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
        frameAckTimeoutMs: options.frameAckTimeoutMs ?? 5_000,
        replyWaitMs: options.replyWaitMs,
      });
      await session.start();
      return session;
    },
  };
}
