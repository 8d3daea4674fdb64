// What every model fake's server is, whatever the protocol: an HTTP server on 127.0.0.1 whose
// upgrades it takes (ws-server.ts), the upgrades it counted, its connections in order, "the n-th
// established one" for tests, and its stop. Each fake adds its path, key check and session rules.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { closeWebSocketFake, nthEstablished, watchEvents } from './ws-server.ts';

// The event map is the subclass's.
export abstract class FakeServer<C, E extends Record<keyof E, unknown[]>> extends EventEmitter<E> {
  readonly port: number;
  /** Every upgrade request, accepted or not: the number a retry storm would inflate. */
  upgradeAttempts = 0;
  readonly connections: C[] = [];
  protected readonly wss: WebSocketServer;
  readonly #server: Server;
  readonly #name: string;
  readonly #readyEvent: keyof E & string;

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

  abstract handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;

  /** Resolves with the n-th (0-based) established connection. */
  connection(n: number, timeoutMs = 10_000): Promise<C> {
    return nthEstablished(this, watchEvents<E>(this, [this.#readyEvent]), n, timeoutMs, this.#name);
  }

  close(): Promise<void> {
    return closeWebSocketFake(this.#server, this.wss);
  }
}
