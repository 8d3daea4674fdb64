// OpenAI Realtime provider (GA Realtime API, the "legacy" speech API since GPT-Live, still what
// most OpenAI-compatible local servers speak). Transport: `ws` directly, see shared/json-socket.ts.
import { DEFAULT_PATIENCE } from '../../../contracts/patience.ts';
import type { LiveModelProvider } from '../../../ports.ts';
import { coreOptionsOf, sessionProvider, type ProviderOptions } from '../../session-core/provider-options.ts';
import { createBearerScrubber } from '../../realtime-wire/json-socket.ts';
import { toWebSocketBase } from '../../wire/ws-url.ts';
import { DEFAULT_REALTIME_BASE_URL } from '../../realtime-wire/realtime-input.ts';
import type { TurnDetectionMode } from '../../realtime-wire/events.ts';
import { RealtimeWireSession } from '../../realtime-wire/session.ts';
import { OPENAI_REALTIME_DIALECT } from './dialect.ts';

export interface OpenAIRealtimeProviderOptions extends ProviderOptions {
  /** OPENAI_REALTIME_BASE_URL: http(s)/ws(s) base ending in the API version, e.g. ws://127.0.0.1:PORT/v1. */
  baseUrl?: string;
  turnDetection?: TurnDetectionMode;
  transcriptionModel?: string;
  handshakeTimeoutMs?: number;
  frameAckTimeoutMs?: number;
}

export function createOpenAIRealtimeProvider(options: OpenAIRealtimeProviderOptions): LiveModelProvider {
  const baseUrl = toWebSocketBase(options.baseUrl ?? DEFAULT_REALTIME_BASE_URL);
  const core = coreOptionsOf(options, 'openai-realtime', createBearerScrubber(options.apiKey));
  return sessionProvider(
    'openai-realtime',
    (connect) =>
      new RealtimeWireSession({
        ...core,
        dialect: OPENAI_REALTIME_DIALECT,
        baseUrl,
        apiKey: options.apiKey,
        voice: options.voice,
        // semantic_vad (content-aware) unless server_vad is chosen; an explicit ms patience is server_vad (dialect.ts).
        turnDetection: options.turnDetection ?? 'semantic_vad',
        patience: connect.patience ?? DEFAULT_PATIENCE,
        transcriptionModel: options.transcriptionModel ?? 'gpt-4o-transcribe',
        systemInstruction: connect.systemInstruction,
        tools: connect.tools,
        vocabulary: connect.vocabulary,
        playedMs: connect.playedMs,
        handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
        frameAckTimeoutMs: options.frameAckTimeoutMs ?? 5_000,
      }),
  );
}
