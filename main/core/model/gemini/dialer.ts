// How the Gemini session opens one socket: resuming the latest handle when there is one, else a
// fresh service session seeded with the call so far (session-context.ts), with transparent
// resumption asked for; its failures read for the shared fallback loop (session-core/fallback.ts).
import type { LiveConnectConfig } from '@google/genai';
import type { Logger } from 'pino';
import type { TimerClock } from '../../contracts/clock.ts';
import type { FailureKind, Recovery } from '../session-core/fallback.ts';
import type { ProviderDialer } from '../session-core/model-session.ts';
import type { ConnectFailure } from '../wire/connect-failure.ts';
import { GeminiConnection, type ConnectionHandlers, type LiveClient } from './connection.ts';
import { classifyFailure } from './setup.ts';

export interface GeminiDialerHost {
  client: LiveClient;
  clock: TimerClock;
  logger: Logger;
  scrub: (text: string) => string;
  handlers: ConnectionHandlers;
  /** The setup for this socket: a resume, or a fresh session (seeded when it continues the call). */
  configFor(handle: string | null): { config: LiveConnectConfig; seeded: boolean };
  /** A new service session began (not a resume). */
  sessionBegan(seeded: boolean): void;
  counted(counter: 'connectionAttempts' | 'resumed'): void;
}

export class GeminiDialer implements ProviderDialer<GeminiConnection> {
  readonly label = 'Gemini';
  /** The handle the next socket resumes (null: a fresh session). */
  handle: string | null;
  /** The latest socket resumed (rather than began a fresh session). */
  lastOpenResumed = false;
  readonly #host: GeminiDialerHost;
  #transparent: boolean;
  /** The next socket may send `setup` only once this settles (the replaced socket has closed). */
  #setupGate: Promise<void> | null = null;
  #nextId = 1;
  #handleRetried = false;

  constructor(host: GeminiDialerHost, handle: string | null, transparent: boolean) {
    this.#host = host;
    this.handle = handle;
    this.#transparent = transparent;
  }

  /** A new round of attempts (a refused handle is given up once per round). */
  round(): this {
    this.#handleRetried = false;
    return this;
  }

  /** The next socket dials at once but sends `setup` only after `gate` (null: no wait). */
  setupAfter(gate: Promise<void> | null): void {
    this.#setupGate = gate;
  }

  async open(model: string): Promise<GeminiConnection> {
    const host = this.#host;
    host.counted('connectionAttempts');
    const handle = this.handle;
    const setupGate = this.#setupGate ?? undefined;
    this.#setupGate = null;
    // A fresh session mid-call continues the conversation: persona + the call so far + what is pending.
    const { config, seeded } = host.configFor(handle);
    const connection = await GeminiConnection.open(
      host.client,
      this.#nextId++,
      model,
      config,
      host.handlers,
      host.scrub,
      setupGate,
      this.#transparent,
    );
    connection.openedAt = host.clock.now();
    if (handle) host.counted('resumed');
    else host.sessionBegan(seeded);
    this.lastOpenResumed = Boolean(handle);
    host.logger.info({ model, connection: connection.id, resumed: Boolean(handle), seeded }, 'gemini live connected');
    return connection;
  }

  discard(connection: GeminiConnection): void {
    connection.close();
  }

  classify(failure: ConnectFailure): FailureKind {
    const kind = classifyFailure(failure.code, failure.reason);
    return kind === 'handle' ? 'model' : kind;
  }

  /**
   * A resume refused as invalid (1007/1008, whatever the text: after the 58:00 session deadline 3.8
   * answers a plain 1007, discuss thread 186392) cannot be resumed: a fresh session at once, seeded
   * with the call so far. A setup refusing transparent resumption (documented for 3.8 only) is
   * retried without it.
   */
  recover(failure: ConnectFailure): Recovery {
    const kind = classifyFailure(failure.code, failure.reason);
    if ((kind === 'handle' || kind === 'model') && this.handle && !this.#handleRetried) {
      this.#host.logger.warn(
        { code: failure.code },
        'resumption refused: starting a fresh session seeded with the call so far',
      );
      this.handle = null;
      this.#handleRetried = true;
      return 'retry';
    }
    if (kind === 'model' && this.#transparent && failure.code === 1007) {
      this.#host.logger.warn('setup with transparent resumption refused: retrying without it');
      this.#transparent = false;
      return 'retry-uncounted';
    }
    return undefined;
  }
}
