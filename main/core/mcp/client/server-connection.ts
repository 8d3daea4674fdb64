// One configured MCP server, supervised: connect (initialize + tools/list) within the server's
// timeout, restart with exponential backoff when it crashes, hangs at start or stops answering a
// call, and report every change. Nothing here ever waits on the call: a broken server only makes
// its own tools unavailable.
import { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { McpServerReportView } from '../../api-types.ts';
import { isStdioServer, type McpServerConfig } from './config.ts';

export type McpServerState = McpServerReportView['state'];

/** `last_error` says why the last start or call failed; never a header or env value. */
export type McpServerReport = McpServerReportView;

export interface ServerConnectionEvents {
  /** The tool list changed (ready with tools, or gone while restarting). */
  tools: [tools: Tool[]];
  report: [report: McpServerReport];
}

/** A call that got no answer in time; the server is restarted. */
export class McpToolTimeoutError extends Error {
  readonly code = 'tool_timeout';
}
/** The server is not connected (starting or restarting). */
export class McpServerUnavailableError extends Error {
  readonly code = 'server_unavailable';
}

const BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 60_000];
/** A server's stderr is kept to the last few lines for the log on a crash, never unbounded. */
const STDERR_TAIL = 20;

export interface ServerConnectionOptions {
  config: McpServerConfig;
  logger: Logger;
  clientVersion: string;
  /** Backoff steps (tests shorten them). */
  backoffMs?: readonly number[];
}

export class McpServerConnection extends EventEmitter<ServerConnectionEvents> {
  readonly config: McpServerConfig;
  #state: McpServerState = 'starting';
  #client: Client | null = null;
  #tools: Tool[] = [];
  #restarts = 0;
  #failuresInARow = 0;
  #lastError: string | undefined;
  #nextAttemptAt: number | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  #generation = 0;
  #stderrTail: string[] = [];
  readonly #log: Logger;
  readonly #backoff: readonly number[];
  readonly #clientVersion: string;

  constructor(options: ServerConnectionOptions) {
    super();
    this.config = options.config;
    this.#log = options.logger.child({ mcpServer: options.config.name });
    this.#backoff = options.backoffMs ?? BACKOFF_MS;
    this.#clientVersion = options.clientVersion;
  }

  get state(): McpServerState {
    return this.#state;
  }

  get tools(): readonly Tool[] {
    return this.#tools;
  }

  get timeoutMs(): number {
    return this.config.timeout_seconds * 1000;
  }

  report(): McpServerReport {
    return {
      name: this.config.name,
      transport: isStdioServer(this.config) ? 'stdio' : 'http',
      state: this.#state,
      tools: this.#tools.length,
      restarts: this.#restarts,
      ...(this.#lastError ? { last_error: this.#lastError } : {}),
      ...(this.#state === 'restarting' && this.#nextAttemptAt ? { next_attempt_at: this.#nextAttemptAt / 1000 } : {}),
    };
  }

  start(): void {
    void this.#connect();
  }

  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const client = this.#client;
    if (!client || this.#state !== 'ready') throw new McpServerUnavailableError(`MCP server ${this.config.name} is ${this.#state}`);
    const generation = this.#generation;
    try {
      return (await client.callTool({ name, arguments: args }, undefined, { timeout: this.timeoutMs, ...(signal ? { signal } : {}) })) as CallToolResult;
    } catch (err) {
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout && !signal?.aborted) {
        // No answer in time: the server is hung (or this call wedged it). Restart it rather than let
        // the next call wait as long again.
        this.#fail(generation, `no answer to ${name} within ${this.config.timeout_seconds} s`);
        throw new McpToolTimeoutError(`${this.config.name} did not answer ${name} within ${this.config.timeout_seconds} s; the server is being restarted`);
      }
      throw err;
    }
  }

  async stop(): Promise<void> {
    this.#state = 'stopped';
    this.#generation++;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    const client = this.#client;
    this.#client = null;
    await client?.close().catch(() => undefined);
  }

  #transport(): Transport {
    const config = this.config;
    if (isStdioServer(config)) {
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: { ...getDefaultEnvironment(), ...config.env },
        ...(config.cwd ? { cwd: config.cwd } : {}),
        stderr: 'pipe',
      });
      // Drain stderr (a full pipe would block the server) and keep only its tail for crash reports.
      transport.stderr?.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) this.#stderrTail.push(line.slice(0, 300));
        if (this.#stderrTail.length > STDERR_TAIL) this.#stderrTail.splice(0, this.#stderrTail.length - STDERR_TAIL);
      });
      return transport;
    }
    return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
  }

  async #connect(): Promise<void> {
    if (this.#state === 'stopped') return;
    const generation = ++this.#generation;
    this.#setState('starting');
    this.#stderrTail = [];
    const client = new Client({ name: 'live-voice-bridge', version: this.#clientVersion });
    const transport = this.#transport();
    transport.onclose = () => {
      if (generation === this.#generation && this.#state === 'ready') this.#fail(generation, 'the server closed the connection (crashed or exited)');
    };
    try {
      await client.connect(transport, { timeout: this.timeoutMs });
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.timeoutMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor && tools.length < 500);
      if (generation !== this.#generation) {
        await client.close().catch(() => undefined);
        return;
      }
      this.#client = client;
      this.#tools = tools;
      this.#failuresInARow = 0;
      this.#setState('ready');
      this.#log.info({ tools: tools.length }, 'MCP server ready');
      this.emit('tools', tools);
    } catch (err) {
      await client.close().catch(() => undefined);
      const reason =
        err instanceof McpError && err.code === ErrorCode.RequestTimeout
          ? `no answer to initialize or tools/list within ${this.config.timeout_seconds} s`
          : `could not start: ${(err as Error).message}`;
      this.#fail(generation, reason);
    }
  }

  #fail(generation: number, reason: string): void {
    if (generation !== this.#generation || this.#state === 'stopped' || this.#state === 'restarting') return;
    this.#generation++;
    this.#lastError = reason;
    const client = this.#client;
    this.#client = null;
    // Closing the client kills a stdio child (SIGTERM, then SIGKILL) or ends the HTTP session.
    void client?.close().catch(() => undefined);
    if (this.#tools.length) {
      this.#tools = [];
      this.emit('tools', []);
    }
    const delay = this.#backoff[Math.min(this.#failuresInARow, this.#backoff.length - 1)]!;
    this.#failuresInARow++;
    this.#restarts++;
    this.#nextAttemptAt = Date.now() + delay;
    this.#log.warn({ reason, restartInMs: delay, restarts: this.#restarts, stderr: this.#stderrTail.slice(-5) }, 'MCP server failed; restarting');
    this.#setState('restarting');
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      void this.#connect();
    }, delay);
    this.#retryTimer.unref();
  }

  #setState(state: McpServerState): void {
    this.#state = state;
    this.emit('report', this.report());
  }
}
