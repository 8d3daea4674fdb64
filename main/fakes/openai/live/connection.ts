// One client connection as the fake GPT-Live service sees it: every client event validated
// (protocol.ts) and recorded; full duplex: the fake's VAD ends the user's turn after its own window
// (GPT_LIVE_SILENCE_MS of quiet in the audio received; no audio, no turn end),
// the "model" speaks when scripted (paced and delayed as the service, shared/fake-connection.ts) and
// yields when the user talks over it; output and input transcripts are fragments with
// session-timeline ms; usage is cumulative seconds.
import type { WebSocket } from 'ws';
import { FakeConnection, type PacedScript } from '../../shared/fake-connection.ts';
import type { PacedReply } from '../../shared/paced-reply.ts';
import { base64ToPcm, concatPcm, pcmToBase64, rms, tailPcm, tone } from '../../shared/pcm.ts';
import { samplesOf, TurnDetector } from '../../shared/turn-detector.ts';
import type { FakeTiming } from '../../shared/timing.ts';
import { describeIssue } from '../realtime/protocol.ts';
import { parseToolOutput } from '../shared.ts';
import { clientSchemas, type LiveSessionConfig } from './protocol.ts';

type JsonObject = Record<string, unknown>;

/**
 * GPT-Live's own end-of-turn window. The service has NO turn setting on the wire ("server-driven
 * … The model starts and ends its own turns", docs.livekit.io agents/models/realtime/gpt-live;
 * live.d.ts has no turn_detection, so the strict session schema refuses one as unknown_parameter)
 * and publishes no figure: 500 ms of quiet after speech is our ASSUMPTION (OpenAI server_vad's
 * documented default), counted in the samples received like every fake's detector.
 */
export const GPT_LIVE_SILENCE_MS = 500;

/** What set off the model by itself: the user's speech ended, or commentary to speak. */
export type LiveTrigger =
  { kind: 'speech'; ms: number; pcm: Int16Array; rate: number } | { kind: 'text'; text: string };

/** The server's side of a connection. */
export interface LiveConnectionHooks {
  /** Chunk length, pace and first-audio latency (the service's, shared/service-timing.ts). */
  timing: FakeTiming;
  vadRms: number;
  /** A valid session.start. */
  start(connection: FakeLiveConnection, session: LiveSessionConfig): void;
  /** The model may answer by itself (autoReply). */
  autoSpeak(connection: FakeLiveConnection, trigger: LiveTrigger): void;
}

/** PCM at the session's rate to speak (default a 440 Hz tone of `toneMs`), its transcript and pace. */
export type LiveReplyScript = PacedScript;
export type LiveReplyOutcome = 'completed' | 'interrupted' | 'closed';

export interface FakeLiveConnectionEvents {
  event: [event: JsonObject];
  close: [code: number, reason: string];
  /** The model heard the user stop (GPT_LIVE_SILENCE_MS of quiet after speech); `pcm` is the utterance at the session's rate. */
  /** quietMs: the trailing quiet the VAD counted before it ended the turn (its silence window). */
  userTurn: [turn: { ms: number; pcm: Int16Array; quietMs: number }];
}

export class FakeLiveConnection extends FakeConnection<FakeLiveConnectionEvents> {
  session: LiveSessionConfig | null = null;
  sessionId: string | null = null;
  readonly received: JsonObject[] = [];
  readonly sent: JsonObject[] = [];
  readonly errors: { code: string; message: string; param?: string }[] = [];
  readonly audio: Int16Array[] = [];
  readonly commentary: string[] = [];
  readonly instructions: string[] = [];
  /** Silent context (`session.thinking.append`), in order. */
  readonly thinking: string[] = [];
  readonly toolOutputs: { call_id: string; output: string }[] = [];
  responseCreates = 0;
  /** The service ended this session at its duration limit (expireAfter), not a fault. */
  expired = false;
  #rate = 24_000;
  #inputSamples = 0;
  #outputSamples = 0;
  readonly #vad: TurnDetector;
  #nextId = 1;
  #active: PacedReply<LiveReplyOutcome> | null = null;
  readonly #hooks: LiveConnectionHooks;

