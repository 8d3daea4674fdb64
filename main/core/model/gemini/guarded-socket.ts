// The SDK parses each server frame inside an async handler it never awaits: one frame that is not
// JSON (or binary garbage) becomes an unhandled rejection, which ends a Node process. So the live
// client's WebSocket factory is replaced by this one: frames are checked here, before the SDK sees
// them, a bad one is reported to the connection that received it (which recovers by resuming), and
// frames over MAX_SERVER_MESSAGE_BYTES close the socket (ws answers 1009) instead of filling memory.
//
// No keepalive pings are sent: Gemini's pongs were measured at 8–30 s, and a client ping timeout
// closed calls with a self-inflicted 1011 (field-notes.md). Dead sockets are found by the session's
// stall watchdog instead.
import type { GoogleGenAI } from '@google/genai';
import { WebSocket, type RawData } from 'ws';
import { rawDataBytes } from '../wire/ws-raw-data.ts';
import { serverMessageProblem } from './server-message.ts';

/** Far above any real message (an audio chunk is a few KiB, a tool call a few KiB). */
export const MAX_SERVER_MESSAGE_BYTES = 8 * 1024 * 1024;

interface SdkSocketCallbacks {
  onopen: (event: unknown) => void;
  onerror: (event: { message?: string }) => void;
  onclose: (event: { code: number; reason: string }) => void;
  onmessage: (event: { data: string }) => void;
}

interface SdkSocket {
  connect(): void;
  send(message: string): void;
  close(): void;
}

/** `fatal`: the frame is not JSON (the socket is suspect); otherwise a wrong-shaped message, dropped. */
export type BadMessageHandler = (reason: string, fatal: boolean) => void;

/** What a connection asks of the next socket the factory creates. */
export interface SocketClaim {
  onBadMessage: BadMessageHandler;
  /**
   * The socket dials at once, but the SDK hears `open` (and so sends `setup`) only once this
   * settles: a close-then-resume overlaps the new TCP/WebSocket handshake with the old socket's
   * close handshake, while the service still sees the resume's `setup` only after the close.
   */
  setupGate?: Promise<void>;
  /**
   * Ask for transparent resumption (`sessionResumption.transparent`). SDK 3.1.0 throws on that field
   * in Developer API mode ("only supported in Gemini Enterprise Agent Platform mode"), although the
   * 3.8 service documents it (field-2026-11.md §3.1), so it is added to the `setup` here.
   */
  transparent?: boolean;
  /** Counts every client message written on this socket (the `setup` is number 0). */
  sent?: { count: number };
}

class GuardedSocket implements SdkSocket {
  #ws: WebSocket | null = null;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly callbacks: SdkSocketCallbacks;
  readonly onBadMessage: BadMessageHandler;
  readonly setupGate: Promise<void> | undefined;
  readonly #claim: SocketClaim;
  constructor(url: string, headers: Record<string, string>, callbacks: SdkSocketCallbacks, claim: SocketClaim) {
    this.url = url;
    this.headers = headers;
    this.callbacks = callbacks;
    this.onBadMessage = claim.onBadMessage;
    this.setupGate = claim.setupGate;
    this.#claim = claim;
  }

  connect(): void {
    const ws = new WebSocket(this.url, { headers: this.headers, maxPayload: MAX_SERVER_MESSAGE_BYTES });
    this.#ws = ws;
    const gate = this.setupGate;
    ws.onopen = (event) => {
      if (!gate) this.callbacks.onopen(event);
      // A socket that closed while waiting has already told the SDK (onclose).
      else void gate.then(() => ws.readyState === WebSocket.OPEN && this.callbacks.onopen(event));
    };
    ws.onerror = (event) => this.callbacks.onerror({ message: event.message });
    ws.onclose = (event) => this.callbacks.onclose({ code: event.code, reason: event.reason });
    ws.on('message', (data: RawData) => {
      const text = rawDataBytes(data).toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        this.onBadMessage(`not JSON (${text.length} chars)`, true);
        return;
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        this.onBadMessage('not a JSON object', true);
        return;
      }
      const problem = serverMessageProblem(parsed);
      if (problem !== null) {
        this.onBadMessage(problem, false);
        return;
      }
      this.callbacks.onmessage({ data: text });
    });
  }

  send(message: string): void {
    if (!this.#ws) throw new Error('WebSocket is not connected');
    const sent = this.#claim.sent;
    if (sent && sent.count++ === 0 && this.#claim.transparent) message = withTransparentResumption(message);
    this.#ws.send(message);
  }

  close(): void {
    this.#ws?.close();
  }
}

/** The SDK's `setup` message with `sessionResumption.transparent: true` added. */
function withTransparentResumption(message: string): string {
  const parsed = JSON.parse(message) as { setup?: { sessionResumption?: Record<string, unknown> } };
  if (!parsed.setup) return message;
  parsed.setup.sessionResumption = { ...parsed.setup.sessionResumption, transparent: true };
  return JSON.stringify(parsed);
}

/**
 * Installs the guarded factory on `ai.live` and returns a function that claims the next socket it
 * creates: connection.ts calls it right before `ai.live.connect()`, so each socket reports bad
 * frames to the connection that opened it (sockets are created in the order connect is called).
 */
export function guardLiveSockets(ai: GoogleGenAI): (claim: SocketClaim) => () => void {
  const claims: SocketClaim[] = [];
  const factory = {
    create(url: string, headers: Record<string, string>, callbacks: SdkSocketCallbacks): SdkSocket {
      const claim = claims.shift() ?? { onBadMessage: () => undefined };
      return new GuardedSocket(url, headers, callbacks, claim);
    },
  };
  // `webSocketFactory` is private in the SDK's types; it is read on every connect().
  Object.defineProperty(ai.live, 'webSocketFactory', { value: factory, writable: true, configurable: true });
  return (claim) => {
    claims.push(claim);
    // Withdraws the claim when connect() failed before creating its socket.
    return () => {
      const at = claims.indexOf(claim);
      if (at >= 0) claims.splice(at, 1);
    };
  };
}
