// What every model fake's server is, whatever the protocol: an HTTP server on 127.0.0.1 whose
// upgrades it takes (ws-server.ts), the upgrades it counted, its connections in order, "the n-th
// established one" for tests, a provider incident (setUnavailable), and its stop. Each fake adds its
// path, key check and session rules (acceptUpgrade).
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { closeWebSocketFake, nthEstablished, watchEvents } from './ws-server.ts';

/** A connection as an incident sees it. */
export interface Closable {
  readonly isOpen: boolean;
  close(code?: number, reason?: string): void;
}

/** How an incident cuts an open socket: the service's internal-error close. */
export interface IncidentClose {
  code: number;
  reason: string;
}

// The event map is the subclass's.
export abstract class FakeServer<C extends Closable, E extends Record<keyof E, unknown[]>> extends EventEmitter<E> {
  readonly port: number;
  /** Every upgrade request, accepted or not: the number a retry storm would inflate. */
  upgradeAttempts = 0;
  readonly connections: C[] = [];
  protected readonly wss: WebSocketServer;
  readonly #server: Server;
  readonly #name: string;
  readonly #readyEvent: keyof E & string;
  #down = false;

  /** `readyEvent`: emitted when a connection becomes established (the client's session is ready). */
  constructor(server: Server, wss: WebSocketServer, init: { name: string; readyEvent: keyof E & string }) {
    super();
    this.#server = server;
    this.wss = wss;
    this.#name = init.name;
    this.#readyEvent = init.readyEvent;
    this.port = (server.address() as AddressInfo).port;
  }

  /** Connections whose session is ready (the client got the service's "ready" message). */
  abstract get established(): C[];

  /** How this service closes an open socket in an incident (default: 1011, OpenAI's wording). */
  protected readonly incidentClose: IncidentClose = { code: 1011, reason: 'Internal server error' };

  /**
   * A provider incident (status.cloud.google.com, status.openai.com: "elevated error rates" on the
   * Live and Realtime APIs, minutes long): while on, open sockets are cut with the service's
   * internal-error close and every new upgrade is answered 503 Service Unavailable, as an
   * unreachable or overloaded front end does.
   */
  setUnavailable(down: boolean): void {
    this.#down = down;
    if (!down) return;
    for (const c of this.connections) if (c.isOpen) c.close(this.incidentClose.code, this.incidentClose.reason);
  }

  /** Every upgrade: counted, refused while an incident lasts, else the fake's own (acceptUpgrade). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.upgradeAttempts++;
    if (this.#down) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    this.acceptUpgrade(req, socket, head);
  }

  /** The fake's path, key and model checks, then the WebSocket upgrade. */
  protected abstract acceptUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;

  /** Resolves with the n-th (0-based) established connection. */
  connection(n: number, timeoutMs = 10_000): Promise<C> {
    return nthEstablished(this, watchEvents<E>(this, [this.#readyEvent]), n, timeoutMs, this.#name);
  }

  close(): Promise<void> {
    return closeWebSocketFake(this.#server, this.wss);
  }
}
