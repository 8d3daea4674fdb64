// The provider against the strict fake's failure modes: silent drops, stalls, tool calls across a
// rotation or a drop, a barge-in whose turnComplete never comes, malformed frames, sockets that
// die right after setup. Each test fails on the defect it names (lost audio, a muted next reply,
// a tool run twice, a crashed process, a reconnect storm).
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../main/core/contracts/clock.ts';
import { faultCounts } from '../../../main/core/faults.ts';
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

const lookupTool = [
  {
    name: 'lookup',
    description: 'look something up',
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
  },
];

describe('gemini live recovery against the strict fake', () => {
  it.each([
    ['a 1006 drop (no close frame)', (c: { drop(): void }) => c.drop()],
    [
      'a 1011 close without warning',
      (c: { close(code: number, reason: string): void }) => c.close(1011, 'Internal error occurred.'),
    ],
  ])(
    'after %s it resumes, and audio spoken while no socket was ready arrives after the resume, in order, once',
    async (_what, kill) => {
      h = await startHarness();
      const first = await h.fake.connection(0);
      const audio = startPump(h);
      await first.waitFor(() => first.audio.length >= 5, 5000, 'audio on the first socket');
      let sentWhenLost = -1;
      h.session.once('state', () => (sentWhenLost = audio.sent()));
      kill(first as never);
      const second = await h.fake.connection(1);
      expect(second.resumedWithHandle).toBe(first.issuedHandles.at(-1));
      await second.waitFor(() => second.audio.length >= 10, 5000, 'audio on the resumed socket');
      pump!.stop();
      const total = audio.sent();
      await second.waitFor(() => second.audio.at(-1)?.pcm[0] === total - 1, 5000, 'the last chunk');
      expectAudioAcrossResume(first, second, total);
      // the resumed session heard everything from before the moment the client knew the socket was gone
      expect(second.audio[0]!.pcm[0]).toBeLessThanOrEqual(sentWhenLost);
      expect(h.session.stats.audioChunksHeld).toBeGreaterThan(0);
      expect(h.session.stats.audioChunksDropped).toBe(0);
      expect(h.rec.states.map((s) => s.state)).toEqual(['reconnecting', 'connected']);
    },
  );

  it('detects a stall mid-reply (socket open, nothing sent), ends that turn and resumes; the next reply is heard', async () => {
    h = await startHarness({}, { stallMs: 300 });
    const first = await h.fake.connection(0);
    const rec = h.rec;
    void first.reply({ toneMs: 4000, chunkMs: 40, paceMs: 40, transcript: 'a sentence that never ends' });
    await waitUntil(() => rec.audio.length >= 3, 'reply under way');
    first.stall();
    const second = await h.fake.connection(1);
    expect(second.resumedWithHandle).not.toBeNull();
    await waitUntil(() => rec.turnCompletes === 1, 'the stalled turn ended explicitly');
    expect(h.session.stats.stalls).toBe(1);
    expect(first.closedBy).toBe('client');
    const before = rec.audioSamples;
    await second.reply({ toneMs: 200, transcript: 'back again' });
    await waitUntil(() => rec.turnCompletes === 2, 'the next reply');
    expect(rec.audioSamples - before).toBe(4800);
    expect(rec.states.map((s) => s.state)).toEqual(['reconnecting', 'connected']);
  });

  it('a model that goes silent after the user spoke is a stall too: the utterance is sent again whole on the resumed socket, once', async () => {
    h = await startHarness({}, { stallMs: 300 });
    const first = await h.fake.connection(0);
    first.stall(); // silent from here, socket open: the reply never comes
    for (let seq = 0; seq < 30; seq++) h.session.sendAudio(numberedChunk(seq));
    h.session.endAudioInput();
    await first.waitFor(() => first.audioStreamEnds === 1, 5000, 'the utterance on the stalled socket');
    const second = await h.fake.connection(1);
    await second.waitFor(() => second.audioStreamEnds === 1, 5000, 'the utterance again on the resumed socket');
    expect(second.audio.map((a) => a.pcm[0])).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(h.session.stats.stalls).toBe(1);
    // The resumed socket answers within the stall bound (the utterance it was sent again, with its
    // end, is awaited as the first one was): no second stall, no third socket.
    await second.reply({ toneMs: 100, transcript: 'answered', delayMs: 0 });
    await waitUntil(() => h!.rec.turnCompletes === 1, 'the answer');
    expect(h.fake.established).toHaveLength(2);
  });

  it('a model that goes silent after a text turn (/ask, a voice reminder) is a stall too: the text is written again on the resumed socket, once, and answered', async () => {
    h = await startHarness({}, { stallMs: 300 });
    const first = await h.fake.connection(0);
    const marker = 'the standup moved to three';
    const written = (c: typeof first) =>
      c.texts.filter((t) => t.includes(marker)).length +
      c.clientContents.filter((content) => JSON.stringify(content).includes(marker)).length;
    first.stall(); // silent from here, socket open, between turns: only the text owes a reply
    let settled: boolean | null = null;
    h.session.sendText(`Say: ${marker}.`, { onSettled: (o) => (settled = o.delivered) });
    await first.waitFor(() => written(first) === 1, 5000, 'the text on the stalled socket');
    // Before, nothing watched a text turn: the /ask of the 120-minute day soak on e03aac2 waited
    // 30 s on a stalled socket and was dropped ("no reply within 30 s").
    const second = await h.fake.connection(1);
    await second.waitFor(() => written(second) === 1, 5000, 'the text again on the resumed socket');
    expect(settled).toBe(true);
    expect(h.session.stats.stalls).toBe(1);
    // The resumed socket answers within the stall bound: no second stall, no third socket.
    await second.reply({ toneMs: 100, transcript: 'the standup moved', delayMs: 0 });
    await waitUntil(() => h!.rec.turnCompletes === 1, 'the answer to the text');
    expect(h.rec.audioSamples).toBe(2400);
    expect(written(second)).toBe(1);
    expect(h.fake.established).toHaveLength(2);
  });

  it('a model that never answers a text costs one resume, not a loop: the text written again is not watched again', async () => {
    h = await startHarness({}, { stallMs: 300 });
    const first = await h.fake.connection(0);
    first.stall();
    h.session.sendText('Say: nobody answers this.');
    const second = await h.fake.connection(1);
    second.stall();
    await second.waitFor(() => second.texts.length + second.clientContents.length >= 1, 5000, 'the text again');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // five stall bounds of silence
    expect(h.fake.established).toHaveLength(2);
    expect(h.session.stats.stalls).toBe(1);
  });

  it('does not count waiting for our own tool result as a stall', async () => {
    h = await startHarness({}, { stallMs: 200 }, { tools: lookupTool });
    const first = await h.fake.connection(0);
    const answered = first.toolCall([{ name: 'lookup', args: { q: 'slow' } }]);
    await waitUntil(() => h!.rec.toolCalls.length === 1, 'toolCall');
    await new Promise((r) => setTimeout(r, 600)); // the tool takes longer than stallMs
    h.session.sendToolResult({ id: h.rec.toolCalls[0]!.id, name: 'lookup', response: { result: 'done' } });
    expect((await answered)[0]!.response).toEqual({ result: 'done' });
    expect(h.session.stats.stalls).toBe(0);
    expect(h.fake.established).toHaveLength(1);
  });

  it('rotation during a tool call: answered on the socket that asked, then resumed from a handle issued after it', async () => {
    h = await startHarness({}, { switchMarginMs: 500 }, { tools: lookupTool });
    const first = await h.fake.connection(0);
    const answered = first.toolCall([{ name: 'lookup', args: { q: 'x' } }]);
    await waitUntil(() => h!.rec.toolCalls.length === 1, 'toolCall');
    const handleBeforeTool = first.issuedHandles.at(-1);
    first.goAway(5000);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.fake.established).toHaveLength(1); // no rotation while the call is in flight
    h.session.sendToolResult({ id: h.rec.toolCalls[0]!.id, name: 'lookup', response: { result: 'found' } });
    expect((await answered)[0]!.response).toEqual({ result: 'found' }); // on the asking socket, accepted (ids matched)
    const freshHandle = first.resumptionUpdate(); // the model finished with the tool
    const second = await h.fake.connection(1);
    expect(second.resumedWithHandle).toBe(freshHandle);
    expect(second.resumedWithHandle).not.toBe(handleBeforeTool);
    expect(first.closedBy).toBe('client');
    expect(h.rec.toolCalls).toHaveLength(1);
  });

  // Re-asks by the service need a handle that covers the call (pendingToolCallsOnResume 'reask');
  // a resume from a handle issued before the call is covered in tool-resume.test.ts.
  it('a socket that dies during a tool call: the call asked again after the resume gets the result, the tool runs once', async () => {
    h = await startHarness({ strict: { pendingToolCallsOnResume: 'reask' } }, {}, { tools: lookupTool });
    const first = await h.fake.connection(0);
    void first.toolCall([{ name: 'lookup', args: { q: 'y' } }]).catch(() => undefined);
    await waitUntil(() => h!.rec.toolCalls.length === 1, 'toolCall');
    first.resumptionUpdate(); // a handle that covers the pending call
    await new Promise((r) => setTimeout(r, 50));
    first.drop();
    const second = await h.fake.connection(1);
    await waitUntil(() => second.reaskedToolCalls !== null, 'the call asked again');
    // the tool (started once, from the first socket's call) finishes only now
    h.session.sendToolResult({ id: h.rec.toolCalls[0]!.id, name: 'lookup', response: { result: 'late' } });
    const responses = await second.reaskedToolCalls!;
    expect(responses[0]!.response).toEqual({ result: 'late' });
    expect(second.isOpen).toBe(true); // the id matched the re-asked call
    expect(h.rec.toolCalls).toHaveLength(1); // not run twice
    expect(h.session.stats.toolResultsReplayed).toBe(1);
  });

  it('a result that finished while no socket was up is kept and given to the re-asked call', async () => {
    h = await startHarness(
      { setupDelayMs: 400, strict: { pendingToolCallsOnResume: 'reask' } },
      {},
      { tools: lookupTool },
    );
    const first = await h.fake.connection(0);
    void first.toolCall([{ name: 'lookup', args: { q: 'z' } }]).catch(() => undefined);
    await waitUntil(() => h!.rec.toolCalls.length === 1, 'toolCall');
    first.resumptionUpdate(); // a handle that covers the pending call
    await new Promise((r) => setTimeout(r, 50));
    first.drop();
    await waitUntil(() => h!.session.state === 'reconnecting', 'reconnecting');
    h.session.sendToolResult({ id: h.rec.toolCalls[0]!.id, name: 'lookup', response: { result: 'kept' } });
    const second = await h.fake.connection(1);
    await waitUntil(() => second.reaskedToolCalls !== null, 'the call asked again');
    expect((await second.reaskedToolCalls!)[0]!.response).toEqual({ result: 'kept' });
    expect(h.rec.toolCalls).toHaveLength(1);
  });

  it('a barge-in whose turnComplete never comes ends with the socket: the turn is closed explicitly', async () => {
    h = await startHarness();
    const first = await h.fake.connection(0);
    const rec = h.rec;
    void first.reply({ toneMs: 3000, chunkMs: 40, paceMs: 40, transcript: 'cut me off' });
    await waitUntil(() => rec.audio.length >= 3, 'reply under way');
    // The reply stops there, as the service's does, and no turnComplete follows. (Sent raw, the
    // interrupted left the fake's reply running: a chunk after it is a new turn's output, which
    // ends the cut one, and the check below failed whenever one came first, under load.)
    first.interrupt({ turnComplete: false });
    await waitUntil(() => rec.interrupted === 1, 'interrupted');
    expect(rec.turnCompletes).toBe(0);
    first.close(1011, 'Internal error occurred.');
    await waitUntil(() => rec.turnCompletes === 1, 'turn ended with the socket');
    const second = await h.fake.connection(1);
    const before = rec.audioSamples;
    await second.reply({ toneMs: 200, transcript: 'heard' });
    await waitUntil(() => rec.turnCompletes === 2, 'next reply');
    // interrupted → turnComplete (from the socket's end) → the whole next reply
    expect(rec.order.slice(rec.order.indexOf('interrupted'), rec.order.indexOf('interrupted') + 3)).toEqual([
      'interrupted',
      'turnComplete',
      'audio',
    ]);
    expect(rec.audioSamples - before).toBe(4800);
  });

  it.each([
    ['text that is not JSON', '{"serverContent": {'],
    ['binary garbage', Buffer.from([0xff, 0xfe, 0x00, 0x81])],
    ['JSON that is not an object', '[1,2,3]'],
  ])(
    '%s from the service is dropped, counted, and the socket is resumed; the process lives on',
    async (_what, frame) => {
      h = await startHarness();
      const first = await h.fake.connection(0);
      const before = faultCounts.malformed_model_messages;
      first.sendRaw(frame);
      const second = await h.fake.connection(1);
      expect(second.resumedWithHandle).toBe(first.issuedHandles.at(-1));
      expect(h.session.stats.malformedMessages).toBe(1);
      expect(faultCounts.malformed_model_messages).toBe(before + 1);
      await second.reply({ toneMs: 100, transcript: 'fine' });
      await waitUntil(() => h!.rec.turnCompletes === 1, 'a reply after the bad frame');
      expect(h.logLines.filter((l) => l.includes('malformed message'))).toHaveLength(1);
    },
  );

  it('sockets that die right after setup are redialled with growing back-off, not in a loop', async () => {
    const clock = new ManualClock(0);
    h = await startHarness({}, { clock, backoff: { initialMs: 100, maxMs: 1000, maxAttempts: 50 } });
    const first = await h.fake.connection(0);
    clock.advance(60_000); // the first socket lived long: its loss is not a quick death
    h.fake.on('setup', (c) => c.close(1011, 'Internal error occurred.')); // from now on every socket dies at once
    first.close(1011, 'Internal error occurred.');
    await h.fake.connection(1); // redialled at once after a long-lived socket
    await waitUntil(() => h!.fake.established[1]!.closeCode !== null, 'second socket closed');
    const dials = (): number => h!.fake.upgradeAttempts;
    const afterQuickDeath = dials();
    await new Promise((r) => setTimeout(r, 400));
    expect(dials()).toBe(afterQuickDeath); // waiting 100 ms of (manual) back-off, not redialling
    clock.advance(100);
    await waitUntil(() => dials() === afterQuickDeath + 1 && h!.fake.established[2]?.closeCode != null, 'third socket');
    await new Promise((r) => setTimeout(r, 400));
    clock.advance(100); // the second quick death waits 200 ms
    await new Promise((r) => setTimeout(r, 400));
    expect(dials()).toBe(afterQuickDeath + 1);
    clock.advance(100);
    await waitUntil(() => dials() === afterQuickDeath + 2, 'fourth dial after 200 ms');
  });
});
