// The shared model-session core (main/core/model/session-core/) driven by a fake protocol adapter:
// a provider that maps nothing but "open a socket", "write audio/text" and "the socket closed". What
// is asserted is what the bridge and the service would see: state events in order, the back-off
// waits between attempts, the audio written on each socket, the turn signals, the texts delivered.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ConnectionState } from '../../../main/core/api-types.ts';
import type { FrameSendResult } from '../../../main/core/ports.ts';
import { ManualClock } from '../../../main/core/contracts/clock.ts';
import { ConnectFailure } from '../../../main/core/model/wire/connect-failure.ts';
import type { FailureKind } from '../../../main/core/model/session-core/fallback.ts';
import { EventTable, validated } from '../../../main/core/model/session-core/event-table.ts';
import { ModelSessionCore } from '../../../main/core/model/session-core/model-session.ts';
import { ModelTurn } from '../../../main/core/model/session-core/model-turn.ts';
import { ReplyTranscript } from '../../../main/core/model/session-core/reply-transcript.ts';
import { PendingToolCalls } from '../../../main/core/model/session-core/tool-calls.ts';
import { UnansweredAudio } from '../../../main/core/model/session-core/unanswered-audio.ts';
import { SocketTotals } from '../../../main/core/model/session-core/usage.ts';

interface FakeSocket {
  id: number;
  model: string;
  open: boolean;
  /** What the session wrote: `a<first sample>` per audio chunk, `end`, `text:<…>`. */
  wire: string[];
}

/** The service: each attempt pops the next scripted outcome (a failure kind, or 'ok'). */
type Outcome = 'ok' | FailureKind;

class FakeProtocolSession extends ModelSessionCore {
  readonly sockets: FakeSocket[] = [];
  readonly attempts: { model: string; at: number }[] = [];
  active: FakeSocket | null = null;
  readonly unanswered = new UnansweredAudio(1000);
  readonly turn = new ModelTurn<FakeSocket>();
  readonly #script: Outcome[];
  readonly #clock: ManualClock;

  constructor(clock: ManualClock, script: Outcome[], models = ['primary', 'fallback']) {
    super({
      models,
      clock,
      logger: pino({ level: 'silent' }),
      backoff: { initialMs: 100, maxMs: 1000, maxAttempts: 5 },
      scrub: (t) => t,
      formatInjectedText: (t) => t,
      replyWaitMs: 0,
    });
    this.#script = script;
    this.#clock = clock;
  }

