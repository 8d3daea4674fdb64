// The bot's gateway connection, stoppable at every step of its handshake. @discordjs/ws 1.2.3 stops
// a shard badly while its handshake is still under way (each case reproduced, against the fake
// Discord holding that step, in test/integration/app/core-stop-while-connecting.test.ts):
// - a socket still CONNECTING is left open with its error handler removed: when the network then
//   resets it, the socket's 'error' is thrown uncaught (ECONNRESET "socket hang up") and the app
//   crashes on Quit;
// - a stop while waiting for HELLO or READY aborts that wait, which the library answers with its own
//   destroy-and-reconnect: the two destroys race (the stop never resolves, the shutdown budget runs
//   out) and the reconnect logs the bot in again 500 ms after the app stopped;
// - a stop before the shards exist (during the REST fetch of /gateway/bot) is not remembered: the
//   login goes on and the bot comes online after the app stopped.
// This strategy (discord.js's documented `ws.buildStrategy` client option) runs the same shards as the
// library's SimpleShardingStrategy; its stop() refuses any later connect, ends a pending one, ignores
// the library's own reconnects once stopping, and closes a socket the library would abandon, with an
// error listener on it first.
import {
  CloseCodes,
  managerToFetchingStrategyOptions,
  SimpleContextFetchingStrategy,
  WebSocketShard,
  WebSocketShardEvents,
  type IShardingStrategy,
  type WebSocketManager,
  type WebSocketShardDestroyOptions,
  type WebSocketShardStatus,
} from '@discordjs/ws';
import { Collection } from '@discordjs/collection';
import type { GatewaySendPayload } from 'discord.js';
import type { Logger } from 'pino';
import { WebSocket } from 'ws';
import { CodedError } from '../contracts/coded-error.ts';

/** Raised into a login still under way when the gateway is stopped. */
export class GatewayStoppedError extends CodedError<'gateway_stopped'> {
  constructor() {
    super('gateway_stopped', 'the Discord gateway was stopped');
  }
}

class StoppableShard extends WebSocketShard {
  #stopping: Promise<void> | null = null;
  readonly #log: Logger;

  constructor(strategy: SimpleContextFetchingStrategy, id: number, log: Logger) {
    super(strategy, id);
    this.#log = log;
  }

  /**
   * Once stopping, every other destroy waits for the stop: the library's reconnect after an aborted
   * handshake wait, and discord.js's own cleanup of the failed login. A second destroy would also
   * take over the first one's wait for the close (the library replaces the socket's onclose).
   */
  override destroy(options?: WebSocketShardDestroyOptions): Promise<void> {
    return this.#stopping ?? super.destroy(options);
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    // The library keeps its socket private; read it only to close what it would leave behind. It is
    // a `ws` WebSocket (the one package.json pins; @discordjs/ws shares it), or nothing is touched.
    const socket: unknown = Reflect.get(this, 'connection');
    const connecting = socket instanceof WebSocket && socket.readyState === WebSocket.CONNECTING ? socket : null;
    // Kept after the library removes its own handler: this socket's errors have nobody else to go to.
    connecting?.on('error', (err) =>
      this.#log.debug({ err, shard: this.id }, 'gateway socket abandoned while connecting'),
    );
    await super.destroy({ code: CloseCodes.Normal, reason: 'the app is stopping' });
    if (connecting && connecting.readyState !== WebSocket.CLOSED) connecting.terminate();
  }
}

export class StoppableGateway implements IShardingStrategy {
  readonly #manager: WebSocketManager;
  readonly #log: Logger;
  readonly #shards = new Collection<number, StoppableShard>();
  #stopped = false;
  #endPendingConnect: ((err: Error) => void) | null = null;

  constructor(manager: WebSocketManager, log: Logger) {
    this.#manager = manager;
    this.#log = log;
  }

  async spawn(shardIds: number[]): Promise<void> {
    const options = await managerToFetchingStrategyOptions(this.#manager);
    for (const shardId of shardIds) {
      const shard = new StoppableShard(new SimpleContextFetchingStrategy(this.#manager, options), shardId, this.#log);
      this.#forwardEvents(shard, shardId);
      this.#shards.set(shardId, shard);
    }
  }

  async connect(): Promise<void> {
    if (this.#stopped) throw new GatewayStoppedError();
    const stopped = new Promise<never>((_resolve, reject) => (this.#endPendingConnect = reject));
    try {
      await Promise.race([Promise.all(this.#shards.map((shard) => shard.connect())), stopped]);
    } finally {
      this.#endPendingConnect = null;
    }
  }

  async destroy(options?: Omit<WebSocketShardDestroyOptions, 'recover'>): Promise<void> {
    await Promise.all(this.#shards.map((shard) => shard.destroy(options)));
    this.#shards.clear();
  }

  /** Closes every shard at whatever step it is; no connect or reconnect happens after this. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#shards.map((shard) => shard.stop()));
    this.#shards.clear();
    // The login under way fails now (discord.js then destroys the client: the shards are idle).
    this.#endPendingConnect?.(new GatewayStoppedError());
  }

  send(shardId: number, payload: GatewaySendPayload): Promise<void> {
    const shard = this.#shards.get(shardId);
    if (!shard) throw new RangeError(`Shard ${shardId} not found`);
    return shard.send(payload);
  }

  fetchStatus(): Collection<number, WebSocketShardStatus> {
    return this.#shards.mapValues((shard) => shard.status);
  }

  /** What the library's own strategy relays: each shard event, tagged with its shard id. */
  #forwardEvents(shard: StoppableShard, shardId: number): void {
    const manager = this.#manager;
    shard.on(WebSocketShardEvents.Closed, (payload) =>
      manager.emit(WebSocketShardEvents.Closed, { ...payload, shardId }),
    );
    shard.on(WebSocketShardEvents.Debug, (payload) =>
      manager.emit(WebSocketShardEvents.Debug, { ...payload, shardId }),
    );
    shard.on(WebSocketShardEvents.Dispatch, (payload) =>
      manager.emit(WebSocketShardEvents.Dispatch, { ...payload, shardId }),
    );
    shard.on(WebSocketShardEvents.Error, (payload) =>
      manager.emit(WebSocketShardEvents.Error, { ...payload, shardId }),
    );
    shard.on(WebSocketShardEvents.Hello, () => manager.emit(WebSocketShardEvents.Hello, { shardId }));
    shard.on(WebSocketShardEvents.Ready, (payload) =>
      manager.emit(WebSocketShardEvents.Ready, { ...payload, shardId }),
    );
    shard.on(WebSocketShardEvents.Resumed, () => manager.emit(WebSocketShardEvents.Resumed, { shardId }));
    shard.on(WebSocketShardEvents.HeartbeatComplete, (payload) =>
      manager.emit(WebSocketShardEvents.HeartbeatComplete, { ...payload, shardId }),
    );
  }
}
