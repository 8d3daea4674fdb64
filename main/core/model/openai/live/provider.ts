// GPT-Live provider (`gpt-live-1.1`, the current OpenAI speech model since 2026-11-20) on its primary
// WebSocket transport `<base>/live/sessions`. Transport: `ws` via shared/json-socket.ts (the SDK's
// Live socket class forces wss: like its Realtime one, and compatible local servers speak ws://).
import type { LiveModelProvider } from '../../../ports.ts';
import { coreOptionsOf, sessionProvider, type ProviderOptions } from '../../session-core/provider-options.ts';
import { toWebSocketBase } from '../../wire/ws-url.ts';
import { createBearerScrubber } from '../../realtime-wire/json-socket.ts';
import { OpenAILiveSession } from './session.ts';

export const DEFAULT_LIVE_BASE_URL = 'wss://api.openai.com/v1';
/** The backend model of the reference's Responses-delegation example. */
export const DEFAULT_DELEGATION_MODEL = 'gpt-5.5';

export interface OpenAILiveProviderOptions extends ProviderOptions {
  /** OPENAI_LIVE_BASE_URL: http(s)/ws(s) base ending in the API version, e.g. ws://127.0.0.1:PORT/v1. */
  baseUrl?: string;
  delegationModel?: string;
  handshakeTimeoutMs?: number;
  turnGapMs?: number;
  bargeInGapMs?: number;
  /** Silence after the last tool result before texts may go out again (default 5 s). */
  toolReplyWaitMs?: number;
}

export function createOpenAILiveProvider(options: OpenAILiveProviderOptions): LiveModelProvider {
  const baseUrl = toWebSocketBase(options.baseUrl ?? DEFAULT_LIVE_BASE_URL);
  const core = coreOptionsOf(options, 'openai-live', createBearerScrubber(options.apiKey));
  return sessionProvider(
    'openai-live',
    (connect) =>
      new OpenAILiveSession({
        ...core,
        baseUrl,
        apiKey: options.apiKey,
        voice: options.voice,
        delegationModel: options.delegationModel ?? DEFAULT_DELEGATION_MODEL,
        systemInstruction: connect.systemInstruction,
        tools: connect.tools,
        handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
        turnGapMs: options.turnGapMs ?? 700,
        bargeInGapMs: options.bargeInGapMs ?? 250,
        toolReplyWaitMs: options.toolReplyWaitMs ?? 5000,
      }),
  );
}