  protected async connect(): Promise<void> {
    this.active = await this.dial({
      label: 'Fake',
      open: async (model) => {
        this.attempts.push({ model, at: this.#clock.now() });
        const outcome = this.#script.shift() ?? 'ok';
        if (outcome === 'auth') throw new ConnectFailure(401, 'bad key');
        if (outcome === 'model') throw new ConnectFailure(404, 'no such model');
        if (outcome !== 'ok') throw new ConnectFailure(1011, 'busy');
        const socket: FakeSocket = { id: this.sockets.length + 1, model, open: true, wire: [] };
        this.sockets.push(socket);
        return socket;
      },
      discard: (socket) => (socket.open = false),
      classify: (failure) => (failure.code === 401 ? 'auth' : failure.code === 404 ? 'model' : 'transient'),
    });
    // The adapter's only audio logic: what the last socket heard but never answered goes first.
    const socket = this.active;
    this.unanswered.replay(
      (pcm) => socket.wire.push(`a${pcm[0]}`),
      () => socket.wire.push('end'),
    );
    this.texts.tryFlush();
  }

  sendAudio(pcm: Int16Array): void {
    this.texts.userAudio();
    this.unanswered.push(pcm);
    if (this.active?.open) this.active.wire.push(`a${pcm[0]}`);
  }

  endAudioInput(): void {
    this.unanswered.end();
    this.active?.wire.push('end');
    this.texts.userAudioEnded();
  }

  sendToolResult(): void {}

  async close(): Promise<void> {
    if (this.closeCore()) this.life.set('disconnected', 'closed');
  }

  /** The service's side: model output, an interruption, the end of the turn, a dropped socket. */
  modelSpeaks(): void {
    this.unanswered.answered();
    const { endedCut } = this.turn.output(this.active!);
    if (endedCut) this.emit('turnComplete');
    this.modelActivity();
  }

  serviceInterrupts(): void {
    this.turn.interrupted(this.active!);
    this.emit('interrupted');
  }

  turnDone(): void {
    if (this.turn.complete()) this.endTurn();
  }

  drop(): Promise<void> {
    const socket = this.active!;
    socket.open = false;
    this.active = null;
    if (this.turn.socketEnded(socket)) this.endTurn();
    return this.reconnectWith('socket dropped', () => 'new socket');
  }

  protected deliverTexts(texts: readonly string[]): boolean {
    if (!this.active?.open) return false;
    this.active.wire.push(`text:${texts.join('|')}`);
    return true;
  }

  protected async sendFrameNow(): Promise<FrameSendResult> {
    return { status: 'dropped', reason: 'not_connected' };
  }
}

const pcm = (first: number): Int16Array => new Int16Array(320).fill(first);

/** Lets the session's promise chain run, moving the manual clock by `stepMs` until `done()`. */
async function runUntil(clock: ManualClock, done: () => boolean, stepMs = 10): Promise<void> {
  for (let i = 0; i < 2000 && !done(); i++) {
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(stepMs);
  }
  if (!done()) throw new Error('condition never met');
}

function recordStates(session: FakeProtocolSession): string[] {
  const states: string[] = [];
  session.on('state', (state: ConnectionState, reason?: string) => states.push(reason ? `${state}:${reason}` : state));
  return states;
}

describe('session core: connect, model fallback and back-off', () => {
  it('retries transient failures with doubling waits, then connects', async () => {
    const clock = new ManualClock();
    const session = new FakeProtocolSession(clock, ['transient', 'transient', 'transient', 'ok']);
    const states = recordStates(session);
    let started = false;
    void session.start().then(() => (started = true));
    await runUntil(clock, () => started);
    const gaps = session.attempts.slice(1).map((a, i) => a.at - session.attempts[i]!.at);
    // 100, 200, 400 ms (initialMs doubling); the clock moves in 10 ms steps, so each gap is at least that.
    expect(gaps.length).toBe(3);
    expect(gaps[0]).toBeGreaterThanOrEqual(100);
    expect(gaps[1]).toBeGreaterThanOrEqual(200);
    expect(gaps[2]).toBeGreaterThanOrEqual(400);
    expect(gaps[2]! - gaps[1]!).toBeGreaterThanOrEqual(150);
    expect(states).toEqual(['connecting', 'connected']);
    expect(session.state).toBe('connected');
  });

  it('a rejected key stops at once (no retry); an unknown model moves to the next', async () => {
    const clock = new ManualClock();
    const rejected = new FakeProtocolSession(clock, ['auth']);
    await expect(rejected.start()).rejects.toThrow(/Fake rejected the API key/);
    expect(rejected.attempts).toHaveLength(1);
    expect(rejected.state).toBe('error');

    const fallback = new FakeProtocolSession(clock, ['model', 'ok']);
    await fallback.start();
    expect(fallback.attempts.map((a) => a.model)).toEqual(['primary', 'fallback']);
    expect(fallback.model).toBe('fallback');
  });

  it('gives up with `error` after maxAttempts transient failures', async () => {
    const clock = new ManualClock();
    const session = new FakeProtocolSession(clock, Array(5).fill('transient'));
    let error: unknown;
    void session.start().catch((err: unknown) => (error = err));
    await runUntil(clock, () => error !== undefined, 50);
    expect(String(error)).toMatch(/Fake unreachable after 5 attempts/);
    expect(session.attempts).toHaveLength(5);
  });

  it('close() during a back-off wait stops retrying', async () => {
    const clock = new ManualClock();
    const session = new FakeProtocolSession(clock, ['transient', 'transient', 'ok']);
    const started = session.start().catch(() => 'failed');
    await new Promise((resolve) => setImmediate(resolve));
    await session.close();
    expect(await started).toBe('failed');
    clock.advance(10_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(session.attempts).toHaveLength(1);
  });
});

describe('session core: a dropped socket', () => {
  it('reconnects once, replays the unanswered speech first, and ends the turn the socket carried', async () => {
    const clock = new ManualClock();
    const session = new FakeProtocolSession(clock, ['ok', 'transient', 'ok']);
    await session.start();
    const states = recordStates(session);
    const signals: string[] = [];
    session.on('interrupted', () => signals.push('interrupted'));
    session.on('turnComplete', () => signals.push('turnComplete'));

    session.sendAudio(pcm(1));
    session.sendAudio(pcm(2));
    session.endAudioInput();
    session.modelSpeaks(); // the model answered: 1 and 2 are in its conversation
    session.sendAudio(pcm(3)); // heard, never answered
    session.endAudioInput();
    const reconnecting = session.drop();
    await runUntil(clock, () => session.state === 'connected');
    await reconnecting;

    expect(states).toEqual(['reconnecting:socket dropped', 'connected:new socket']);
    expect(signals).toEqual(['turnComplete']);
    expect(session.sockets).toHaveLength(2);
    expect(session.sockets[1]!.wire).toEqual(['a3', 'end']);
  });

  it('an interruption then output with no end between: the cut turn ends before the new one', async () => {
    const clock = new ManualClock();
    const session = new FakeProtocolSession(clock, ['ok']);
    await session.start();
    const signals: string[] = [];
    session.on('interrupted', () => signals.push('interrupted'));
    session.on('turnComplete', () => signals.push('turnComplete'));
    session.modelSpeaks();
    session.serviceInterrupts();
    session.modelSpeaks();
    session.turnDone();
    session.turnDone(); // no turn open: nothing more
    expect(signals).toEqual(['interrupted', 'turnComplete', 'turnComplete']);
  });
});

describe('session core: texts wait for the model and a socket', () => {
  it('a text sent while no socket is open goes out on the next one, after the model has finished', async () => {
    const clock = new ManualClock();
    const session = new FakeProtocolSession(clock, ['ok', 'ok']);
    await session.start();
    session.modelSpeaks();
    session.sendText('  remind me  ');
    expect(session.sockets[0]!.wire).toEqual([]); // the model is talking
    const reconnecting = session.drop(); // ends the turn: the queue may speak, but no socket is open
    await runUntil(clock, () => session.state === 'connected');
    await reconnecting;
    await runUntil(clock, () => session.sockets[1]!.wire.length > 0);
    expect(session.sockets[1]!.wire).toEqual(['text:remind me']);
    let outcome: unknown;
    session.sendText('   ', { onSettled: (o) => (outcome = o) });
    expect(outcome).toEqual({ delivered: false, reason: 'call_ended' });
  });
});

describe('session core parts', () => {
  it('tool calls: a reply waits for the calls of its own socket only', () => {
    const calls = new PendingToolCalls<string>();
    expect(calls.ask('c1', 'lookup', '{"q":1}', 'old')).toEqual({ id: 'c1', name: 'lookup', args: { q: 1 } });
    expect(calls.ask('c2', 'lookup', 'not json', 'new').args).toBe('not json');
    expect(calls.pendingOn('new')).toBe(true);
    expect(calls.settle('c2')?.socket).toBe('new');
    expect(calls.pendingOn('new')).toBe(false);
    expect(calls.pendingOn('old')).toBe(true);
    expect(calls.settle('c2')).toBeUndefined();
  });

  it('usage reported as running totals per socket adds up across sockets, never twice', () => {
    const seconds = new SocketTotals();
    seconds.report(10);
    seconds.report(25);
    seconds.report(20); // late, older report
    seconds.nextSocket();
    seconds.report(5);
    expect(seconds.total).toBe(30);
  });

  it("a reply's transcript: recorded whole when it finished, with … when cut, nothing when it said nothing", () => {
    const recorded: string[] = [];
    const reply = new ReplyTranscript((text) => recorded.push(text));
    reply.add('Hello ');
    reply.add('there');
    reply.end(false);
    reply.add('It is');
    reply.end(true);
    reply.end(false);
    reply.add('partial');
    reply.set('The whole answer.');
    reply.end(false);
    reply.add('dropped');
    reply.reset();
    reply.end(true);
    expect(recorded).toEqual(['Hello there', 'It is …', 'The whole answer.']);
  });

  it('server events by type: a handler per type, a malformed event reported, other types ignored', () => {
    const seen: string[] = [];
    const delta = z.object({ type: z.literal('delta'), text: z.string() });
    const table = new EventTable<{ type: string } & Record<string, unknown>, string>({
      delta: validated(
        delta,
        (d, socket) => seen.push(`${socket}:${d.text}`),
        (event) => seen.push(`malformed ${event.type}`),
      ),
      done: () => seen.push('done'),
    });
    table.dispatch({ type: 'delta', text: 'hi' }, 's1');
    table.dispatch({ type: 'delta', text: 42 }, 's1');
    table.dispatch({ type: 'done' }, 's1');
    // Not handlers: a future event, and names every object has.
    table.dispatch({ type: 'rate_limits.updated' }, 's1');
    table.dispatch({ type: 'toString' }, 's1');
    table.dispatch({ type: 'constructor' }, 's1');
    expect(seen).toEqual(['s1:hi', 'malformed delta', 'done']);
  });
});
