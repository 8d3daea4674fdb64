// A local HTTP receiver on 127.0.0.1 standing in for a Discord webhook: records every POST body
// and answers from a script (status, headers, body, or hang), default 204.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (to exercise timeouts); the socket is destroyed when the receiver closes. */
  hang?: boolean;
  /** Answer only after this many ms (a slow receiver that still acts on the request). */
  delayMs?: number;
  /** Act on the request, then drop the connection without an answer (the sender cannot tell). */
  dropAnswer?: boolean;
}

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  json: unknown;
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** Idempotency-Key of each request acted on (with `honourKeys`, a repeat of a key is not). */
  actedOn: string[];
  script: ScriptedReply[];
  close(): Promise<void>;
}

/**
 * `port`: listen on this port (to bring a receiver back up where a refused one was). `honourKeys`:
 * a repeat of an Idempotency-Key already acted on is answered 200 and not acted on again.
 */
export async function startWebhookReceiver(port = 0, options: { honourKeys?: boolean } = {}): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const actedOn: string[] = [];
  const script: ScriptedReply[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
      received.push({ path: req.url ?? '', headers: req.headers, json });
      const key = String(req.headers['idempotency-key'] ?? '');
      if (options.honourKeys && key && actedOn.includes(key)) {
        res.writeHead(200);
        return void res.end();
      }
      actedOn.push(key);
      const reply = script.shift() ?? { status: 204 };
      if (reply.dropAnswer) return void req.socket.destroy();
      if (reply.hang) {
        hanging.add(res);
        return;
      }
      const answer = (): void => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 204, reply.headers ?? {});
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) {
        hanging.add(res);
        setTimeout(answer, reply.delayMs);
      } else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const listening = (server.address() as AddressInfo).port;
  return {
    // Shaped like a Discord webhook URL; the id/token are obviously fake and built at run time.
    url: `http://127.0.0.1:${listening}/api/webhooks/${'1'.repeat(18)}/${'fake-token-'.repeat(3)}`,
    received,
    actedOn,
    script,
    async close() {
      for (const res of hanging) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
