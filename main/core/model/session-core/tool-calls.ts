// Tool calls the model asked and the bridge has not answered yet, with the socket that asked each:
// a result goes back on that socket, or (when it has dropped) through the provider's own path for
// a result the new socket never asked for. A reply waits until the calls of its socket are answered.
import type { ToolCallRequest } from '../../ports.ts';

export interface PendingCall<S> {
  name: string;
  /** The arguments as the service sent them (JSON text). */
  arguments: string;
  socket: S;
}

export class PendingToolCalls<S> {
  readonly #pending = new Map<string, PendingCall<S>>();

  /** The call the bridge should run (args parsed; unparsable text reaches the registry as-is, which rejects it). */
  ask(id: string, name: string, rawArguments: string, socket: S): ToolCallRequest {
    this.#pending.set(id, { name, arguments: rawArguments, socket });
    return { id, name, args: parseArguments(rawArguments) };
  }

  has(id: string): boolean {
    return this.#pending.has(id);
  }

  /** The call a result answers (gone from the pending set), if it was pending. */
  settle(id: string): PendingCall<S> | undefined {
    const call = this.#pending.get(id);
    this.#pending.delete(id);
    return call;
  }

  /** A call asked on this socket still waits for its result. */
  pendingOn(socket: S): boolean {
    for (const call of this.#pending.values()) if (call.socket === socket) return true;
    return false;
  }
}

/** Function-call arguments are a JSON string; anything unparsable is passed on as the raw text. */
export function parseArguments(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
