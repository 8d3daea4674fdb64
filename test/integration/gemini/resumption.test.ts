import { afterEach, describe, expect, it } from 'vitest';
import { concatPcm, tone, type FakeGeminiOptions } from '../../../main/fakes/gemini/index.ts';
import {
  expectAudioAcrossResume,
  numberedChunk,
  startAudioPump,
  startHarness,
  waitUntil,
  type Harness,
} from './helpers.ts';

let h: Harness | null = null;
let pump: { sent: () => number; stop: () => void } | null = null;
afterEach(async () => {
  pump?.stop();
  pump = null;
  await h?.close();
  h = null;
});

function startPump(harness: Harness): { sent: () => number } {
  pump = startAudioPump(harness);
  return pump;
}

/**
 * The same rotation in both worlds: the strict default (the service refuses a second socket of a
 * session with 1011, so the client closes the old one, then resumes) and a service that allows
 * the overlap (the next socket opens while the old one is still up).
 */
const worlds: { world: string; fake: FakeGeminiOptions; overlap: boolean }[] = [
  { world: 'one socket per session (strict default)', fake: {}, overlap: false },
  { world: 'overlap allowed', fake: { strict: { overlappedResume: 'allow' } }, overlap: true },
];

describe.each(worlds)('gemini live: goAway rotation with session resumption — $world', ({ fake, overlap }) => {
  it('resumes with the latest handle at the idle point; every audio chunk arrives once, in order; transcripts continue', async () => {
    h = await startHarness(fake, { switchMarginMs: 500 });
    const first = await h.fake.connection(0);
    const rec = h.rec;
    const audio = startPump(h);
    await first.waitFor(() => first.audio.length >= 5, 5000, 'audio on the first connection');

    // The model is mid-reply when the service announces the end of this connection.
    const speech = tone(800, { hz: 350 });
    const reply = first.reply({ pcm: speech, chunkMs: 40, paceMs: 10, transcript: 'first reply. ' });
    await waitUntil(() => rec.audio.length >= 3, 'reply under way');
    first.goAway(4000);
    expect(await reply).toBe('complete'); // not cut off by the rotation

    const second = await h.fake.connection(1);
    expect(second.resumedWithHandle).toBe(first.issuedHandles.at(-1)); // the handle issued after the reply
    expect(second.sessionId).toBe(first.sessionId);
    expect((second.setup as { sessionResumption: { handle: string } }).sessionResumption.handle).toBe(
      second.resumedWithHandle,
    );
    await second.waitFor(() => second.audio.length >= 10, 5000, 'audio on the second connection');
    // the first connection is released by the client, well before the service's deadline
    await first.waitFor(() => !first.isOpen, 8000, 'old connection closed');
    expect(first.closedBy).toBe('client');

    pump!.stop();
    const total = audio.sent();
    await second.waitFor(() => second.audio.at(-1)?.pcm[0] === total - 1, 5000, 'every chunk delivered');
    // nothing lost or reordered; with one socket per session the unanswered tail is sent again
    expectAudioAcrossResume(first, second, total);
    if (overlap) {
      // Input moved over in one step; what the first socket got after the resume handle's index
      // (transparent resumption) is sent again, because the resumed session is as of that handle.
      const updates = first.sent.flatMap((m) =>
        m.sessionResumptionUpdate
          ? [m.sessionResumptionUpdate as { newHandle?: string; lastConsumedClientMessageIndex?: string }]
          : [],
      );
      const index = Number(
        updates.find((u) => u.newHandle === second.resumedWithHandle)!.lastConsumedClientMessageIndex,
      );
      const unconsumed = first.received
        .slice(index)
        .filter((m) => (m.realtimeInput as { audio?: unknown } | undefined)?.audio).length;
      expect(first.audio.length + second.audio.length).toBe(total + unconsumed);
    }

    await second.reply({ toneMs: 200, transcript: 'second reply.' });
    await waitUntil(() => rec.turnCompletes === 2, 'second turn');
    expect(Array.from(concatPcm(rec.audio).subarray(0, speech.length))).toEqual(Array.from(speech));
    expect(rec.outputText).toBe('first reply. second reply.');
    expect(rec.states.map((s) => s.state)).not.toContain('reconnecting');
    expect(h.session.state).toBe('connected');
    expect(h.session.stats).toMatchObject({
      switchOvers: 1,
      resumed: 1,
      audioChunksDropped: 0,
      overlapsRefused: overlap ? 0 : 1,
    });
    expect(h.fake.overlapsRefused).toBe(overlap ? 0 : 1);
    expect(h.fake.sessions.get(first.sessionId!)!.history.map((e) => e.text)).toEqual([
      'first reply. ',
      'second reply.',
    ]);
  });

  it('with the fake’s own lifetime limit, a long call crosses several connections in one conversation', async () => {
    h = await startHarness({ ...fake, goAwayAfterMs: 150, goAwayTimeLeftMs: 1500 }, { switchMarginMs: 300 });
    await h.fake.connection(3, 15_000);
    const ids = new Set(h.fake.established.map((c) => c.sessionId));
    expect(ids.size).toBe(1);
    expect(h.fake.established.slice(1).every((c) => c.resumedWithHandle !== null)).toBe(true);
    expect(h.session.state).toBe('connected');
    // refused once, then the client rotates by close-then-resume without trying the overlap again
    expect(h.fake.overlapsRefused).toBe(overlap ? 0 : 1);
    expect(h.rec.states.map((s) => s.state)).not.toContain('reconnecting');
  });

  it('rotates at the deadline when the model talks through it; input moves on, nothing lost, the cut turn ends', async () => {
    h = await startHarness(fake, { switchMarginMs: 1500, replyWaitMs: 200 });
    const first = await h.fake.connection(0);
    const setupHandle = first.issuedHandles[0];
    const rec = h.rec;
    const audio = startPump(h);
    const reply = first.reply({ toneMs: 6000, chunkMs: 40, paceMs: 40, transcript: 'a very long monologue' });
    await waitUntil(() => rec.audio.length >= 3, 'reply under way');
    first.goAway(3000);
    const second = await h.fake.connection(1);
    // still mid-reply: the only resumable handle is the one from before the reply
    expect(second.resumedWithHandle).toBe(setupHandle);
    if (overlap) expect(first.isOpen).toBe(true); // opened before the old one closed, which finishes its tail
    expect(await reply).toBe('closed'); // cut at the deadline: by the service, or by us just before it
    await waitUntil(() => rec.turnCompletes === 1, 'the cut turn ends explicitly');
    await second.waitFor(() => second.audio.length >= 5, 5000, 'audio on the second connection');
    pump!.stop();
    const total = audio.sent();
    await second.waitFor(() => second.audio.at(-1)?.pcm[0] === total - 1, 5000, 'every chunk delivered');
    expectAudioAcrossResume(first, second, total);
    expect(rec.states.map((s) => s.state)).not.toContain('reconnecting');
    // the cut-off turn does not block injected text forever
    h.session.endAudioInput();
    h.session.sendText('still here');
    await second.waitFor(() => second.clientContents.length === 1, 5000, 'injected text on the new socket');
  });
});

