// Tool calls across Gemini resumes (docs/gemini.md "Tools across a resume"): a call is answered on
// the socket that asked (a resumed session may never have seen its id); a result a resume would
// lose (its socket ended, or no resumable handle covered the answer) is kept and given to the same
// call asked again (by name and arguments) or, once the model has not asked again, as text. A tool
// never runs twice: a call asked again while its first run is still going gets that run's result.
import type { Logger } from 'pino';
import type { TextDelivery, ToolCallRequest, ToolCallResult } from '../../ports.ts';
import type { TimerClock, TimerHandle } from '../../contracts/clock.ts';
import type { GeminiConnection } from './connection.ts';
import type { KeptResult } from './session-options.ts';

export interface ToolReplayHost {
  clock: TimerClock;
  logger: Logger;
  reaskWaitMs: number;
  active(): GeminiConnection | null;
  closed(): boolean;
  /** The model's turn is open on this socket (it is answering there). */
  replyingOn(connection: GeminiConnection): boolean;
  enqueueText(text: string, delivery: TextDelivery): void;
  /** The bridge runs the call. */
  runCall(call: ToolCallRequest): void;
  /** A result was given to a call asked again instead of running the tool twice. */
  replayed(): void;
}

interface FunctionResponse {
  id: string;
  name: string;
  response: Record<string, unknown>;
}

export class GeminiToolReplay {
  readonly #host: ToolReplayHost;
  /** Calls the model is waiting on (by id, on any socket). */
  readonly #inFlight = new Set<string>();
  /** Which socket asked each tool call in flight, and the call's identity for a re-ask. */
  readonly #origins = new Map<string, { connection: GeminiConnection; key: string }>();
  /**
   * Results of calls whose socket ended before the answer, or before a resumable handle covered
   * the answer (by name+args): replayed when the call is asked again, otherwise injected as text.
   */
  readonly #orphanResults = new Map<string, KeptResult>();
  /** Results answered on a socket that has not issued a resumable handle since (a resume would lose them). */
  #unacked: { connection: GeminiConnection; key: string; result: ToolCallResult }[] = [];
  /** The resumed socket on which kept calls may be asked again, and its give-up timer. */
  #reaskWindow: GeminiConnection | null = null;
  #reaskTimer: TimerHandle | null = null;
  /** The model on the current socket did not ask the kept calls again: results go as text. */
  #reaskGivenUp = false;
  /** A call asked again while its first run is still going: first id → the new socket's id. */
  readonly #reaskedRunning = new Map<string, { id: string; connection: GeminiConnection }>();
  /** Kept results waiting for their (re-asking) socket to finish setup. */
  #replies: { connection: GeminiConnection; response: FunctionResponse }[] = [];

  constructor(host: ToolReplayHost) {
    this.#host = host;
  }

