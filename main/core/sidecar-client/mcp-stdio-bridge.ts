// `live-voice-bridge mcp`: MCP over stdio for clients that only launch commands. A thin relay, no
// server of its own: every JSON-RPC message from stdin goes to the running sidecar's `/mcp` (with
// the bearer token), every message back goes to stdout. So tools, errors and notifications are
// exactly those of the HTTP endpoint, in both protocol eras: the v2 SDK's HTTP client transport
// derives the 2026-07-28 headers (`MCP-Protocol-Version`, `Mcp-Method`) from each message's own
// `_meta` envelope and leaves 2025-era messages (and their session) untouched, so the relay never
// needs to know which era its client speaks. stdout carries only protocol; diagnostics go to stderr.
// Where the sidecar is, the token, and how a refused connection or token is worded come from the one
// typed sidecar client (client.ts); only the JSON-RPC transport is the MCP SDK's.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Readable, Writable } from 'node:stream';
import { notRunningMessage, TOKEN_REFUSED_HINT, type SidecarClient } from './client.ts';

export interface StdioBridgeOptions {
  /** The running sidecar (its base URL and token); the relay talks to its `/mcp`. */
  client: SidecarClient;
  stdin?: Readable;
  stdout?: Writable;
  /** One line per problem (the sidecar is down, the token is wrong). */
  warn: (line: string) => void;
}

/** The HTTP status of a failed POST (v2 SDK: `SdkHttpError.data.status`). */
function httpStatusOf(err: unknown): number | undefined {
  const status = (err as { data?: { status?: unknown } } | null)?.data?.status;
  return typeof status === 'number' ? status : undefined;
}

function reasonOf(err: unknown, baseUrl: string): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return notRunningMessage(baseUrl);
  const message = err instanceof Error ? err.message : String(err);
  if (httpStatusOf(err) === 401) return TOKEN_REFUSED_HINT;
  return `the sidecar did not accept the request: ${message}`;
}

/** The id of an initialize the relay replays itself; its answer is not the client's to see. */
const REPLAYED_INITIALIZE_ID = 'live-voice-bridge-reinitialize';

/** Resolves when stdin ends (the client went away). */
export async function runStdioBridge(options: StdioBridgeOptions): Promise<void> {
  const { client } = options;
  const headers = client.authHeaders();
  const url = new URL(`${client.baseUrl}/mcp`);
  const stdio = new StdioServerTransport(options.stdin, options.stdout);
  let closed = false;
  /** The client's own initialize, replayed when the sidecar forgot the session (it restarted). */
  let initialize: JSONRPCRequest | undefined;
  let reinitializing: Promise<void> | undefined;

  const connect = (): StreamableHTTPClientTransport => {
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
    transport.onmessage = (message) => {
      if (
        (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) &&
        message.id === REPLAYED_INITIALIZE_ID
      )
        return;
      void stdio.send(message).catch(() => undefined);
    };
    transport.onerror = (err) => options.warn(reasonOf(err, client.baseUrl));
    return transport;
  };
  let http = connect();

  /** A new sidecar session under the same client: initialize again as the client did, then go on. */
  const reinitialize = async (): Promise<void> => {
    const stale = http;
    stale.onmessage = undefined;
    stale.onerror = undefined;
    void stale.close().catch(() => undefined);
    http = connect();
    await http.start();
    await http.send({ ...initialize!, id: REPLAYED_INITIALIZE_ID });
    await http.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  };

  const forward = async (message: JSONRPCMessage): Promise<void> => {
    if (isJSONRPCRequest(message) && isInitializeRequest(message)) initialize = message;
    let failure: unknown;
    try {
      await http.send(message);
      return;
    } catch (err) {
      failure = err;
    }
    // 404: the sidecar no longer knows this session (it restarted, or evicted an idle one).
    if (httpStatusOf(failure) === 404 && initialize !== undefined && !isInitializeRequest(message)) {
      try {
        options.warn('the sidecar lost this MCP session (restarted?); opening a new one');
        await (reinitializing ??= reinitialize().finally(() => (reinitializing = undefined)));
        await http.send(message);
        return;
      } catch (err) {
        failure = err;
      }
    }
    const reason = reasonOf(failure, client.baseUrl);
    options.warn(reason);
    // A request must get an answer, or the client waits forever.
    if (isJSONRPCRequest(message))
      await stdio
        .send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: reason } })
        .catch(() => undefined);
  };

  await new Promise<void>((resolve) => {
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
    stdio.onmessage = (message: JSONRPCMessage) => void forward(message);
    stdio.onclose = finish;
    // stdin's end is how a stdio MCP client says goodbye.
    (options.stdin ?? process.stdin).once('end', finish);
    void http.start().then(() => stdio.start());
  });
}
