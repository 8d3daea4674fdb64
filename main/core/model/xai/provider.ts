// xAI Grok Voice Agent provider (`wss://api.x.ai/v1/realtime?model=…`, key in `Authorization:
// Bearer`): the Realtime protocol's session (model/realtime-wire/) in xAI's dialect.
import { DEFAULT_PATIENCE } from '../../contracts/patience.ts';
import type { LiveModelProvider } from '../../ports.ts';
import { createBearerScrubber } from '../realtime-wire/json-socket.ts';
import { RealtimeWireSession } from '../realtime-wire/session.ts';
import { coreOptionsOf, sessionProvider, type ProviderOptions } from '../session-core/provider-options.ts';
import { toWebSocketBase } from '../wire/ws-url.ts';
import { XAI_DIALECT } from './dialect.ts';

export const DEFAULT_XAI_BASE_URL = 'wss://api.x.ai/v1';

export interface XaiProviderOptions extends ProviderOptions {
  /** XAI_BASE_URL: http(s)/ws(s) base ending in the API version, e.g. ws://127.0.0.1:PORT/v1. */
  baseUrl?: string;
  handshakeTimeoutMs?: number;
}

export function createXaiProvider(options: XaiProviderOptions): LiveModelProvider {
  const baseUrl = toWebSocketBase(options.baseUrl ?? DEFAULT_XAI_BASE_URL);
  const core = coreOptionsOf(options, 'xai', createBearerScrubber(options.apiKey));
  return sessionProvider(
    'xai',
    (connect) =>
      new RealtimeWireSession({
        ...core,
        dialect: XAI_DIALECT,
        baseUrl,
        apiKey: options.apiKey,
        voice: options.voice,
        turnDetection: 'server_vad',
        patience: connect.patience ?? DEFAULT_PATIENCE,
        // xAI transcribes on its own; the name is not sent (the dialect has no transcription settings).
        transcriptionModel: '',
        systemInstruction: connect.systemInstruction,
        tools: connect.tools,
        playedMs: connect.playedMs,
        handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
        frameAckTimeoutMs: 5_000,
      }),
  );
}
