// What the two OpenAI fakes (Realtime, GPT-Live) share beyond every fake's base (../shared/): the
// `/v1` base URL, the bearer key, the refusal at the upgrade with OpenAI's JSON error body (and that
// body's 404), JSON text frames only, and tool outputs read back.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { FakeServer, type Closable } from '../shared/fake-server.ts';

/** Answers an upgrade with an HTTP error and OpenAI's JSON error body (never echoing a key). */
export function refuseUpgrade(socket: Duplex, status: number, code: string | null, message: string): void {
  const body = JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } });
  const reason = status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** What a plain HTTP request to an OpenAI fake gets with its 404. */
export const OPENAI_NOT_FOUND = {
  error: { message: 'Not found', type: 'invalid_request_error', param: null, code: null },
};

/** A function_call_output as the test reads it: parsed JSON, or the raw text when it is not JSON. */
export function parseToolOutput(output: unknown): unknown {
  if (typeof output !== 'string') return output;
  try {
    return JSON.parse(output);
  } catch {
    return output;
  }
}

/** The key of an upgrade's `Authorization: Bearer …` ('' when there is none). */
export function bearerKey(req: IncomingMessage): string {
  return /^Bearer\s+(\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
}

/** A key the fake takes: one of `validKeys`, or with none given any key of 8+ characters. */
export function keyAccepted(key: string, validKeys: readonly string[] | undefined): boolean {
  return validKeys ? validKeys.includes(key) : key.length >= 8;
}

/** The OpenAI fakes' server: its `/v1` base URL, the HTTP statuses it refused, JSON text frames only; `ready` when a connection is established. */
export abstract class OpenAIFakeServer<
  C extends Closable,
  E extends Record<keyof E, unknown[]> & { ready: unknown[] },
> extends FakeServer<C, E> {
  /** Base URL for OPENAI_*_BASE_URL (ends in /v1). */
  readonly url: string;
  /** HTTP statuses refused at the upgrade, in order. */
  readonly refusals: number[] = [];

  constructor(server: Server, wss: WebSocketServer, name: string) {
    super(server, wss, { name, readyEvent: 'ready' });
    this.url = `ws://127.0.0.1:${this.port}/v1`;
  }

  protected refuse(socket: Duplex, status: number, code: string | null, message: string): void {
    this.refusals.push(status);
    refuseUpgrade(socket, status, code, message);
  }

  /** The services take JSON text frames only: a binary frame gets an `error` event. */
  protected routeTextFrames(
    ws: WebSocket,
    connection: { error(code: string, message: string): void; handleRaw(text: string): void },
  ): void {
    ws.on('message', (data, isBinary) => {
      if (isBinary)
        connection.error('invalid_request_error', 'Binary frames are not supported; send JSON text frames.');
      else connection.handleRaw(data.toString());
    });
  }
}
