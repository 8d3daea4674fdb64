// One WebSocket to BidiGenerateContent, through the official SDK. A conversation may span several
// of these (goAway switch-over, reconnects); session.ts owns that story, this file only
// opens, forwards and closes one socket and remembers how it ended.
import type { GoogleGenAI, LiveConnectConfig, LiveServerMessage, Session } from '@google/genai';
import type { SocketClaim } from './guarded-socket.ts';
import { ConnectFailure } from '../wire/connect-failure.ts';

export interface ConnectionHandlers {
  onMessage(message: LiveServerMessage, connection: GeminiConnection): void;
  /** Only for connections that finished setup; a failed open rejects `open()` instead. */
  onClose(code: number, reason: string, connection: GeminiConnection): void;
  /** A frame that is not a JSON object (`fatal`), or a message of the wrong shape, arrived (dropped before the SDK saw it). */
  onBadMessage(reason: string, fatal: boolean, connection: GeminiConnection): void;
}

/** What opens one socket: the SDK client and the claim on its guarded socket factory. */
export interface LiveClient {
  ai: GoogleGenAI;
  claimSocket: (claim: SocketClaim) => () => void;
}

export class GeminiConnection {
  readonly id: number;
  readonly model: string;
  #session: Session | null = null;
  #ready = false;
  #closedByUs = false;
  #closed = false;
  #closeCode: number | null = null;
  #closeReason = '';
  #errorMessage = '';
  readonly #handlers: ConnectionHandlers;
  #resolveClosed: () => void = () => undefined;
  /** Settles when the socket has closed (for us or for the server). */
  readonly closed: Promise<void>;
  /** Clock reading when setup completed (set by the session). */
  openedAt = 0;
  /** Client messages written on this socket so far, the `setup` included (its number is 0). */
  readonly #sent = { count: 0 };

  private constructor(id: number, model: string, handlers: ConnectionHandlers) {
    this.id = id;
    this.model = model;
    this.#handlers = handlers;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  /** Resolves after `setupComplete` (SDK behaviour), rejects with ConnectFailure otherwise. */
  static async open(
    client: LiveClient,
    id: number,
    model: string,
    config: LiveConnectConfig,
    handlers: ConnectionHandlers,
    scrub: (text: string) => string,
    /** `setup` is sent only once this settles (the socket dials at once); see SocketClaim. */
    setupGate?: Promise<void>,
    /** Ask for transparent resumption (see SocketClaim.transparent). */
    transparent = false,
  ): Promise<GeminiConnection> {
    const connection = new GeminiConnection(id, model, handlers);
    const unclaim = client.claimSocket({
      onBadMessage: (reason, fatal) => {
        if (connection.#ready && !connection.#closed) handlers.onBadMessage(reason, fatal, connection);
      },
      setupGate,
      transparent,
      sent: connection.#sent,
    });
    try {
      connection.#session = await client.ai.live.connect({
        model,
        config,
        callbacks: {
          onmessage: (message) => handlers.onMessage(message, connection),
          onerror: (event) => {
            connection.#errorMessage = scrub(String((event as { message?: unknown }).message ?? 'WebSocket error'));
          },
          onclose: (event) => connection.#onClose(event.code, scrub(String(event.reason ?? ''))),
        },
      });
    } catch (err) {
      unclaim();
      connection.#resolveClosed();
      const reason =
        connection.#closeReason || connection.#errorMessage || scrub(err instanceof Error ? err.message : String(err));
      throw new ConnectFailure(connection.#closeCode, reason);
    }
    if (connection.#closed)
      throw new ConnectFailure(connection.#closeCode, connection.#closeReason || 'closed during setup');
    connection.#ready = true;
    return connection;
  }

  get isOpen(): boolean {
    return this.#ready && !this.#closed;
  }

  /** The number the next client message on this socket gets (transparent resumption counts them). */
  get nextMessageIndex(): number {
    return this.#sent.count;
  }

  get closedByUs(): boolean {
    return this.#closedByUs;
  }

  /** The SDK's Session; throws nothing when the socket is already gone (ws drops late sends). */
  get sdk(): Session | null {
    return this.isOpen ? this.#session : null;
  }

  close(): void {
    if (this.#closed || this.#closedByUs) return;
    this.#closedByUs = true;
    try {
      this.#session?.close();
    } catch {
      // already closed underneath us: nothing to release
    }
  }

  #onClose(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closeCode = code;
    this.#closeReason = reason;
    this.#resolveClosed();
    if (this.#ready) this.#handlers.onClose(code, reason, this);
  }
}
