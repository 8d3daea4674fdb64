// One configured MCP server, supervised: connect (initialize + tools/list) within the server's
// timeout, restart with exponential backoff when it crashes, hangs at start or stops answering a
// call, and report every change. Nothing here ever waits on the call: a broken server only makes
// its own tools unavailable.
// Both protocol eras: the v2 SDK client probes with `server/discover` and speaks 2026-07-28 to a
// server that offers it, and falls back to the 2025 `initialize` handshake otherwise (stdio: the
// probe runs in place on the one child, see SupervisedStdioTransport). A server's own questions
// (elicitation, or an embedded one in an `input_required` result) go to `onElicit`.
import { EventEmitter } from 'node:events';
import {
  Client,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ElicitRequestFormParams,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Logger } from 'pino';
import type { McpServerReportView } from '../../api-types.ts';
import { isStdioServer, type McpServerConfig } from '../../config/mcp-servers.ts';
import { forgetChild, trackChild } from './child-reaper.ts';
import { CodedError } from '../../contracts/coded-error.ts';

export type McpServerState = McpServerReportView['state'];

/** `last_error` says why the last start or call failed; never a header or env value. */
export type McpServerReport = McpServerReportView;

export interface ServerConnectionEvents {
  /** The tool list changed (ready with tools, or gone while restarting). */
  tools: [tools: Tool[]];
  report: [report: McpServerReport];
}

/** A call that got no answer in time; the server is restarted. */
export class McpToolTimeoutError extends CodedError<'tool_timeout'> {
  constructor(message: string) {
    super('tool_timeout', message);
  }
}
/** The server is not connected (starting or restarting). */
export class McpServerUnavailableError extends CodedError<'server_unavailable'> {
  constructor(message: string) {
    super('server_unavailable', message);
  }
}

const BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 60_000];
/** A server's stderr is kept to the last few lines for the log on a crash, never unbounded. */
const STDERR_TAIL = 20;

/** What a server asked (2025 `elicitation/create`, or embedded in a 2026 `input_required` result). */
export interface ServerQuestion {
  server: string;
  message: string;
  /** True when the requested form has one boolean field (a yes/no question the owner can answer aloud). */
  yesNoField: string | undefined;
}

/** The answer for the server: the owner's yes/no, or nothing (declined, no answer in time). */
export type ServerQuestionAnswer =
  { action: 'accept'; content: Record<string, boolean> } | { action: 'decline' } | { action: 'cancel' };

export interface ServerConnectionOptions {
  config: McpServerConfig;
  logger: Logger;
  clientVersion: string;
  /** Asks the owner a server's question; without it the client declares no elicitation support. */
  onElicit?: (question: ServerQuestion) => Promise<ServerQuestionAnswer>;
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
  /** The client being connected: stop() must end it too (a child that never answers initialize). */
  #connecting: { client: Client; transport: Transport } | null = null;
  /** Server questions waiting for the owner (they pause the tool-call clock). */
  #questionsPending = 0;
  #protocolVersion: string | undefined;
  readonly #onElicit: ServerConnectionOptions['onElicit'];
  readonly #log: Logger;
  readonly #backoff: readonly number[];
  readonly #clientVersion: string;