describe('gemini live: output still in flight on a socket we closed', () => {
  it('a reply cut by a close-then-resume rotation ends once, and none of its audio plays after the cut', async () => {
    h = await startHarness({}, { switchMarginMs: 1500, replyWaitMs: 200 });
    const first = await h.fake.connection(0);
    const rec = h.rec;
    // A long reply streamed far faster than real time: chunks are on the wire whenever we close.
    const reply = first.reply({ toneMs: 600_000, chunkMs: 20, paceMs: 1, transcript: 'a very long monologue' });
    await waitUntil(() => rec.audio.length >= 3, 'reply under way');
    let audioAfterCut = 0;
    h.session.on('audio', () => {
      if (rec.turnCompletes > 0) audioAfterCut += 1;
    });
    first.goAway(1600); // rotation 100 ms from now (the 1500 ms margin), mid-reply
    await h.fake.connection(1);
    expect(await reply).toBe('closed');
    await waitUntil(() => rec.turnCompletes >= 1, 'the cut turn to end');
    await new Promise((r) => setTimeout(r, 500));
    expect(rec.turnCompletes).toBe(1);
    expect(audioAfterCut).toBe(0);
    expect(h.fake.overlapsRefused).toBe(1); // it was the close-then-resume path
  });
});

describe('gemini live: unexpected close', () => {
  it('reconnects after a dropped socket and resumes with the handle', async () => {
    h = await startHarness();
    const first = await h.fake.connection(0);
    await first.reply({ toneMs: 100, transcript: 'before the drop.' });
    await waitUntil(() => h!.rec.turnCompletes === 1, 'first turn');
    const handle = first.issuedHandles.at(-1);
    first.drop();
    const second = await h.fake.connection(1);
    expect(second.resumedWithHandle).toBe(handle);
    expect(second.sessionId).toBe(first.sessionId);
    await waitUntil(() => h!.session.state === 'connected' && h!.rec.states.length >= 2, 'connected again');
    expect(h.rec.states.map((s) => s.state)).toEqual(['reconnecting', 'connected']);
    expect(h.rec.states[0]!.reason).toMatch(/1006/);
    h.session.sendAudio(numberedChunk(7));
    await second.waitFor(() => second.audio.length === 1, 5000, 'audio after reconnect');
    expect(second.audio[0]!.pcm[0]).toBe(7);
  });

  it('starts a fresh conversation (once) when the handle is no longer accepted, instead of looping', async () => {
    h = await startHarness();
    const first = await h.fake.connection(0);
    h.fake.forgetHandles();
    first.drop();
    const fresh = await h.fake.connection(1);
    expect(fresh.resumedWithHandle).toBeNull();
    expect(fresh.sessionId).not.toBe(first.sessionId);
    expect(h.fake.connections[1]!.closeCode).toBe(1008); // the rejected resume attempt
    expect(h.fake.upgradeAttempts).toBe(3);
    await waitUntil(() => h!.rec.states.at(-1)?.state === 'connected', 'connected again');
    expect(h.rec.states.at(-1)!.reason).toMatch(/new conversation/);
  });

  it('reconnects after a 1011 close and gives up with an error state when the service stays down', async () => {
    h = await startHarness({}, { backoff: { initialMs: 10, maxMs: 40, maxAttempts: 3 } });
    const first = await h.fake.connection(0);
    first.close(1011, 'Internal error occurred.');
    await h.fake.connection(1);
    await waitUntil(() => h!.rec.states.at(-1)?.state === 'connected', 'reconnected after 1011');
    const second = h.fake.established[1]!;
    await h.fake.close(); // the service disappears
    void second;
    await waitUntil(() => h!.session.state === 'error', 'error state', 15_000);
    expect(h.rec.states.at(-1)!.reason).toMatch(/unreachable after 3 attempts/);
    expect(h.session.stats.connectionAttempts).toBe(2 + 3);
  });
});
