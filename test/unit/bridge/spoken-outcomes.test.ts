// The outcome records behind GET /say/{id} (bridge/spoken-outcomes.ts) and what settles them
// (bridge/reply-follower.ts): bounded memory, the first outcome stands, and a cut keeps only the words
// whose audio was played.
import { describe, expect, it, vi } from 'vitest';
import type { SayOutcome } from '../../../main/core/api-types.ts';
import type { PlaybackStats } from '../../../main/core/audio/playback-buffer.ts';
import { ReplyFollower } from '../../../main/core/bridge/reply-follower.ts';
import { SAY_ID_PATTERN, SpokenOutcomes } from '../../../main/core/bridge/spoken-outcomes.ts';

function store(options: { capacity?: number; ttlMs?: number; now?: () => number } = {}) {
  const published: SayOutcome[] = [];
  const notes: string[] = [];
  const outcomes = new SpokenOutcomes({ publish: (o) => published.push(o), note: (t) => notes.push(t), ...options });
  return { outcomes, published, notes };
}

describe('SpokenOutcomes', () => {
  it('creates waiting records with ids GET /say/{id} accepts; the first settle stands; each change is published once', () => {
    const { outcomes, published, notes } = store();
    const id = outcomes.create('announce', 'The build is green', 'cli', 'waiting for a pause in the conversation');
    expect(id).toMatch(SAY_ID_PATTERN);
    expect(outcomes.get(id)).toMatchObject({
      id,
      verb: 'announce',
      outcome: 'waiting',
      spoken_text: null,
      by: null,
      settled_at: null,
    });
    outcomes.settle(id, 'cut', { spoken_text: 'The build is', by: 'Alice', reason: 'Alice spoke' });
    outcomes.settle(id, 'spoken', { spoken_text: 'The build is green' });
    expect(outcomes.get(id)).toMatchObject({
      outcome: 'cut',
      spoken_text: 'The build is',
      by: 'Alice',
      reason: 'Alice spoke',
    });
    expect(published.map((p) => p.outcome)).toEqual(['waiting', 'cut']);
    expect(notes).toEqual(['announce from cli "The build is green": Cut off after "The build is" — Alice spoke.']);
  });

  it('keeps at most `capacity` records (the oldest go) and none past the TTL', () => {
    let now = 1_000_000;
    const { outcomes } = store({ capacity: 3, ttlMs: 60_000, now: () => now });
    const ids = [1, 2, 3, 4].map((n) => outcomes.create('say', `text ${n}`, 'cli', 'waiting'));
    expect(ids.map((id) => outcomes.get(id) !== undefined)).toEqual([false, true, true, true]);
    now += 61_000;
    expect(outcomes.get(ids[3]!)).toBeUndefined();
    outcomes.create('say', 'fresh', 'cli', 'waiting');
    expect(outcomes.waiting()).toHaveLength(1);
  });

  it('settled() resolves when the ids settle, or at its bound', async () => {
    vi.useFakeTimers();
    try {
      const { outcomes } = store();
      const id = outcomes.create('ask', 'hi', 'cli', 'waiting');
      let done = false;
      void outcomes.settled([id], 8000).then(() => (done = true));
      await vi.advanceTimersByTimeAsync(100);
      expect(done).toBe(false);
      outcomes.settle(id, 'spoken');
      await vi.advanceTimersByTimeAsync(0);
      expect(done).toBe(true);
      const other = outcomes.create('ask', 'again', 'cli', 'waiting');
      let bounded = false;
      void outcomes.settled([other], 8000).then(() => (bounded = true));
      await vi.advanceTimersByTimeAsync(8001);
      expect(bounded).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('ReplyFollower', () => {
  function follower() {
    const { outcomes } = store();
    let stats: Pick<PlaybackStats, 'turns' | 'turnState' | 'bufferedMs' | 'turnPlayedMs'> = {
      turns: 0,
      turnState: 'idle',
      bufferedMs: 0,
      turnPlayedMs: 0,
    };
    const follow = new ReplyFollower({
      outcomes,
      audio: { playbackStats: () => stats as PlaybackStats },
      speaking: new Set(),
      activity: { name: (id) => id },
    });
    return { outcomes, follow, set: (s: Partial<typeof stats>) => (stats = { ...stats, ...s }) };
  }

  it('a cut keeps only the words whose audio was played', () => {
    const { outcomes, follow, set } = follower();
    const id = outcomes.create('announce', 'The build is green', 'cli', 'waiting');
    follow.handedOver(id);
    set({ turns: 1, turnState: 'active' });
    for (const word of ['The ', 'build ', 'is ', 'green']) {
      follow.modelAudio(24 * 400); // 400 ms of 24 kHz audio, then its words
      follow.outputTranscript(word);
    }
    follow.cut(1250, 'Alice', 'Alice spoke');
    expect(outcomes.get(id)).toMatchObject({ outcome: 'cut', spoken_text: 'The build is', by: 'Alice' });
  });

  it('spoken only once the turn ended and the player has nothing left of it', async () => {
    vi.useFakeTimers();
    try {
      const { outcomes, follow, set } = follower();
      const id = outcomes.create('say', 'Hello', 'cli', 'waiting');
      follow.handedOver(id);
      set({ turns: 1, turnState: 'active' });
      follow.modelAudio(24 * 1000);
      follow.outputTranscript('Hello');
      set({ turnState: 'ending', bufferedMs: 600 });
      follow.turnComplete();
      expect(outcomes.get(id)!.outcome).toBe('waiting');
      set({ turnState: 'idle', bufferedMs: 0 });
      await vi.advanceTimersByTimeAsync(700);
      expect(outcomes.get(id)).toMatchObject({ outcome: 'spoken', spoken_text: 'Hello' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('a cut of a later reply (to someone speaking) concerns no request: the reply to the text had played whole', () => {
    const { outcomes, follow, set } = follower();
    const id = outcomes.create('announce', 'Hello', 'cli', 'waiting');
    follow.handedOver(id);
    set({ turns: 1, turnState: 'active' });
    follow.modelAudio(24 * 500);
    follow.outputTranscript('Hello');
    set({ turnState: 'ending', bufferedMs: 100 });
    follow.turnComplete();
    // The model answers someone else's question (turn 2), and that reply is cut.
    set({ turns: 2, turnState: 'active' });
    follow.modelAudio(24 * 500);
    follow.outputTranscript('Sure, the');
    follow.cut(200, 'Alice', 'Alice spoke');
    expect(outcomes.get(id)).toMatchObject({ outcome: 'spoken', spoken_text: 'Hello' });
  });

  it('the wait for a reply counts only while the model is reachable: a text written just before an outage is said after it, not dropped during it', async () => {
    vi.useFakeTimers();
    try {
      const { outcomes, follow, set } = follower();
      const id = outcomes.create('say', 'The pizza is here', 'cli', 'waiting');
      follow.handedOver(id);
      await vi.advanceTimersByTimeAsync(4000);
      follow.modelState('reconnecting'); // the socket it was written on died; the session writes it again when back
      await vi.advanceTimersByTimeAsync(60_000);
      expect(outcomes.get(id)!.outcome).toBe('waiting');
      follow.modelState('connected');
      await vi.advanceTimersByTimeAsync(5000);
      set({ turns: 1, turnState: 'active' });
      follow.modelAudio(24 * 500);
      follow.outputTranscript('The pizza is here');
      set({ turnState: 'idle', bufferedMs: 0 }); // played to its last frame
      follow.turnComplete();
      await vi.advanceTimersByTimeAsync(1000);
      expect(outcomes.get(id)).toMatchObject({ outcome: 'spoken', spoken_text: 'The pizza is here' });
      // Reachable and silent: dropped after the full wait of connected time.
      const late = outcomes.create('say', 'Anyone?', 'cli', 'waiting');
      follow.handedOver(late);
      follow.modelState('reconnecting');
      follow.modelState('connected');
      await vi.advanceTimersByTimeAsync(29_000);
      expect(outcomes.get(late)!.outcome).toBe('waiting');
      await vi.advanceTimersByTimeAsync(1000);
      expect(outcomes.get(late)).toMatchObject({ outcome: 'dropped' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('the end of the call drops what was never said', () => {
    const { outcomes, follow } = follower();
    const id = outcomes.create('announce', 'Dinner is ready', 'dashboard', 'waiting');
    follow.handedOver(id);
    follow.callEnded('stopped from the dashboard');
    expect(outcomes.get(id)).toMatchObject({
      outcome: 'dropped',
      reason: 'the call ended before the model said it (stopped from the dashboard)',
    });
  });

  it('a reply the service cancelled before a word is no reply: the answer to the speaker is not taken for it; it goes over once more', () => {
    const { outcomes, follow, set } = follower();
    const id = outcomes.create('announce', 'the pelican budget review moved to Monday', 'sidecar', 'waiting');
    let resent = 0;
    follow.handedOver(id, () => resent++);
    // The owner began to speak as it went over: the service stops the generation before its audio.
    follow.serviceInterrupted();
    expect(resent).toBe(1);
    expect(outcomes.get(id)).toMatchObject({ outcome: 'waiting' });
    // The model's answer to the owner plays whole: it is not the announcement.
    set({ turns: 1, turnState: 'active' });
    follow.modelAudio(24 * 400);
    follow.outputTranscript('Hello from the fake model.');
    follow.turnComplete();
    set({ turnState: 'idle' });
    follow.turnComplete();
    expect(outcomes.get(id)).toMatchObject({ outcome: 'waiting' });
    // Handed over again at the next pause (no further resend): its own reply is spoken.
    follow.handedOver(id);
    set({ turns: 2, turnState: 'active' });
    follow.modelAudio(24 * 400);
    follow.outputTranscript('the pelican budget review moved to Monday');
    follow.turnComplete();
    set({ turnState: 'idle' });
    follow.callEnded('test over');
    expect(outcomes.get(id)).toMatchObject({
      outcome: 'spoken',
      spoken_text: 'the pelican budget review moved to Monday',
    });
  });

  it('cancelled before a word a second time: dropped with that reason, never reported spoken', () => {
    const { outcomes, follow } = follower();
    const id = outcomes.create('announce', 'Dinner is ready', 'dashboard', 'waiting');
    follow.handedOver(id, null);
    follow.serviceInterrupted();
    expect(outcomes.get(id)).toMatchObject({
      outcome: 'dropped',
      reason: 'someone spoke as the model began it, twice; it was not said',
    });
  });
});
