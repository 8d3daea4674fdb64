// When a call may park its model: after the quiet period with nothing in flight — never while an
// utterance is open, a tool call runs, or a text (a /say, a notification, a due reminder) waits to
// be handed over; and a link that parks holds what comes next, in order, for the session a wake opens.
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ModelLink, type ModelLinkState } from '../../../main/core/bridge/model-link.ts';
import { ParkTimer } from '../../../main/core/bridge/park.ts';
import type {
  LiveModelConnectOptions,
  LiveModelProvider,
  LiveModelSession,
  TextDelivery,
  TextOutcome,
} from '../../../main/core/ports.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function parking(afterMs = 1000) {
  const parks: string[] = [];
  const timer = new ParkTimer({
    afterMs: () => afterMs,
    now: () => Date.now(),
    link: { park: (why) => parks.push(why) },
  });
  const inFlight = timer.inFlight;
  timer.start();
  return { parks, inFlight, timer };
}

describe('ParkTimer and InFlight', () => {
  it('parks once after the quiet period; activity starts it again', () => {
    const { parks, timer } = parking();
    vi.advanceTimersByTime(600);
    timer.touch();
    vi.advanceTimersByTime(600);
    expect(parks).toEqual([]);
    vi.advanceTimersByTime(500);
    expect(parks).toEqual(['quiet for 1 s']);
  });

  it('never parks while a tool call runs; parks a quiet period after it settled', () => {
    const { parks, inFlight } = parking();
    inFlight.toolStarted();
    vi.advanceTimersByTime(10_000);
    expect(parks).toEqual([]);
    inFlight.toolSettled();
    vi.advanceTimersByTime(2500);
    expect(parks).toHaveLength(1);
  });

  it('never parks while a reminder or /say text waits to be handed over', () => {
    const { parks, inFlight } = parking();
    const settle: TextDelivery['onSettled'] = inFlight.text({ onSettled: () => undefined }, 120_000).onSettled;
    vi.advanceTimersByTime(60_000);
    expect(parks).toEqual([]);
    settle?.({ delivered: true });
    vi.advanceTimersByTime(2500);
    expect(parks).toHaveLength(1);
  });

  it('never parks while an utterance is open (sent, not ended)', () => {
    const { parks, inFlight } = parking();
    inFlight.inputOpened();
    vi.advanceTimersByTime(10_000);
    expect(parks).toEqual([]);
    inFlight.inputEnded();
    vi.advanceTimersByTime(2500);
    expect(parks).toHaveLength(1);
  });

  it('0 never parks', () => {
    const { parks } = parking(0);
    vi.advanceTimersByTime(3_600_000);
    expect(parks).toEqual([]);
  });
});

