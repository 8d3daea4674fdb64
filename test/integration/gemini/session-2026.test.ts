// The Gemini provider against the late-2026 service (research/field-2026-11.md §3.1): a session
// deadline whose resume is refused, renewal before it, lossless handover with transparent
// resumption, turn order after `interrupted`, the stall check against fast replies, wrong-shaped
// messages, and mid-call context updates. Each test fails on the code before these changes.
import { afterEach, describe, expect, it } from 'vitest';
import { faultCounts } from '../../../main/core/faults.ts';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { startAudioPump, startHarness, waitUntil, type Harness } from './helpers.ts';

let h: Harness | null = null;
let pump: { sent: () => number; stop: () => void } | null = null;
afterEach(async () => {
  pump?.stop();
  pump = null;
  await h?.close();
  h = null;
});

function instructionOf(connection: FakeGeminiConnection): string {
  const instruction = connection.setup?.systemInstruction as { parts?: { text?: string }[] } | undefined;
  return (instruction?.parts ?? []).map((p) => p.text ?? '').join('');
}

function clientTexts(connection: FakeGeminiConnection): string {
  return JSON.stringify(connection.clientContents);
}

describe('gemini live, 2026 session rules', () => {
  it('after the session deadline (1011 "Deadline expired") and a refused resume (1007) a fresh session opens at once, seeded with persona, transcript and pending reminders; /say works', async () => {
    h = await startHarness(
      { sessionDeadlineMs: 1500 },
      { sessionRenewAfterMs: null },
      { pendingContext: () => 'Reminder at 17:00: call Bob.' },
    );
    const first = await h.fake.connection(0);
    await first.reply({ inputTranscript: 'my name is Ada ', transcript: 'Hello Ada, nice to meet you.', toneMs: 200 });
    await waitUntil(() => first.closeCode !== null, 'the deadline close', 10_000);
    expect(first.closeCode).toBe(1011);
    const fresh = await h.fake.connection(1);
    expect(fresh.resumedWithHandle).toBeNull();
    // The resume before it was refused with 1007.
    const refused = h.fake.connections.filter((c) => c.closeCode === 1007);
    expect(refused).toHaveLength(1);
    const instruction = instructionOf(fresh);
    expect(instruction).toContain('You are a test persona.');
    expect(instruction).toContain('my name is Ada');
    expect(instruction).toContain('Hello Ada, nice to meet you.');
    expect(instruction).toContain('Reminder at 17:00: call Bob.');
    await waitUntil(() => h!.session.stats.freshSessions === 1, 'the fresh session adopted');
    expect(h.session.state).toBe('connected');
    expect(h.rec.states.map((s) => s.state)).not.toContain('error');
    expect(h.session.stats).toMatchObject({ deadlines: 1, freshSessions: 1 });
    h.session.sendText('the pizza is here');
    await fresh.waitFor(
      () => clientTexts(fresh).includes('the pizza is here'),
      5000,
      'the /say text on the fresh session',
    );
  });

  it('a refused resume, then a 1011 on the fresh session before it answered: the utterance said across both is heard once, on the next socket', async () => {
    // The day soak's last minute (issue #55): a deadline with a refused resume and a 1011 drop right after.
    h = await startHarness(
      { sessionDeadlineMs: 1500, bargeInRms: null, autoReply: false },
      { sessionRenewAfterMs: null },
    );
    const first = await h.fake.connection(0);
    await waitUntil(() => first.closeCode !== null, 'the deadline close', 10_000);
    const fresh = await h.fake.connection(1);
    expect(fresh.resumedWithHandle).toBeNull();
    await waitUntil(() => h!.session.stats.freshSessions === 1, 'the fresh session adopted');
    for (let i = 0; i < 10; i++) h.session.sendAudio(new Int16Array(320).fill(3000));
    h.session.endAudioInput();
    await fresh.waitFor(() => fresh.audioStreamEnds === 1, 5000, 'the utterance on the fresh session');
    fresh.close(1011, 'Internal error occurred.');
    const next = await h.fake.connection(h.fake.connections.indexOf(fresh) + 1);
    await next.waitFor(
      () => next.audioStreamEnds === 1 && next.inputSamples >= 3200,
      5000,
      'the utterance on the next socket',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(next.audioStreamEnds).toBe(1); // once, not twice
  });

  it('renews the session at an idle point before a known deadline: a fresh seeded session, no deadline close, no reconnecting', async () => {
    h = await startHarness({ sessionDeadlineMs: 4000 }, { sessionRenewAfterMs: 800 });
    const first = await h.fake.connection(0);
    await first.reply({
      inputTranscript: 'remember the blue door ',
      transcript: 'I will remember the blue door.',
      toneMs: 200,
    });
    const fresh = await h.fake.connection(1, 10_000);
    expect(fresh.resumedWithHandle).toBeNull();
    expect(instructionOf(fresh)).toContain('remember the blue door');
    await waitUntil(() => first.closeCode !== null, 'the old socket closed');
    expect(first.closedBy).toBe('client');
    await waitUntil(() => h!.session.stats.freshSessions === 1, 'the fresh session adopted');
    expect(h.session.stats).toMatchObject({ renewals: 1, freshSessions: 1, deadlines: 0 });
    expect(h.rec.states.map((s) => s.state)).not.toContain('reconnecting');
  });

  it('transparent resumption: across 20 drops, each after more user audio than the hold keeps, the service consumes every sample exactly once', async () => {
    // The unconsumed tail (30 s) is kept apart from the 1 s hold; before it, a resumed session lost
    // whatever an utterance had beyond the hold.
    h = await startHarness(
      { bargeInRms: null },
      { holdAudioMs: 1000, backoff: { initialMs: 10, maxMs: 50, maxAttempts: 8 } },
    );
    pump = startAudioPump(h);
    for (let i = 0; i < 20; i++) {
      const c = await h.fake.connection(i, 10_000);
      // 80 chunks of 20 ms: 1.6 s of speech on this socket since its handle.
      await c.waitFor(() => c.audio.length >= 80, 10_000, 'user audio on the socket');
      c.drop();
    }
    const last = await h.fake.connection(20, 10_000);
    pump.stop();
    const total = pump.sent() * 320;
    const record = h.fake.sessions.get(last.sessionId!)!;
    await waitUntil(() => record.audioSamples >= total, 'every sample consumed', 10_000).catch(() => undefined);
    expect({ consumed: record.audioSamples, lost: total - record.audioSamples }).toEqual({ consumed: total, lost: 0 });
    expect(h.session.stats.replayedMs).toBeGreaterThan(20 * 1000);
  });

  it('a drop in the middle of a reply does not send the answered question again (no second answer)', async () => {
    h = await startHarness({ bargeInRms: null });
    const first = await h.fake.connection(0);
    for (let i = 0; i < 10; i++) h.session.sendAudio(new Int16Array(320).fill(3000));
    h.session.endAudioInput();
    await first.waitFor(() => first.audioStreamEnds === 1, 5000, 'the utterance');
    void first.reply({ toneMs: 2000, chunkMs: 40, paceMs: 40 });
    await waitUntil(() => h!.rec.audio.length >= 3, 'the reply under way');
    first.drop();
    const second = await h.fake.connection(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(second.audio).toHaveLength(0);
    expect(second.audioStreamEnds).toBe(0);
  });

  it('a drop in the middle of the reply to a /say text does not write the text again (it would be said twice)', async () => {
    h = await startHarness({ bargeInRms: null, autoReply: false });
    const first = await h.fake.connection(0);
    const settled: string[] = [];
    h.session.sendText('Say the following to the user now: the build is green.', {
      onSettled: (o) => settled.push(o.delivered ? 'delivered' : o.reason),
    });
    await first.waitFor(() => clientTexts(first).includes('the build is green'), 5000, 'the text at the model');
    void first.reply({ toneMs: 2000, chunkMs: 40, paceMs: 40, transcript: 'The build is green.' });
    await waitUntil(() => h!.rec.audio.length >= 3, 'the reply under way');
    // No handle came after the text (it comes with turnComplete): the socket drops mid-reply.
    first.drop();
    const second = await h.fake.connection(1);
    await new Promise((r) => setTimeout(r, 500));
    expect(clientTexts(second)).not.toContain('the build is green');
    expect(settled).toEqual(['delivered']);
  });

  it('a text written on a socket that drops before the model answered it is written again on the next (never lost)', async () => {
    h = await startHarness({ bargeInRms: null, autoReply: false });
    const first = await h.fake.connection(0);
    h.session.sendText('Say the following to the user now: tea is ready.');
    await first.waitFor(() => clientTexts(first).includes('tea is ready'), 5000, 'the text at the model');
    first.drop();
    const second = await h.fake.connection(1);
    await second.waitFor(() => clientTexts(second).includes('tea is ready'), 5000, 'the text written again');
  });

  it('a reply that follows `interrupted` with no turnComplete between is not part of the interrupted turn: the turn ends before its audio', async () => {
    h = await startHarness({ bargeInRms: null });
    const c = await h.fake.connection(0);
    void c.reply({ toneMs: 2000, chunkMs: 40, paceMs: 40 });
    await waitUntil(() => h!.rec.audio.length >= 2, 'first reply under way');
    c.send({ serverContent: { interrupted: true } });
    await waitUntil(() => h!.rec.interrupted === 1, 'interrupted');
    const before = h.rec.order.length;
    await c.reply({ toneMs: 300, chunkMs: 40, paceMs: 10 });
    await waitUntil(() => h!.rec.turnCompletes >= 2, 'the next reply ends');
    const after = h.rec.order.slice(before);
    expect(after.indexOf('turnComplete')).toBeLessThan(after.indexOf('audio'));
  });

  it('the stall check does not fire after generationComplete while turnComplete waits for playback', async () => {
    h = await startHarness({}, { stallMs: 300 });
    const c = await h.fake.connection(0);
    void c.reply({ toneMs: 3000, chunkMs: 100, paceMs: 1 });
    await waitUntil(() => h!.rec.turnCompletes === 1, 'turnComplete', 15_000);
    expect(h.session.stats.stalls).toBe(0);
    expect(h.fake.established).toHaveLength(1);
  });

  it('the stall check does not fire while reply audio already received is still playing', async () => {
    h = await startHarness({}, { stallMs: 300 });
    const c = await h.fake.connection(0);
    await c.reply({ toneMs: 5000, chunkMs: 100, paceMs: 1, complete: false });
    await new Promise((r) => setTimeout(r, 900));
    await c.reply({ toneMs: 100, chunkMs: 100, paceMs: 1 });
    await waitUntil(() => h!.rec.turnCompletes === 1, 'turnComplete', 15_000);
    expect(h.session.stats.stalls).toBe(0);
    expect(h.fake.established).toHaveLength(1);
  });

  it('wrong-shaped model messages are dropped by the schema with one logged fault, the socket goes on', async () => {
    h = await startHarness();
    const c = await h.fake.connection(0);
    const before = faultCounts.malformed_model_messages;
    c.send({ serverContent: { modelTurn: { parts: [null] } } });
    c.send({ toolCall: { functionCalls: 5 } });
    await waitUntil(() => h!.session.stats.wrongShapeMessages === 2, 'both dropped');
    expect(faultCounts.malformed_model_messages - before).toBe(2);
    expect(h.logLines.filter((l) => l.includes('wrong-shaped')).length).toBe(1);
    await c.reply({ toneMs: 200 });
    await waitUntil(() => h!.rec.turnCompletes === 1, 'the next reply');
    expect(h.fake.established).toHaveLength(1);
  });

  it('persona and tools change mid-call on 3.8 (contextUpdate); wake names go to customVocabulary', async () => {
    const tool = {
      name: 'lookup',
      description: 'look up',
      parameters: { type: 'object', properties: { q: { type: 'string' } } },
    };
    h = await startHarness({}, {}, { vocabulary: ['Ada', 'Bartholomew'] });
    const c = await h.fake.connection(0);
    expect(c.setup?.inputAudioTranscription).toEqual({ customVocabulary: ['Ada', 'Bartholomew'] });
    expect(h.session.updateContext({ systemInstruction: 'You are Bob now.', tools: [tool] })).toBe(true);
    await c.waitFor(() => c.contextUpdates.length === 1, 5000, 'the update');
    expect(JSON.stringify(c.contextUpdates[0])).toContain('You are Bob now.');
    expect(JSON.stringify(c.contextUpdates[0])).toContain('lookup');
    expect(c.isOpen).toBe(true);
  });

  it('on 3.1 the context update is not sent (the model refuses it) and applies from the next socket', async () => {
    h = await startHarness({}, { model: 'gemini-3.1-flash-live-preview' });
    const c = await h.fake.connection(0);
    expect(h.session.updateContext({ systemInstruction: 'You are Bob now.' })).toBe(false);
    c.drop();
    const next = await h.fake.connection(1);
    expect(instructionOf(next)).toBe('You are Bob now.');
  });

  it.each([
    ['refused before setupComplete', false],
    ['closed right after setupComplete', true],
  ])(
    'text handed over during an outage (1011, then two setups %s) is delivered after the reconnect',
    async (_what, afterSetup) => {
      h = await startHarness({}, { backoff: { initialMs: 100, maxMs: 400, maxAttempts: 8 } });
      const first = await h.fake.connection(0);
      let refusals = 0;
      const refuse = (c: FakeGeminiConnection): void => {
        if (refusals >= 2) return;
        refusals++;
        c.close(1011, 'Internal error occurred.');
      };
      if (afterSetup) h.fake.on('setup', refuse);
      else h.fake.on('connection', refuse);
      const settled: unknown[] = [];
      first.close(1011, 'Internal error occurred.');
      await new Promise((r) => setTimeout(r, 100));
      h.session.sendText('the pizza is here', { onSettled: (o) => settled.push(o) });
      await waitUntil(() => refusals === 2, 'two refused setups');
      await waitUntil(
        () => h!.fake.established.some((c) => c.isOpen && clientTexts(c).includes('the pizza is here')),
        'the text on a live socket',
        10_000,
      );
      expect(settled).toEqual([{ delivered: true }]);
    },
  );

  it('extended thinking: a turnComplete with interactionStatus IN_PROGRESS is not idle (no text goes in); IDLE is', async () => {
    h = await startHarness({}, { model: 'gemini-3.8-live-extended-thinking', replyWaitMs: 50 });
    const c = await h.fake.connection(0);
    const answered = c.toolCall([{ id: 'slow-1', name: 'lookup', args: {} }]);
    await waitUntil(() => h!.rec.toolCalls.length === 1, 'the tool call');
    c.turnComplete(); // IN_PROGRESS: the call is still unanswered
    await waitUntil(() => h!.rec.turnCompletes === 1, 'turnComplete');
    h.session.sendText('the pizza is here');
    await new Promise((r) => setTimeout(r, 400));
    expect(clientTexts(c)).not.toContain('the pizza is here');
    h.session.sendToolResult({ id: 'slow-1', name: 'lookup', response: { result: 'done' } });
    await answered;
    c.turnComplete(); // IDLE
    await c.waitFor(() => clientTexts(c).includes('the pizza is here'), 5000, 'the text once idle');
  });
});
