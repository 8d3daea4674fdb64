// `live-voice-bridge mcp`: MCP over stdio for clients that only launch commands. A thin relay, no
// server of its own: every JSON-RPC message from stdin goes to the running sidecar's `/mcp` (with
// the bearer token), every message back goes to stdout. So tools, errors and notifications are
// exactly those of the HTTP endpoint. stdout carries only protocol; diagnostics go to stderr.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';

export interface StdioBridgeOptions {
  /** e.g. http://127.0.0.1:18943/mcp */
  url: string;
  token: string | undefined;
  stdin?: Readable;
  stdout?: Writable;
  /** One line per problem (the sidecar is down, the token is wrong). */
  warn: (line: string) => void;
}

function reasonOf(err: unknown, url: string): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return `the sidecar is not running at ${new URL(url).origin} (start it with \`npm run headless\` or the desktop app)`;
  const message = err instanceof Error ? err.message : String(err);
  if ((err as { code?: unknown }).code === 401) return 'the sidecar refused the token (401): check DISCORD_VOICE_LIVE_SIDECAR_TOKEN or the sidecar.token file';
  return `the sidecar did not accept the request: ${message}`;
}

/** Resolves when stdin ends (the client went away) or the sidecar session closes. */
export async function runStdioBridge(options: StdioBridgeOptions): Promise<void> {
  const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  const http = new StreamableHTTPClientTransport(new URL(options.url), { requestInit: { headers } });
  const stdio = new StdioServerTransport(options.stdin, options.stdout);

  await new Promise<void>((resolve) => {
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      // End the sidecar session too (DELETE /mcp), so it does not wait out its idle timeout.
      void http
        .terminateSession()
        .catch(() => undefined)
        .then(() => Promise.all([http.close(), stdio.close()]))
        .catch(() => undefined)
        .then(() => resolve());
    };

    stdio.onmessage = (message: JSONRPCMessage) => {
      http.send(message).catch((err: unknown) => {
        const reason = reasonOf(err, options.url);
        options.warn(reason);
        // A request must get an answer, or the client waits forever.
        if (isJSONRPCRequest(message)) void stdio.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: reason } });
      });
    };
    http.onmessage = (message) => void stdio.send(message).catch(finish);
    http.onerror = (err) => options.warn(reasonOf(err, options.url));
    stdio.onclose = finish;
    http.onclose = finish;
    // stdin's end is how a stdio MCP client says goodbye.
    (options.stdin ?? process.stdin).once('end', finish);

    void http.start().then(() => stdio.start());
  });
}
