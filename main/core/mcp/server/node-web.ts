// The v2 MCP SDK serves web-standard `Request`/`Response`; the sidecar is Node `http` behind
// fastify. These two functions are the whole adapter: fastify has already read and parsed the body
// (and run the sidecar's checks), so the `Request` carries it re-serialized, and the `Response` is
// streamed back, event by event for SSE, until the client goes away.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A web `Request` for one already-parsed MCP request; its signal aborts when the client disconnects. */
export function toWebRequest(req: IncomingMessage, res: ServerResponse, body: unknown): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // The body is re-serialized below, so its original length no longer applies.
  headers.delete('content-length');
  const abort = new AbortController();
  res.once('close', () => abort.abort());
  const host = headers.get('host') ?? '127.0.0.1';
  const hasBody = req.method === 'POST' && body !== undefined;
  return new Request(`http://${host}${req.url ?? '/mcp'}`, {
    method: req.method ?? 'GET',
    headers,
    signal: abort.signal,
    ...(hasBody ? { body: JSON.stringify(body) } : {}),
  });
}

/** Writes a web `Response` to the Node response, streaming its body; resolves when it ends or the client leaves. */
export async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = (): void => void reader.cancel().catch(() => undefined);
  res.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
      if (res.destroyed) break;
    }
  } catch {
    // The stream was cancelled (client gone) or the server ended it: nothing more to send.
  } finally {
    res.off('close', stop);
    if (!res.writableEnded) res.end();
  }
}
