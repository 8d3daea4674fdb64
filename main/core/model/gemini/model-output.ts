// What the model produces on a socket: its audio, the two transcripts, the ends of its turn
// (interrupted, turnComplete), the end of the user's turn the service detected, the token usage and
// the tool calls it asks or cancels. Apart from session.ts, which keeps the sockets and reads the
// control messages (resumption handles, goAway): this part turns one message's output into the
// session's events and its collaborators' bookkeeping, in the order the message carries them.
import type { EventEmitter } from 'node:events';
import type { LiveServerMessage } from '@google/genai';
import type { Logger } from 'pino';
import type { LiveModelEvents } from '../../ports.ts';
import type { ModelTurn } from '../session-core/model-turn.ts';
import { decodePcm } from '../wire/pcm-codec.ts';
import { pcmRateOf, toModelOutputRate } from '../output-audio.ts';
import type { GeminiConnection } from './connection.ts';
import type { SessionContext } from './session-context.ts';
import type { StallWatch } from './stall-watch.ts';
import type { GeminiToolReplay } from './tool-replay.ts';
import type { TurnUsage } from './turn-usage.ts';

export interface ModelOutputHost {
  logger: Logger;
  /** The session: the events go out on it. */
  events: EventEmitter<LiveModelEvents>;
  turn: ModelTurn<GeminiConnection>;
  usage: TurnUsage;
  stall: StallWatch;
  context: SessionContext;
  tools: GeminiToolReplay;
  active(): GeminiConnection | null;
  /** Output on `connection`: the model is answering (session.ts #modelActivity). */
  modelActivity(connection: GeminiConnection): void;
  /** A tool call on a socket that is not cut off: the question is unsafe until a handle comes after it. */
  toolAsked(connection: GeminiConnection): void;
  /** turnComplete; `working`: the extended-thinking model said IN_PROGRESS (not idle yet). */
  turnCompleted(working: boolean): void;
}

export class GeminiModelOutput {
  readonly #h: ModelOutputHost;

  constructor(host: ModelOutputHost) {
    this.#h = host;
  }

  /** One server message's output; `cutOff`: it came on a socket we ended, whose turn is over. */
  read(message: LiveServerMessage, connection: GeminiConnection, cutOff: boolean): void {
    const h = this.#h;
    const content = cutOff ? undefined : message.serverContent;
    if (content) {
      const parts = content.modelTurn?.parts;
      if (parts) {
        for (const part of parts) {
          const inline = part.inlineData;
          if (inline?.data && inline.mimeType?.startsWith('audio/pcm')) {
            h.modelActivity(connection);
            // The rate comes from the MIME type (audio/pcm;rate=24000), never assumed.
            const rate = pcmRateOf(inline.mimeType);
            if (rate === null) {
              h.logger.warn({ mimeType: inline.mimeType }, 'model audio with an unusable rate dropped');
            } else {
              const pcm = toModelOutputRate(decodePcm(inline.data), rate);
              if (connection === h.active()) h.stall.audio(pcm.length);
              h.events.emit('audio', pcm);
            }
          }
        }
      }
      if (content.inputTranscription?.text) {
        h.context.transcript.add('user', content.inputTranscription.text);
        h.events.emit('inputTranscript', content.inputTranscription.text);
      }
      if (content.outputTranscription?.text) {
        h.modelActivity(connection);
        h.context.transcript.add('model', content.outputTranscription.text);
        h.events.emit('outputTranscript', content.outputTranscription.text);
      }
      if (content.generationComplete && connection === h.active()) h.stall.generationComplete();
      if (content.interrupted) {
        h.turn.interrupted(connection);
        h.events.emit('interrupted');
      }
      if (content.turnComplete) {
        h.usage.turnEnded();
        const closedTurn = h.turn.complete();
        // A replaced socket's turn ending says nothing about what the active one owes.
        if (connection === h.active()) h.stall.turnCompleted(closedTurn);
        h.context.transcript.turnEnded();
        // The extended-thinking model: turnComplete with interactionStatus IN_PROGRESS is not idle
        // (a NON_BLOCKING call still runs, more output follows); only IDLE frees the queue.
        h.turnCompleted(content.interactionStatus === 'IN_PROGRESS');
        // The model answered (the replayed question) without asking the kept calls again.
        h.tools.turnEnded(connection);
      }
    }
    // The service's activity detection ended the user's turn. (generationComplete / turnComplete are
    // about the model's turn, and may come after the user began a new utterance: not used.)
    if (!cutOff && message.voiceActivity?.voiceActivityType === 'ACTIVITY_END') h.events.emit('userTurnEnded');
    if (message.usageMetadata) h.usage.count(message.usageMetadata, connection.id, h.logger);
    const calls = message.toolCall?.functionCalls;
    if (calls) {
      // A call from a socket we closed still runs, and its result is kept for the resumed session
      // (#keep), but its turn has ended: marking the socket active again would reopen that turn
      // (texts held back, then a second turnComplete when the socket's close arrives) or take over
      // the turn of a reply already under way on the new socket and end it at that close.
      if (!cutOff) h.toolAsked(connection);
      for (const call of calls) h.tools.asked(connection, call.id ?? '', call.name ?? '', call.args ?? {});
    }
    const cancelled = message.toolCallCancellation?.ids;
    if (cancelled && cancelled.length > 0) {
      h.tools.cancelled(cancelled);
      h.events.emit('toolCallCancelled', [...cancelled]);
    }
  }
}
