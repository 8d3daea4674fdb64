// Model tool calls → the typed tool registry → results back to the model with the call id.
// Provider-neutral: it only needs a LiveModelSession, so the OpenAI provider reuses it unchanged.
// The registry validates arguments with zod and never throws, so a model's bad argument or a
// failing tool becomes an `{ error }` result the model can talk about, never a dead session.
import type { Logger } from 'pino';
import type { LiveModelSession, ToolCallRequest, ToolCallResult } from '../ports.ts';
import type { HeardSpeakers, ToolOutcome, ToolRegistry } from '../tools/registry.ts';

export interface ToolCallSettled {
  call: ToolCallRequest;
  heard?: HeardSpeakers;
  outcome: ToolOutcome;
  /** False when the model cancelled the call: nothing was sent back. */
  replied: boolean;
  durationMs: number;
}

export interface ToolDispatcherOptions {
  logger: Logger;
  /** For the notes log / events (e.g. a `tool_call` note). Arguments stay out of info logs. */
  onSettled?: (settled: ToolCallSettled) => void;
  /** Who was heard in the turn a call answers, read when the call arrives (tool authority). */
  heard?: () => HeardSpeakers | undefined;
}

export interface ToolDispatcher {
  /** Calls currently running, by call id. */
  readonly inFlight: ReadonlySet<string>;
  /** Stop listening and abort every running call. */
  detach(): void;
}

export function toToolCallResult(call: ToolCallRequest, outcome: ToolOutcome): ToolCallResult {
  // The model gets the code and the message; the HTTP status means nothing to it.
  const response: Record<string, unknown> = outcome.ok
    ? { result: outcome.result ?? null }
    : { error: { code: outcome.error.code, message: outcome.error.message } };
  return { id: call.id, name: call.name, response };
}

export function attachToolDispatcher(
  session: LiveModelSession,
  registry: ToolRegistry,
  options: ToolDispatcherOptions,
): ToolDispatcher {
  const { logger } = options;
  const running = new Map<string, AbortController>();

  const onToolCall = (call: ToolCallRequest): void => {
    const controller = new AbortController();
    running.get(call.id)?.abort();
    running.set(call.id, controller);
    const started = performance.now();
    const heard = options.heard?.();
    logger.info({ tool: call.name, callId: call.id }, 'model tool call');
    logger.debug({ tool: call.name, args: call.args }, 'model tool call arguments');
    void registry
      .invoke(call.name, call.args, { caller: 'model', signal: controller.signal, ...(heard ? { heard } : {}) })
      .catch((err: unknown): ToolOutcome => ({
        ok: false,
        error: { code: 'tool_failed', message: err instanceof Error ? err.message : String(err), status: 500 },
      }))
      .then((outcome) => {
        const mine = running.get(call.id) === controller;
        if (mine) running.delete(call.id);
        const replied = mine && !controller.signal.aborted;
        if (replied) {
          try {
            session.sendToolResult(toToolCallResult(call, outcome));
          } catch (err) {
            logger.warn({ tool: call.name, callId: call.id, err }, 'could not send the tool result');
          }
        }
        const durationMs = performance.now() - started;
        logger.info(
          {
            tool: call.name,
            callId: call.id,
            ok: outcome.ok,
            code: outcome.ok ? undefined : outcome.error.code,
            replied,
            ms: Math.round(durationMs),
          },
          'model tool call settled',
        );
        options.onSettled?.({ call, outcome, replied, durationMs, ...(heard ? { heard } : {}) });
      });
  };

  const onCancelled = (ids: string[]): void => {
    for (const id of ids) {
      const controller = running.get(id);
      if (!controller) continue;
      running.delete(id);
      controller.abort();
      logger.info({ callId: id }, 'model cancelled a tool call');
    }
  };

  session.on('toolCall', onToolCall);
  session.on('toolCallCancelled', onCancelled);
  return {
    get inFlight() {
      return new Set(running.keys());
    },
    detach() {
      session.off('toolCall', onToolCall);
      session.off('toolCallCancelled', onCancelled);
      for (const controller of running.values()) controller.abort();
      running.clear();
    },
  };
}
