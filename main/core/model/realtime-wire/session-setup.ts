// A new socket's setup: open it, wait for the service's ready event (its dialect names it), send the
// session.update with the call's settings, and wait for session.updated; an `error` event or the
// timeout fails the open and closes the socket; then the history is replayed on it. Apart from
// session.ts, which owns what happens on the socket once it is set up (events, replies, reconnects).
import { ConnectFailure } from '../wire/connect-failure.ts';
import { errorEvent, historyToItems } from './events.ts';
import { handshake } from './handshake.ts';
import type { HistoryItem } from './history.ts';
import { JsonSocket } from './json-socket.ts';
import type { RealtimeSessionOptions } from './session-options.ts';

/** Opens `<baseUrl>/realtime?model=…` (the handshake timeout covers the WebSocket's opening too). */
export function openSocket(o: RealtimeSessionOptions, model: string): Promise<JsonSocket> {
  const url = `${o.baseUrl.replace(/\/+$/, '')}/realtime?model=${encodeURIComponent(model)}`;
  return JsonSocket.open({ url, apiKey: o.apiKey, scrub: o.scrub, timeoutMs: o.handshakeTimeoutMs });
}

/** Resolves once the service took the settings; rejects with a ConnectFailure (the socket closed). */
export async function configureSocket(
  socket: JsonSocket,
  o: RealtimeSessionOptions,
  model: string,
  setupId: string,
): Promise<void> {
  const session = {
    model,
    voice: o.voice,
    instructions: o.systemInstruction,
    tools: o.tools,
    turnDetection: o.turnDetection,
    patience: o.patience,
    transcriptionModel: o.transcriptionModel,
    vocabulary: o.vocabulary,
    inputRate: o.dialect.inputRate,
  };
  try {
    await handshake(socket, {
      clock: o.clock,
      timeoutMs: o.handshakeTimeoutMs,
      timeoutReason: 'no session.updated within the handshake timeout',
      onEvent: (event) => {
        if (o.dialect.readyEvents.includes(event.type)) socket.send(o.dialect.sessionUpdate(session, setupId));
        else if (event.type === 'session.updated') return true;
        else if (event.type === 'error') {
          const parsed = errorEvent.safeParse(event);
          const error = parsed.success ? parsed.data.error : { code: 'unknown', message: 'malformed error event' };
          return new ConnectFailure(null, o.scrub(`${error.code ?? 'error'}: ${error.message}`));
        }
        return undefined;
      },
    });
  } catch (err) {
    socket.close();
    throw err;
  }
}

/** The recent conversation, as items on a new socket (Realtime has no resumption); returns how many. */
export function replayHistory(socket: JsonSocket, items: readonly HistoryItem[]): number {
  let replayed = 0;
  for (const item of items) {
    for (const event of historyToItems(item)) socket.send(event);
    replayed++;
  }
  return replayed;
}