  /** Calls the model waits on. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * A call asked again after a resume (same name and arguments as one whose socket ended) is not
   * run twice: it gets the kept result, or the result of the run still going.
   */
  asked(connection: GeminiConnection, id: string, name: string, args: Record<string, unknown>): void {
    const key = `${name}\u0000${JSON.stringify(args)}`;
    const kept = this.#orphanResults.get(key);
    if (kept) {
      this.#orphanResults.delete(key);
      this.#host.replayed();
      this.#host.logger.info(
        { tool: name, callId: id },
        'tool call asked again after a resume: answered with the kept result',
      );
      // Calls that arrive with setupComplete come before the socket is adopted: answer on adoption.
      this.#replies.push({ connection, response: { id, name, response: kept.result.response } });
      this.#unacked.push({ connection, key, result: kept.result });
      this.#sendReplies();
      return;
    }
    for (const [firstId, origin] of this.#origins) {
      if (origin.key === key && !origin.connection.isOpen && !this.#reaskedRunning.has(firstId)) {
        this.#reaskedRunning.set(firstId, { id, connection });
        this.#inFlight.add(id);
        return;
      }
    }
    this.#inFlight.add(id);
    this.#origins.set(id, { connection, key });
    this.#host.runCall({ id, name, args });
  }

  cancelled(ids: readonly string[]): void {
    for (const id of ids) {
      this.#inFlight.delete(id);
      this.#origins.delete(id);
    }
  }

  /** The bridge's result for a call. */
  answer(result: ToolCallResult): void {
    this.#inFlight.delete(result.id);
    const origin = this.#origins.get(result.id);
    this.#origins.delete(result.id);
    const reasked = this.#reaskedRunning.get(result.id);
    this.#reaskedRunning.delete(result.id);
    // Answered on the socket that asked: a resumed session may never have seen this call id.
    const asker = origin?.connection.sdk;
    if (origin && asker) {
      asker.sendToolResponse({ functionResponses: [{ id: result.id, name: result.name, response: result.response }] });
      // Until a resumable handle from that socket covers it, a resume would lose this answer.
      this.#unacked.push({ connection: origin.connection, key: origin.key, result });
    } else if (origin && reasked?.connection.sdk) {
      this.#inFlight.delete(reasked.id);
      this.#host.replayed();
      reasked.connection.sdk.sendToolResponse({
        functionResponses: [{ id: reasked.id, name: result.name, response: result.response }],
      });
      this.#unacked.push({ connection: reasked.connection, key: origin.key, result });
    } else if (origin) {
      // The asking socket is gone: keep the result for the same call asked again after the resume.
      this.#keep(origin.key, result);
      this.#host.logger.info(
        { tool: result.name, callId: result.id },
        'tool result kept: the socket that asked has closed',
      );
    } else {
      this.#host.logger.warn({ tool: result.name, callId: result.id }, 'tool result for an unknown call dropped');
    }
  }

  /** A resumable handle from `connection` covers what it was told so far. */
  covered(connection: GeminiConnection, active: boolean): void {
    this.#unacked = this.#unacked.filter((u) => u.connection !== connection);
    if (active)
      for (const [key, kept] of this.#orphanResults)
        if (kept.state === 'injected' && kept.on === connection) this.#orphanResults.delete(key);
  }

  /** A socket ended: answers no handle covered are kept, texts delivered on it are due again. */
  socketEnded(connection: GeminiConnection): void {
    // Answers no resumable handle covered: the resumed session may ask again, or needs them as text.
    const unacked = this.#unacked.filter((u) => u.connection === connection);
    if (unacked.length > 0) {
      this.#unacked = this.#unacked.filter((u) => u.connection !== connection);
      for (const { key, result } of unacked) this.#keep(key, result);
      this.#host.logger.info(
        { connection: connection.id, results: unacked.length },
        'tool results no handle covered kept for the resumed session',
      );
    }
    // Text delivered on this socket but not covered by a handle: the next socket needs it again.
    for (const kept of this.#orphanResults.values()) {
      if (kept.state === 'injected' && kept.on === connection) {
        kept.state = 'kept';
        kept.on = null;
      }
    }
    if (this.#reaskWindow === connection) this.#closeReaskWindow();
  }

  /** The calls the ended socket asked no longer hold the session busy (they are remembered by identity). */
  forgetInFlightOf(connection: GeminiConnection): void {
    for (const [id, origin] of this.#origins) if (origin.connection === connection) this.#inFlight.delete(id);
  }

  /** A socket was adopted: kept results go to calls asked again, and the re-ask window opens. */
  adopted(connection: GeminiConnection): void {
    this.#sendReplies();
    this.#openReaskWindow(connection);
  }

  /** The model finished a turn on `connection`: if it answered without asking the kept calls again, they go as text. */
  turnEnded(connection: GeminiConnection): void {
    if (connection === this.#reaskWindow) this.#giveUp('the model answered without asking again');
  }

  close(): void {
    this.#host.clock.clearTimeout(this.#reaskTimer);
  }

  #sendReplies(): void {
    this.#replies = this.#replies.filter(({ connection, response }) => {
      const sdk = connection.sdk;
      if (sdk) sdk.sendToolResponse({ functionResponses: [response] });
      return !sdk && !this.#host.closed();
    });
  }

  /** Keeps a result for the resumed session; once the model has not asked again, it goes as text. */
  #keep(key: string, result: ToolCallResult): void {
    const kept: KeptResult = { result, state: 'kept', on: null };
    this.#orphanResults.set(key, kept);
    const active = this.#host.active();
    if (!active?.isOpen) return; // the next socket's adoption opens the window
    if (this.#reaskGivenUp) this.#injectKept(key, kept);
    // e.g. a socket drained after a deadline switch-over ended before a handle covered its answer.
    else if (this.#reaskWindow === null) this.#openReaskWindow(active);
  }

  /** Kept results (or calls still running whose socket ended) the resumed session may ask for again. */
  #reaskPending(): boolean {
    for (const kept of this.#orphanResults.values()) if (kept.state === 'kept') return true;
    for (const [id, origin] of this.#origins)
      if (!origin.connection.isOpen && !this.#reaskedRunning.has(id)) return true;
    return false;
  }

  /**
   * After a resume with kept results: the model may ask the same calls again (it heard the question
   * again, or the service re-asks). If it answers without asking (turnComplete), or says nothing for
   * `reaskWaitMs`, the results are given to it as text. Until a resumable handle covers that text, a
   * call asked again still gets the kept result: the tool never runs twice.
   */
  #openReaskWindow(connection: GeminiConnection): void {
    this.#closeReaskWindow();
    this.#reaskGivenUp = false;
    if (!this.#reaskPending()) return;
    this.#reaskWindow = connection;
    this.#armReaskTimer();
  }

  #armReaskTimer(): void {
    const { clock } = this.#host;
    clock.clearTimeout(this.#reaskTimer);
    this.#reaskTimer = clock.setTimeout(() => {
      this.#reaskTimer = null;
      if (this.#reaskWindow === null || this.#host.closed()) return;
      // The model is answering: its turnComplete decides. A model silent this long gets the results
      // now (with the question, if it was replayed); a call it still asks again gets the kept result.
      if (this.#host.replyingOn(this.#reaskWindow)) this.#armReaskTimer();
      else this.#giveUp('the model did not ask again');
    }, this.#host.reaskWaitMs);
  }

  #closeReaskWindow(): void {
    this.#host.clock.clearTimeout(this.#reaskTimer);
    this.#reaskTimer = null;
    this.#reaskWindow = null;
  }

  #giveUp(why: string): void {
    if (this.#reaskWindow === null) return;
    this.#closeReaskWindow();
    this.#reaskGivenUp = true;
    for (const [key, kept] of this.#orphanResults) if (kept.state === 'kept') this.#injectKept(key, kept);
    this.#host.logger.info({ why }, 'kept tool results not asked for again: given to the model as text');
  }

  /** The result reaches the model as injected text (the path each model accepts mid-session). */
  #injectKept(key: string, kept: KeptResult): void {
    kept.state = 'queued';
    const [name = '', args = '{}'] = key.split('\u0000');
    const text =
      `The connection dropped while you were using the tool ${name} with the arguments ${args}. ` +
      `Its result: ${JSON.stringify(kept.result.response)}. Use it to answer the user now; do not call the tool again for this.`;
    this.#host.enqueueText(text, {
      onSettled: (outcome) => {
        if (this.#orphanResults.get(key) !== kept) return;
        const active = this.#host.active();
        if (outcome.delivered && active) {
          kept.state = 'injected';
          kept.on = active;
        } else this.#orphanResults.delete(key);
      },
    });
  }
}
