// One JSON-event WebSocket to an OpenAI speech endpoint (Realtime or GPT-Live). Both speak the same
// framing: one JSON object per text frame with a `type`, auth in an `Authorization: Bearer` header.
// This file only opens, parses, sends and closes; the session files own the conversation.
//
// Why `ws` and not the SDK's OpenAIRealtimeWS: openai@7.57.0 `buildRealtimeURL` forces `wss:` on
// every URL (realtime/internal-base.js:87-137), so it cannot reach the plain `ws://` endpoints that
// OpenAI-Realtime-compatible local servers (and our fake) expose, and it has no GPT-Live socket at all.
// The SDK still types every client event we send (`RealtimeClientEvent`).
import WebSocket from 'ws';
import { z } from 'zod';
import { ConnectFailure } from '../wire/connect-failure.ts';
import { rawDataBytes } from '../wire/ws-raw-data.ts';

export type JsonEvent = { type: string } & Record<string, unknown>;

const envelope = z.object({ type: z.string().min(1) }).passthrough();

export interface JsonSocketHandlers {
  onEvent(event: JsonEvent): void;
  /** Only after `open()` resolved; a failed open rejects instead. */
  onClose(code: number, reason: string): void;
}

export interface JsonSocketOpenOptions {
  url: string;
  apiKey: string;
  /** Removes secrets from anything that may reach a log or an error message. */
  scrub: (text: string) => string;
  /** How long the handshake may take before the attempt counts as failed. */
  timeoutMs?: number;
}

/** Strips the key from text, including a `Bearer …` echo. */
export function createBearerScrubber(apiKey: string): (text: string) => string {
  return (text) => {
    let out = text.replace(/(Bearer\s+)[^\s"']+/gi, '$1[REDACTED]');
    if (apiKey.length >= 4) out = out.split(apiKey).join('[REDACTED]');
    return out;
  };
}

export class JsonSocket {
  #ws: WebSocket | null = null;
  #opened = false;
  #closed = false;
  #closedByUs = false;
  #handlers: JsonSocketHandlers | null = null;
  /** Events that arrived before a handler was attached (the handshake's first server event). */
  readonly #early: JsonEvent[] = [];

  /** Resolves once the WebSocket is open; rejects with ConnectFailure (HTTP status as the code). */
  static open(options: JsonSocketOpenOptions): Promise<JsonSocket> {
    const socket = new JsonSocket();
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(options.url, {
        headers: { Authorization: `Bearer ${options.apiKey}` },
        perMessageDeflate: false,
        handshakeTimeout: options.timeoutMs ?? 10_000,
      });
      socket.#ws = ws;
      let settled = false;
      const fail = (code: number | null, reason: string): void => {
        if (settled) return;
        settled = true;
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        ws.terminate();
        reject(new ConnectFailure(code, options.scrub(reason)));
      };
      ws.on('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          fail(
            res.statusCode ?? null,
            `HTTP ${res.statusCode}: ${describeHttpError(Buffer.concat(chunks).toString('utf8'))}`,
          ),
        );
        res.on('error', () => fail(res.statusCode ?? null, `HTTP ${res.statusCode}`));
      });
      ws.on('error', (err) => fail(null, err.message));
      ws.on('close', (code, reason) => fail(code, reason.toString() || 'closed during the handshake'));
      ws.on('open', () => {
        if (settled) return;
        settled = true;
        socket.#opened = true;
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        ws.on('message', (data, isBinary) => socket.#onMessage(data, isBinary));
        ws.on('close', (code, reason) => socket.#onClose(code, options.scrub(reason.toString())));
        resolve(socket);
      });
    });
  }

  get isOpen(): boolean {
    return this.#opened && !this.#closed && this.#ws?.readyState === WebSocket.OPEN;
  }

  get closedByUs(): boolean {
    return this.#closedByUs;
  }

  attach(handlers: JsonSocketHandlers): void {
    this.#handlers = handlers;
    for (const event of this.#early.splice(0)) handlers.onEvent(event);
  }

  /** Sends a prepared JSON string (the audio path builds its string without an object). */
  sendRaw(json: string): boolean {
    if (!this.isOpen) return false;
    this.#ws!.send(json);
    return true;
  }

  send(event: object): boolean {
    return this.sendRaw(JSON.stringify(event));
  }

  close(code = 1000, reason = ''): void {
    if (this.#closed || this.#closedByUs) return;
    this.#closedByUs = true;
    try {
      this.#ws?.close(code, reason);
    } catch {
      this.#ws?.terminate();
    }
  }

  #onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    // Both services send text frames; a binary frame is read the same way rather than dropped.
    const text = rawDataBytes(data).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.#dispatch({ type: 'client.unparseable', binary: isBinary, length: text.length });
      return;
    }
    const checked = envelope.safeParse(parsed);
    this.#dispatch(
      checked.success
        ? (checked.data as JsonEvent)
        : { type: 'client.unparseable', binary: isBinary, length: text.length },
    );
  }

  #dispatch(event: JsonEvent): void {
    if (this.#handlers) this.#handlers.onEvent(event);
    else this.#early.push(event);
  }

  #onClose(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#handlers?.onClose(code, reason);
  }
}

/** The `error.message` of an OpenAI JSON error body, else the body's first 200 characters. */
function describeHttpError(body: string): string {
  try {
    const parsed = z
      .object({ error: z.object({ message: z.string(), code: z.string().nullish() }) })
      .safeParse(JSON.parse(body));
    if (parsed.success)
      return parsed.data.error.code
        ? `${parsed.data.error.code}: ${parsed.data.error.message}`
        : parsed.data.error.message;
  } catch {
    // not JSON: fall through
  }
  return body.slice(0, 200) || 'no body';
}