  constructor(options: ServerConnectionOptions) {
    super();
    this.config = options.config;
    this.#log = options.logger.child({ mcpServer: options.config.name });
    this.#backoff = options.backoffMs ?? BACKOFF_MS;
    this.#clientVersion = options.clientVersion;
    this.#onElicit = options.onElicit;
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
      ...(this.#state === 'ready' && this.#protocolVersion ? { protocol_version: this.#protocolVersion } : {}),
      ...(this.#lastError ? { last_error: this.#lastError } : {}),
      ...(this.#state === 'restarting' && this.#nextAttemptAt ? { next_attempt_at: this.#nextAttemptAt / 1000 } : {}),
    };
  }

  start(): void {
    void this.#connect();
  }

  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const client = this.#client;
    if (!client || this.#state !== 'ready')
      throw new McpServerUnavailableError(`MCP server ${this.config.name} is ${this.#state}`);
    const generation = this.#generation;
    // The call's own clock, paused while the server waits on the owner's answer to its question
    // (elicitation / input_required): a person answering is not a hung server.
    const hung = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      timer = setTimeout(() => (this.#questionsPending > 0 ? arm() : hung.abort()), this.timeoutMs);
      timer.unref();
    };
    arm();
    const signals = signal ? AbortSignal.any([signal, hung.signal]) : hung.signal;
    try {
      return await client.callTool({ name, arguments: args }, { timeout: 2 ** 31 - 1, signal: signals });
    } catch (err) {
      if ((hung.signal.aborted || isTimeout(err)) && !signal?.aborted) {
        // No answer in time: the server is hung (or this call wedged it). Restart it rather than let
        // the next call wait as long again.
        this.#fail(generation, `no answer to ${name} within ${this.config.timeout_seconds} s`);
        throw new McpToolTimeoutError(
          `${this.config.name} did not answer ${name} within ${this.config.timeout_seconds} s; the server is being restarted`,
        );
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    this.#state = 'stopped';
    this.#generation++;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    const client = this.#client;
    const connecting = this.#connecting;
    this.#client = null;
    this.#connecting = null;
    // Both: a ready server, and one still starting (hung in its handshake) whose child must not outlive
    // us. Its transport is closed directly: during version negotiation the client does not hold it yet.
    await Promise.all([
      client?.close().catch(() => undefined),
      connecting?.client.close().catch(() => undefined),
      connecting?.transport.close().catch(() => undefined),
    ]);
  }

  #transport(): Transport {
    const config = this.config;
    if (isStdioServer(config)) {
      const transport = new SupervisedStdioTransport({
        command: config.command,
        args: config.args,
        env: { ...getDefaultEnvironment(), ...config.env },
        ...(config.cwd ? { cwd: config.cwd } : {}),
        stderr: 'pipe',
      });
      // Drain stderr (a full pipe would block the server) and keep only its tail for crash reports.
      transport.stderr?.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line.trim()) this.#stderrTail.push(line.slice(0, 300));
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
    const client = this.#newClient();
    const transport = this.#transport();
    const connecting = { client, transport };
    this.#connecting = connecting;
    transport.onclose = () => {
      if (transport instanceof SupervisedStdioTransport && transport.pid !== null) forgetChild(transport.pid);
      if (generation === this.#generation && this.#state === 'ready')
        this.#fail(generation, 'the server closed the connection (crashed or exited)');
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
      if (this.#connecting === connecting) this.#connecting = null;
      this.#protocolVersion = client.getNegotiatedProtocolVersion();
      this.#client = client;
      this.#tools = tools;
      this.#failuresInARow = 0;
      this.#setState('ready');
      this.#log.info({ tools: tools.length, protocolVersion: this.#protocolVersion }, 'MCP server ready');
      this.emit('tools', tools);
    } catch (err) {
      if (this.#connecting === connecting) this.#connecting = null;
      // The transport too: a handshake that timed out during version negotiation left it with us.
      await Promise.all([client.close().catch(() => undefined), transport.close().catch(() => undefined)]);
      const reason = isTimeout(err)
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
    this.#log.warn(
      { reason, restartInMs: delay, restarts: this.#restarts, stderr: this.#stderrTail.slice(-5) },
      'MCP server failed; restarting',
    );
    this.#setState('restarting');
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      void this.#connect();
    }, delay);
    this.#retryTimer.unref();
  }

  #newClient(): Client {
    const onElicit = this.#onElicit;
    const client = new Client(
      { name: 'live-voice-bridge', version: this.#clientVersion },
      { versionNegotiation: { mode: 'auto' }, capabilities: onElicit ? { elicitation: { form: {} } } : {} },
    );
    if (onElicit) {
      client.setRequestHandler('elicitation/create', async (request) => {
        const params = request.params as Omit<Partial<ElicitRequestFormParams>, 'mode'> & { mode?: string };
        if (params.mode === 'url' || !params.requestedSchema) return { action: 'decline' as const };
        const booleans = Object.entries(params.requestedSchema.properties ?? {}).filter(
          ([, field]) => (field as { type?: string }).type === 'boolean',
        );
        this.#questionsPending++;
        try {
          return await onElicit({
            server: this.config.name,
            message: String(params.message ?? ''),
            yesNoField: booleans.length === 1 ? booleans[0]![0] : undefined,
          });
        } finally {
          this.#questionsPending--;
        }
      });
    }
    return client;
  }

  #setState(state: McpServerState): void {
    this.#state = state;
    this.emit('report', this.report());
  }
}

/**
 * The SDK's stdio transport, as a subclass so version negotiation probes on this one child in place:
 * the base class probes on a disposable sibling process that a close() during the probe does not
 * reach, so a server hung in its handshake would outlive stop(). Each child is also remembered
 * until it exits (child-reaper.ts).
 */
class SupervisedStdioTransport extends StdioClientTransport {
  override async start(): Promise<void> {
    await super.start();
    if (this.pid !== null) trackChild(this.pid);
  }
}

function isTimeout(err: unknown): boolean {
  return err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout;
}