class FakeSession extends EventEmitter {
  readonly state = 'connected' as const;
  readonly model = 'fake';
  readonly log: string[] = [];
  closed = false;
  /** The resumption handle the session would give a later wake (Gemini's `resumeHandle()`). */
  handle: string | null = null;
  resumeHandle(): string | null {
    return this.handle;
  }
  sendAudio(pcm: Int16Array): void {
    this.log.push(`audio:${pcm[0]}`);
  }
  endAudioInput(): void {
    this.log.push('end');
  }
  /** What each text was sent with: the session settles it when it hands it over. */
  readonly deliveries: (TextDelivery | undefined)[] = [];
  sendText(text: string, delivery?: TextDelivery): void {
    this.log.push(`text:${text}`);
    this.deliveries.push(delivery);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

function link(connectDelayMs: number, failures = 0) {
  const sessions: FakeSession[] = [];
  const states: ModelLinkState[] = [];
  let attempts = 0;
  const opened: LiveModelConnectOptions[] = [];
  const provider: LiveModelProvider = {
    name: 'fake',
    connect: (o: LiveModelConnectOptions) =>
      new Promise((resolve, reject) =>
        setTimeout(() => {
          if (attempts++ < failures) return reject(new Error('503'));
          const s = new FakeSession();
          sessions.push(s);
          opened.push(o);
          resolve(s as unknown as LiveModelSession);
        }, connectDelayMs),
      ),
  };
  const l = new ModelLink({
    provider,
    logger: pino({ level: 'silent' }),
    now: () => Date.now(),
    retry: { initialMs: 1000, maxMs: 4000 },
  });
  l.serve({ sessionOptions: () => ({ tools: [] }), bind: () => () => undefined, linkChanged: (s) => states.push(s) });
  return { l, sessions, states, opened, attempts: () => attempts };
}

describe('ModelLink', () => {
  it('a wake holds the speech, its end and a text in order, and hands them to the new session', async () => {
    const { l, sessions } = link(400);
    l.adopt(new FakeSession() as unknown as LiveModelSession);
    await l.park('quiet');
    expect(l.state).toBe('parked');
    l.sendAudio(Int16Array.of(1));
    l.sendAudio(Int16Array.of(2));
    l.endAudioInput();
    l.sendText('hello');
    expect(l.state).toBe('waking');
    await vi.advanceTimersByTimeAsync(400);
    expect(l.state).toBe('open');
    expect(sessions[0]!.log).toEqual(['audio:1', 'audio:2', 'end', 'text:hello']);
    expect(l.figures()).toMatchObject({ parks: 1, wakes: 1 });
  });

  it('a wake resumes the parked session by its handle while it is valid; without one, or 2 h later, a fresh session', async () => {
    const { l, sessions, opened } = link(100);
    const first = new FakeSession();
    first.handle = 'handle-at-park';
    l.adopt(first as unknown as LiveModelSession);
    await l.park('quiet');
    first.handle = 'issued-after-the-park';
    l.sendAudio(Int16Array.of(1));
    await vi.advanceTimersByTimeAsync(100);
    expect(opened[0]!.resumeHandle).toBe('handle-at-park');
    expect(sessions[0]!.log).toEqual(['audio:1']);
    // The woken session has no safe handle (the model spoke after the latest): the next wake is fresh.
    await l.park('quiet');
    l.sendText('hello');
    await vi.advanceTimersByTimeAsync(100);
    expect(opened[1]!.resumeHandle).toBeUndefined();
    // A handle older than the service keeps it (2 h after the session ended) is not offered.
    sessions[1]!.handle = 'old';
    await l.park('quiet');
    await vi.advanceTimersByTimeAsync(2 * 60 * 60_000);
    l.sendText('much later');
    await vi.advanceTimersByTimeAsync(100);
    expect(opened[2]!.resumeHandle).toBeUndefined();
    expect(sessions[2]!.log).toEqual(['text:much later']);
  });

  it('an outage: retried with capped back-off until a session opens; speech meanwhile is held for it', async () => {
    const { l, sessions, states, attempts } = link(10, 4);
    l.adopt(new FakeSession() as unknown as LiveModelSession);
    l.lost('Gemini unreachable after 8 attempts');
    expect(l.state).toBe('down');
    l.sendAudio(Int16Array.of(9));
    l.endAudioInput();
    // 1 s, 2 s, 4 s, 4 s (capped), then the fifth attempt opens.
    await vi.advanceTimersByTimeAsync(1010 + 2010 + 4010 + 4010);
    expect(attempts()).toBe(4);
    await vi.advanceTimersByTimeAsync(4010);
    expect(attempts()).toBe(5);
    expect(l.state).toBe('open');
    // What was said while the model was unreachable is heard when it is back (issue #55's day soak
    // lost every such word: this was [] before).
    expect(sessions[0]!.log).toEqual(['audio:9', 'end']);
    expect(states.filter((s) => s === 'down').length).toBe(1);
  });

  it('a session that gives up hands over what it held unanswered: heard, in order, before what came after', async () => {
    const { l, sessions } = link(10, 1);
    const first = new FakeSession();
    // What the user said while the session retried (issue #55: the day soak lost these words).
    const unanswered: (Int16Array | null)[] = [Int16Array.of(7), null, Int16Array.of(8)];
    Object.assign(first, { takeUnanswered: () => unanswered.splice(0) });
    l.adopt(first as unknown as LiveModelSession);
    l.lost('Gemini unreachable after 8 attempts');
    l.sendAudio(Int16Array.of(9));
    l.endAudioInput();
    await vi.advanceTimersByTimeAsync(3100);
    expect(l.state).toBe('open');
    sessions[0]!.emit('turnComplete');
    expect(sessions[0]!.log).toEqual(['audio:7', 'end', 'audio:8', 'audio:9', 'end']);
  });

  it('the paced pause after a held utterance is held for 1 s at most, the pauses between its words whole', async () => {
    const { l, sessions } = link(10, 1);
    const first = new FakeSession();
    const zeros = (chunks: number) => Array.from({ length: chunks }, () => new Int16Array(320));
    // The session's unanswered speech: a word, a 200 ms pause, a word, then 5 s of the paced pause.
    const unanswered: (Int16Array | null)[] = [
      new Int16Array(320).fill(1),
      ...zeros(10),
      new Int16Array(320).fill(2),
      ...zeros(250),
      null,
    ];
    Object.assign(first, { takeUnanswered: () => unanswered.splice(0) });
    l.adopt(first as unknown as LiveModelSession);
    l.lost('unreachable');
    // Said while the link is down: a word and the paced pause up to the silence cap.
    l.sendAudio(new Int16Array(320).fill(3));
    for (const chunk of zeros(250)) l.sendAudio(chunk);
    l.endAudioInput();
    await vi.advanceTimersByTimeAsync(3100);
    sessions[0]!.emit('turnComplete');
    const log = sessions[0]!.log;
    // 1 s of 20 ms chunks after each utterance (was 250: 10 s of the 30 s hold for two words).
    expect(log).toEqual([
      'audio:1',
      ...Array(10).fill('audio:0'),
      'audio:2',
      ...Array(50).fill('audio:0'),
      'end',
      'audio:3',
      ...Array(50).fill('audio:0'),
      'end',
    ]);
  });

  it('an outage longer than the hold: the newest speech is kept, an utterance with nothing left is not sent', async () => {
    const { l, sessions } = link(10, 1);
    l.adopt(new FakeSession() as unknown as LiveModelSession);
    l.lost('unreachable');
    // holdMs is 30 s of 16 kHz audio: three 12 s utterances do not fit, the first gives way whole.
    for (const first of [1, 2, 3]) {
      const chunk = new Int16Array(12 * 16_000).fill(first);
      l.sendAudio(chunk);
      l.endAudioInput();
    }
    await vi.advanceTimersByTimeAsync(3100);
    expect(l.state).toBe('open');
    sessions[0]!.emit('turnComplete');
    expect(sessions[0]!.log).toEqual(['audio:2', 'end', 'audio:3', 'end']);
    expect(l.figures().heldSpeechDroppedSeconds).toBe(12);
  });

  it('a held utterance is answered when a turn ends whole: a turn cut meanwhile does not hand over the next', async () => {
    const { l, sessions } = link(10, 1);
    l.adopt(new FakeSession() as unknown as LiveModelSession);
    l.lost('unreachable');
    for (const n of [1, 2]) {
      l.sendAudio(Int16Array.of(n));
      l.endAudioInput();
    }
    await vi.advanceTimersByTimeAsync(3100);
    const session = sessions[0]!;
    expect(session.log).toEqual(['audio:1', 'end']);
    // Utterance 1 held two speakers: the service cut its reply to the first for the second.
    session.emit('interrupted');
    session.emit('turnComplete');
    expect(session.log).toEqual(['audio:1', 'end']);
    // Its answer to the second ends whole: now the next.
    session.emit('turnComplete');
    expect(session.log).toEqual(['audio:1', 'end', 'audio:2', 'end']);
  });

  it('held utterances are handed over one per model turn; what comes meanwhile queues behind them', async () => {
    const { l, sessions } = link(10, 1);
    l.adopt(new FakeSession() as unknown as LiveModelSession);
    l.lost('unreachable');
    for (const n of [1, 2, 3]) {
      l.sendAudio(Int16Array.of(n));
      l.endAudioInput();
    }
    await vi.advanceTimersByTimeAsync(3100);
    expect(l.state).toBe('open');
    const session = sessions[0]!;
    // Back to back, the service took the next utterance as a barge-in on its answer (issue #55's day soak).
    expect(session.log).toEqual(['audio:1', 'end']);
    // Said now, once the model is back: behind the held ones, in order.
    l.sendAudio(Int16Array.of(4));
    l.sendText('reminder');
    expect(session.log).toEqual(['audio:1', 'end']);
    session.emit('turnComplete');
    expect(session.log).toEqual(['audio:1', 'end', 'audio:2', 'end']);
    // An utterance the model does not answer holds the next back for a while, not for ever.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(session.log).toEqual(['audio:1', 'end', 'audio:2', 'end', 'audio:3', 'end']);
    session.emit('turnComplete');
    expect(session.log.slice(-2)).toEqual(['audio:4', 'text:reminder']);
    // Handed over: live again.
    l.endAudioInput();
    l.sendAudio(Int16Array.of(5));
    expect(session.log.slice(-2)).toEqual(['end', 'audio:5']);
    expect(session.listenerCount('turnComplete')).toBe(0);
  });

  it('a text held between two utterances stays between them; an outage longer than the hold never drops a text', async () => {
    const { l, sessions } = link(10, 1);
    l.adopt(new FakeSession() as unknown as LiveModelSession);
    l.lost('unreachable');
    l.sendText('before all');
    l.sendAudio(new Int16Array(12 * 16_000).fill(1));
    l.endAudioInput();
    l.sendText('between');
    for (const first of [2, 3]) {
      l.sendAudio(new Int16Array(12 * 16_000).fill(first));
      l.endAudioInput();
    }
    await vi.advanceTimersByTimeAsync(3100);
    const session = sessions[0]!;
    // Utterance 1 gave way (30 s hold); the texts did not, and keep their places before what is left.
    expect(session.log).toEqual(['text:before all', 'text:between', 'audio:2', 'end']);
    session.emit('turnComplete');
    expect(session.log.slice(-2)).toEqual(['audio:3', 'end']);

    l.lost('unreachable');
    l.sendAudio(Int16Array.of(4));
    l.endAudioInput();
    l.sendText('after 4');
    l.sendAudio(Int16Array.of(5));
    l.endAudioInput();
    await vi.advanceTimersByTimeAsync(3100);
    const next = sessions[1]!;
    expect(next.log).toEqual(['audio:4', 'end']);
    next.emit('turnComplete');
    expect(next.log).toEqual(['audio:4', 'end', 'text:after 4', 'audio:5', 'end']);
  });

  it('a call that ends while the model wakes closes the session that opens later', async () => {
    const { l, sessions } = link(400);
    l.adopt(new FakeSession() as unknown as LiveModelSession);
    await l.park('quiet');
    l.sendText('late');
    await l.close();
    await vi.advanceTimersByTimeAsync(400);
    expect(sessions[0]!.closed).toBe(true);
    expect(l.session).toBeNull();
  });
});

describe('ModelLink texts in an outage', () => {
  it('a session that gives up with a /say still waiting: the next session speaks it, and its sender hears it once', async () => {
    const { l, sessions } = link(10, 1);
    const first = new FakeSession();
    const outcomes: string[] = [];
    const waiting: { text: string; delivery: TextDelivery }[] = [
      {
        text: 'Say: the build is green',
        delivery: { asMessage: true, onSettled: (o) => outcomes.push(o.delivered ? 'delivered' : o.reason) },
      },
    ];
    // The old session closes its queue on close: what it still held would settle `call_ended`.
    Object.assign(first, {
      takeTexts: () => waiting.splice(0),
      close: async () => {
        for (const t of waiting) t.delivery.onSettled?.({ delivered: false, reason: 'call_ended' });
      },
    });
    l.adopt(first as unknown as LiveModelSession);
    l.lost('Gemini unreachable after 8 attempts');
    await vi.advanceTimersByTimeAsync(3100);
    expect(l.state).toBe('open');
    expect(sessions[0]!.log).toEqual(['text:Say: the build is green']);
    expect(sessions[0]!.deliveries[0]?.asMessage).toBe(true);
    sessions[0]!.deliveries[0]?.onSettled?.({ delivered: true });
    expect(outcomes).toEqual(['delivered']);
  });

  it('a taken text keeps what was left of its deadline: no session in time, it settles `timeout`, never sent', async () => {
    const { l, sessions } = link(10, 5);
    const first = new FakeSession();
    const outcomes: string[] = [];
    Object.assign(first, {
      takeTexts: () => [
        {
          text: 'Tea is ready.',
          delivery: {
            asMessage: true,
            deadlineMs: 1500,
            onSettled: (o: TextOutcome) => outcomes.push(o.delivered ? 'delivered' : o.reason),
          },
        },
      ],
    });
    l.adopt(first as unknown as LiveModelSession);
    l.lost('unreachable');
    await vi.advanceTimersByTimeAsync(1600);
    expect(outcomes).toEqual(['timeout']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(l.state).toBe('open');
    expect(sessions[0]!.log).toEqual([]);
  });

  it('a text with a deadline that no session took in time settles `timeout` and is never sent later', async () => {
    const { l, sessions } = link(10, 3);
    l.adopt(new FakeSession() as unknown as LiveModelSession);
    l.lost('unreachable');
    const outcomes: string[] = [];
    l.sendText('Tea is ready.', {
      deadlineMs: 2000,
      onSettled: (o) => outcomes.push(o.delivered ? 'delivered' : o.reason),
    });
    await vi.advanceTimersByTimeAsync(2100);
    expect(outcomes).toEqual(['timeout']);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(l.state).toBe('open');
    expect(sessions[0]!.log).toEqual([]);
  });
});