  constructor(
    socket: WebSocket,
    index: number,
    headers: Record<string, string | string[] | undefined>,
    hooks: LiveConnectionHooks,
  ) {
    super(socket, { index, headers, name: 'fake live', trafficEvent: 'event' }, hooks.timing);
    this.#hooks = hooks;
    this.#vad = new TurnDetector({
      startRms: hooks.vadRms,
      silenceSamples: samplesOf(GPT_LIVE_SILENCE_MS, this.#rate),
    });
  }

  protected socketClosed(code: number, reason: string): void {
    this.#active?.stop('closed');
    this.emit('close', code, reason);
  }

  get replying(): boolean {
    return this.#active !== null;
  }

  get rate(): number {
    return this.#rate;
  }

  inputPcm(): Int16Array {
    return concatPcm(this.audio);
  }

  /** Texts the session knows: startup `input` history, then commentary/instructions in order. */
  conversation(): string[] {
    return [
      ...(this.session?.input ?? []).map((item) => `${item.role}: ${item.content[0]!.text}`),
      ...this.commentary.map((c) => `commentary: ${c}`),
      ...this.toolOutputs.map((t) => `tool: ${t.output}`),
    ];
  }

  handleRaw(text: string): void {
    let event: JsonObject;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      event = parsed as JsonObject;
    } catch {
      this.error('invalid_json', 'The message could not be parsed as a JSON object.');
      return;
    }
    this.received.push(event);
    this.#handleEvent(event);
    // After handling, so a waiter sees the effect of the event it was woken by.
    this.emit('event', event);
  }

  #handleEvent(event: JsonObject): void {
    const type = typeof event.type === 'string' ? event.type : '';
    const schema = clientSchemas[type];
    if (!schema) {
      this.error(
        'invalid_value',
        `Invalid value: '${type}'. Supported values are: ${Object.keys(clientSchemas)
          .map((t) => `'${t}'`)
          .join(', ')}.`,
        'type',
      );
      return;
    }
    if (type !== 'session.start' && !this.sessionId) {
      this.error('session_not_started', 'Send session.start and wait for session.started before other commands.');
      return;
    }
    const checked = schema.safeParse(event);
    if (!checked.success) {
      const issue = describeIssue(checked.error);
      this.error(issue.code, issue.message, issue.param);
      return;
    }
    this.#dispatch(type, event);
  }

  #dispatch(type: string, event: JsonObject): void {
    switch (type) {
      case 'session.start':
        return this.#hooks.start(this, event.session as LiveSessionConfig);
      case 'session.input_audio.append':
        return this.#onAudio(event.audio as string);
      case 'session.commentary.append':
      case 'session.instructions.append':
      case 'session.thinking.append': {
        if (event.delegation_id !== null && this.session?.delegation?.type === 'responses') {
          this.error(
            'invalid_value',
            'Non-null delegation_id is not accepted with Responses delegation.',
            'delegation_id',
          );
          return;
        }
        const content = event.content as string;
        if (type === 'session.commentary.append') this.commentary.push(content);
        else if (type === 'session.thinking.append') this.thinking.push(content);
        else this.instructions.push(content);
        this.send({
          type: type.replace('.append', '.appended'),
          start_ms: this.#timelineMs(),
          end_ms: this.#timelineMs(),
        });
        if (type === 'session.commentary.append') {
          // Commentary the model is to speak: the end of a turn it answers after its latency.
          this.markTurnEnd();
          this.#hooks.autoSpeak(this, { kind: 'text', text: content });
        }
        return;
      }
      case 'response.item.create':
      case 'response.create': {
        if (this.session?.delegation?.type !== 'responses') {
          this.error('invalid_request_error', `${type} requires Responses delegation.`);
          return;
        }
        if (type === 'response.create') {
          this.responseCreates++;
          return;
        }
        const item = event.item as { type?: string; call_id?: string; output?: string };
        if (item.type === 'function_call_output') {
          if (!item.call_id || !this.awaitsToolAnswer(item.call_id) || typeof item.output !== 'string') {
            this.error(
              'invalid_value',
              `No function call found with call_id '${String(item.call_id)}'.`,
              'item.call_id',
            );
            return;
          }
          this.toolOutputs.push({ call_id: item.call_id, output: item.output });
          this.toolAnswered(item.call_id, item.output);
        }
        return;
      }
      case 'session.close':
        this.send({
          type: 'session.closed',
          reason: 'close_requested',
          usage: { seconds: this.usageSeconds },
          session: this.#resource(),
        });
        this.socket.close(1000, 'session closed');
        return;
      default:
        return;
    }
  }

  get usageSeconds(): number {
    return Math.round(((this.#inputSamples + this.#outputSamples) / this.#rate) * 10) / 10;
  }

  startedWith(session: LiveSessionConfig, id: string): void {
    this.session = session;
    this.sessionId = id;
    this.#rate = session.audio?.format?.type === 'audio/pcm' ? session.audio.format.rate : 8000;
    this.#vad.setWindow({ startRms: this.#hooks.vadRms, silenceSamples: samplesOf(GPT_LIVE_SILENCE_MS, this.#rate) });
    this.send({ type: 'session.started', session: this.#resource() });
  }

  #resource(): JsonObject {
    return { ...this.session, id: this.sessionId, status: 'active', expires_at: Math.floor(Date.now() / 1000) + 3600 };
  }

  #timelineMs(): number {
    return Math.round((this.#inputSamples / this.#rate) * 1000);
  }

  #onAudio(audio: string): void {
    const bytes = Buffer.from(audio, 'base64');
    if (bytes.length % 2 !== 0) {
      this.error('invalid_value', 'PCM16 audio must contain an even number of bytes.', 'audio');
      return;
    }
    const pcm = base64ToPcm(audio);
    this.audio.push(pcm);
    this.#inputSamples += pcm.length;
    // Full duplex: the model hears the user over its own speech and yields.
    if (this.#active && rms(pcm) > this.#hooks.vadRms) this.#active.stop('interrupted');
    if (this.#vad.feed(pcm) !== 'ended') return;
    // The model heard the user stop: the end of the turn it answers after its latency.
    this.markTurnEnd();
    const ms = Math.round((this.#vad.spokenSamples / this.#rate) * 1000);
    const turn = tailPcm(this.audio, this.#vad.turnSamples);
    const quietMs = Math.round(((this.#vad.receivedSamples - this.#vad.endedAt) / this.#rate) * 1000);
    this.emit('userTurn', { ms, pcm: turn, quietMs });
    this.#hooks.autoSpeak(this, { kind: 'speech', ms, pcm: turn, rate: this.#rate });
  }

  /** What the model heard the user say, as input transcript fragments on the session timeline. */
  sendInputTranscript(text: string, ms: number): void {
    const endMs = this.#timelineMs();
    for (const word of text.split(/(?<=\s)/))
      this.send({
        type: 'session.input_transcript.delta',
        delta: word,
        start_ms: Math.max(0, endMs - ms),
        end_ms: endMs,
      });
  }

  /**
   * The session reaches its duration limit after `ms`: the terminal `session.closed` with reason
   * `expired` (live.d.ts SessionClosedEvent) and its final usage, then the socket closes (1000: the
   * reference publishes no close code for it; an assumption). GPT-Live has no resumption: the
   * client starts a new session with its history as `input`.
   */
  expireAfter(ms: number): void {
    this.later(() => {
      this.expired = true;
      this.#active?.stop('closed');
      this.send({
        type: 'session.closed',
        reason: 'expired',
        usage: { seconds: this.usageSeconds },
        session: this.#resource(),
      });
      this.close(1000, 'session expired');
    }, ms);
  }

  /** The model speaks (full duplex: no turn events, audio and transcript fragments only). */
  reply(script: LiveReplyScript = {}): Promise<LiveReplyOutcome> {
    this.#active?.stop('interrupted');
    const pcm = script.pcm ?? tone(script.toneMs ?? 400, { rate: this.#rate });
    const reply: PacedReply<LiveReplyOutcome> = this.pacedReply<LiveReplyOutcome>(script, this.#rate, pcm, {
      chunk: (chunk, words) => {
        const startMs = Math.round((this.#outputSamples / this.#rate) * 1000);
        this.#outputSamples += chunk.length;
        this.send({ type: 'session.output_audio.delta', delta: pcmToBase64(chunk) });
        if (words)
          this.send({
            type: 'session.output_transcript.delta',
            delta: words,
            start_ms: startMs,
            end_ms: Math.round((this.#outputSamples / this.#rate) * 1000),
          });
      },
      finish: () => 'completed',
      ended: (outcome) => {
        if (this.#active === reply) this.#active = null;
        if (outcome !== 'closed') this.send({ type: 'session.usage.updated', usage: { seconds: this.usageSeconds } });
      },
    });
    this.#active = reply;
    return reply.done;
  }

  /** The model delegates to the Responses backend, which calls a function tool; resolves with the output. */
  toolCall(
    name: string,
    args: JsonObject | string,
    options: { callId?: string; timeoutMs?: number } = {},
  ): Promise<unknown> {
    const callId = options.callId ?? `call_${this.index}_${this.#nextId++}`;
    const delegationId = `deleg_${this.index}_${this.#nextId++}`;
    const responseId = `resp_${this.index}_${this.#nextId++}`;
    const raw = typeof args === 'string' ? args : JSON.stringify(args);
    const result = this.awaitToolAnswer<string>(callId, options.timeoutMs ?? 10_000).then(parseToolOutput);
    this.send({
      type: 'session.delegation.created',
      offset_ms: this.#timelineMs(),
      delegation: { id: delegationId, target: 'responses', type: 'delegation', response_id: responseId },
    });
    this.send({
      type: 'response.event',
      delegation_id: delegationId,
      event: { type: 'response.created', response: { id: responseId } },
    });
    const item = {
      id: `fc_${callId}`,
      type: 'function_call',
      call_id: callId,
      name,
      arguments: raw,
      status: 'completed',
    };
    this.send({
      type: 'response.event',
      delegation_id: delegationId,
      event: { type: 'response.output_item.done', output_index: 0, item },
    });
    this.send({
      type: 'response.event',
      delegation_id: delegationId,
      event: { type: 'response.completed', response: { id: responseId, usage: { total_tokens: 40 } } },
    });
    return result;
  }

  send(event: JsonObject): void {
    if (!this.isOpen) return;
    const full = { event_id: `evt_fake${this.index}_${this.#nextId++}`, ...event };
    this.sent.push(full);
    this.socket.send(JSON.stringify(full));
  }

  error(code: string, message: string, param?: string): void {
    this.errors.push({ code, message, param });
    this.send({ type: 'error', error: { type: 'invalid_request_error', code, message, ...(param ? { param } : {}) } });
  }
}
