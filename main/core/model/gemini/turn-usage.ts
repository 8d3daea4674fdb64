// Gemini reports usageMetadata per turn (its prompt count re-reads the whole context, which is what
// is billed each turn); a snapshot repeated within one turn must not count twice. So each (socket,
// turn) is a cumulative scope: growth within it is added, a new turn or a new socket (resume,
// rotation) starts a fresh count. See docs/usage.md.
import type { Logger } from 'pino';
import type { LiveModelUsage } from '../../ports.ts';
import { parseGeminiUsage, TokenAccount, totalTokens } from '../../usage/tokens.ts';

export class TurnUsage {
  readonly #tokens = new TokenAccount();
  /** Turns seen (advanced at the first model activity after a turnComplete): the usage scope. */
  #turn = 0;
  #turnEnded = false;

  /** Model output: a turn that ended before it makes this the next scope. */
  activity(): void {
    if (!this.#turnEnded) return;
    this.#turn++;
    this.#turnEnded = false;
  }

  turnEnded(): void {
    this.#turnEnded = true;
  }

  count(raw: unknown, connectionId: number, logger: Logger): void {
    const tokens = parseGeminiUsage(raw);
    if (!tokens) {
      logger.warn('usageMetadata with an unexpected shape ignored');
      return;
    }
    this.#tokens.addSnapshot(`${connectionId}:${this.#turn}`, tokens);
  }

  /** Tokens by modality over every socket of this call. */
  get total(): LiveModelUsage {
    const tokens = this.#tokens.total;
    return { tokens, totalTokens: totalTokens(tokens) };
  }
}
