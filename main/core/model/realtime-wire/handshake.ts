// The setup exchange at the start of an OpenAI socket (Realtime: session.created → session.update →
// session.updated; GPT-Live: session.start → session.started): events are read until the provider's
// step settles, an `error` event or a close fails the open, and so does silence past the timeout.
import type { TimerClock } from '../../contracts/clock.ts';
import { ConnectFailure } from '../wire/connect-failure.ts';
import type { JsonEvent, JsonSocket } from './json-socket.ts';

export interface HandshakeStep<T> {
  clock: TimerClock;
  timeoutMs: number;
  /** What the timeout failure says (e.g. "no session.updated within the handshake timeout"). */
  timeoutReason: string;
  /** Reads one event: a value finishes the handshake, a ConnectFailure fails it, undefined reads on. */
  onEvent(event: JsonEvent): T | ConnectFailure | undefined;
  /** Written once the handlers are attached (GPT-Live's session.start). */
  begin?(): void;
}

/** Resolves with the step's value; rejects with a ConnectFailure. The socket is left open either way. */
export function handshake<T>(socket: JsonSocket, step: HandshakeStep<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = step.clock.setTimeout(() => reject(new ConnectFailure(null, step.timeoutReason)), step.timeoutMs);
    const settle = (result: T | ConnectFailure): void => {
      step.clock.clearTimeout(timer);
      if (result instanceof ConnectFailure) reject(result);
      else resolve(result);
    };
    socket.attach({
      onEvent: (event) => {
        const result = step.onEvent(event);
        if (result !== undefined) settle(result);
      },
      onClose: (code, reason) => settle(new ConnectFailure(code, reason || 'closed during the handshake')),
    });
    step.begin?.();
  });
}
