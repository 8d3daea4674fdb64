// Gemini Live provider.
//
// Why the official @google/genai live client and not `ws` directly: SDK 3.1.0 covers everything
// this provider needs (verified against the fake and in node_modules):
// - `sessionResumption.handle`, `contextWindowCompression`, transcription and tool declarations
//   all go into `setup` through LiveConnectConfig;
// - every server message (including `goAway` and `sessionResumptionUpdate`) reaches `onmessage`
//   unfiltered, parsed from text OR binary frames (`handleWebSocketMessage` accepts string,
//   Buffer, ArrayBuffer and Blob);
// - each `ai.live.connect()` is an independent socket, so the next connection can be opened while
//   the old one still runs (goAway switch-over, where the service allows it);
// - `connect()` resolves only after `setupComplete` and rejects with the close code and reason,
//   which is what model fallback and key errors need;
// - `httpOptions.baseUrl`/`apiVersion` point it at a local fake or a proxy.
// What it costs: one object + JSON.stringify per audio chunk, which `ws` would cost us too.
// What it lacks: a bad frame from the service becomes an unhandled rejection inside the SDK, so its
// socket factory is replaced by guarded-socket.ts.
import { GoogleGenAI } from '@google/genai';
import type { LiveModelProvider } from '../../ports.ts';
import { coreOptionsOf, sessionProvider, type ProviderOptions } from '../session-core/provider-options.ts';
import { guardLiveSockets } from './guarded-socket.ts';
import { GeminiLiveSession } from './session.ts';

export { DEFAULT_BACKOFF } from '../session-core/fallback.ts';

export interface GeminiProviderOptions extends ProviderOptions {
  /** e.g. http://127.0.0.1:PORT for the fake (http → ws, anything else → wss). */
  baseUrl?: string;
  /** Path version; the SDK 3.x default is `v1`, the documented Live path is `v1beta`. */
  apiVersion?: string;
  /** Force the goAway switch-over this long before the announced close (default 2000). */
  switchMarginMs?: number;
  /** After an idle switch-over, how long the old socket may still deliver output (default 500). */
  drainMs?: number;
  /** No server message for this long while the model's turn is open counts as a stall (default 5000). */
  stallMs?: number;
  /** User audio held while no socket is ready (default 5000 ms). */
  holdAudioMs?: number;
  /** A socket that dies sooner than this after setup makes the next reconnect back off (default 10000). */
  stableMs?: number;
  /** After a resume with kept tool results, how long an idle model may take to ask again before they go as text (default 1500). */
  reaskWaitMs?: number;
  /** Renew the session (fresh, seeded) at an idle point this long after it began (default 55 min; null: never). */
  sessionRenewAfterMs?: number | null;
  /** Sent user audio kept for a transparent resume (default 30 s). */
  replayTailMs?: number;
  /** Ask for transparent resumption (default true). */
  transparentResumption?: boolean;
}

/** Removes the key (and any `key=`/`access_token=` query value) from text that may reach a log. */
export function createKeyScrubber(apiKey: string): (text: string) => string {
  return (text) => {
    let out = text.replace(/([?&](?:key|access_token)=)[^&\s"']+/g, '$1[REDACTED]');
    if (apiKey.length >= 4) out = out.split(apiKey).join('[REDACTED]');
    return out;
  };
}

export function createGeminiProvider(options: GeminiProviderOptions): LiveModelProvider {
  const httpOptions: { baseUrl?: string; apiVersion: string } = { apiVersion: options.apiVersion ?? 'v1beta' };
  if (options.baseUrl) httpOptions.baseUrl = options.baseUrl;
  const ai = new GoogleGenAI({ apiKey: options.apiKey, httpOptions });
  const client = { ai, claimSocket: guardLiveSockets(ai) };
  const core = coreOptionsOf(options, 'gemini', createKeyScrubber(options.apiKey));
  return sessionProvider(
    'gemini',
    (connect) =>
      new GeminiLiveSession({
        ...core,
        client,
        voice: options.voice,
        systemInstruction: connect.systemInstruction,
        tools: connect.tools,
        switchMarginMs: options.switchMarginMs ?? 2000,
        drainMs: options.drainMs ?? 500,
        stallMs: options.stallMs ?? 5000,
        holdAudioMs: options.holdAudioMs ?? 5000,
        stableMs: options.stableMs ?? 10_000,
        reaskWaitMs: options.reaskWaitMs,
        sessionRenewAfterMs: options.sessionRenewAfterMs,
        replayTailMs: options.replayTailMs,
        transparentResumption: options.transparentResumption,
        seed: connect.seed,
        pendingContext: connect.pendingContext,
        vocabulary: connect.vocabulary,
        patience: connect.patience,
        resumeHandle: connect.resumeHandle,
      }),
  );
}
