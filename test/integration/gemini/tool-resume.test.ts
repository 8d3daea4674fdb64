// A socket dies while a tool call is in flight, and the session resumes. A handle restores the
// session as of that handle (field-notes.md "Rotation during a tool call"): resumed from a handle
// issued before the call, the service has heard neither the user's question nor the call. What the
// user must get either way: the model hears the question again (or the result as text), the tool
// runs once, and the spoken answer arrives — once.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { attachToolDispatcher, type ToolDispatcher } from '../../../main/core/model/index.ts';
import { defineTool, ToolRegistry } from '../../../main/core/tools/registry.ts';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { captureLogger, numberedChunk, startHarness, waitUntil, type Harness } from './helpers.ts';

let h: Harness | null = null;
let dispatcher: ToolDispatcher | null = null;
afterEach(async () => {
  dispatcher?.detach();
  dispatcher = null;
  await h?.close();
  h = null;
});

const QUESTION_CHUNKS = 20;
const ARGS = { city: 'Oslo' };
const REPLY = 'It is sunny in Oslo.';

/** A weather tool that counts its runs and answers after `delayMs`. */
function weatherTool(delayMs: number): { registry: ToolRegistry; runs: () => number } {
  let runs = 0;
  const registry = new ToolRegistry().register(
    defineTool({
      name: 'weather',
      description: 'Weather in a city',
      args: z.object({ city: z.string() }),
      run: async ({ city }) => {
        runs++;
        await new Promise((r) => setTimeout(r, delayMs));
        return `sunny in ${city}`;
      },
    }),
  );
  return { registry, runs: () => runs };
}

async function start(
  strict: { pendingToolCallsOnResume: 'reask' | 'forget' },
  toolDelayMs: number,
  model = 'gemini-3.8-live',
): Promise<{ first: FakeGeminiConnection; runs: () => number }> {
  const tool = weatherTool(toolDelayMs);
  h = await startHarness({ strict }, { model, reaskWaitMs: 300 }, { tools: tool.registry.declarations() });
  dispatcher = attachToolDispatcher(h.session, tool.registry, { logger: captureLogger().logger });
  const first = await h.fake.connection(0);
  // The user asks; the model answers with a tool call.
  for (let i = 0; i < QUESTION_CHUNKS; i++) h.session.sendAudio(numberedChunk(i));
  h.session.endAudioInput();
  await first.waitFor(() => first.audioStreamEnds === 1, 5000, 'the question');
  void first.toolCall([{ name: 'weather', args: ARGS }]).catch(() => undefined);
  await waitUntil(() => tool.runs() === 1, 'the tool started');
  return { first, runs: tool.runs };
}

const questionOn = (c: FakeGeminiConnection): number[] => c.audio.map((a) => a.pcm[0]!);
const everyChunk = Array.from({ length: QUESTION_CHUNKS }, (_, i) => i);
const injectedOn = (c: FakeGeminiConnection): string =>
  [...c.texts, ...c.clientContents.map((cc) => JSON.stringify(cc))].join('\n');
const repliesHeard = (): number => h!.rec.outputText.split(REPLY).length - 1;

describe('gemini live: a socket that dies during a tool call', () => {
  describe.each(['forget', 'reask'] as const)(
    'resumed from a handle issued before the call (pendingToolCallsOnResume %s)',
    (mode) => {
      it.each([
        ['still running at the drop', 400],
        ['answered on the dying socket, no handle after the answer', 0],
      ])(
        'tool %s: the model hears the question again, the repeated call gets the kept result, the tool runs once',
        async (_when, delayMs) => {
          const { first, runs } = await start({ pendingToolCallsOnResume: mode }, delayMs);
          if (delayMs === 0)
            await first.waitFor(() => first.toolResponses.length === 1, 5000, 'the answer on the first socket');
          first.drop();
          const second = await h!.fake.connection(1);
          expect(second.restoredFrom?.pendingToolCalls).toEqual([]); // the service never saw the call
          // The user's question, whole, on the resumed socket.
          await second.waitFor(() => second.audioStreamEnds === 1, 5000, 'the question asked again');
          expect(questionOn(second)).toEqual(everyChunk);
          // The model asks the same thing again: answered with the first run's result.
          const [response] = await second.toolCall([{ name: 'weather', args: ARGS }]);
          expect(response!.response).toEqual({ result: 'sunny in Oslo' });
          expect(runs()).toBe(1);
          expect(h!.rec.toolCalls).toHaveLength(1);
          await second.reply({ toneMs: 200, transcript: REPLY });
          await waitUntil(() => repliesHeard() === 1, 'the spoken answer');
          expect(h!.rec.audioSamples).toBeGreaterThan(0);
          await new Promise((r) => setTimeout(r, 500));
          expect(injectedOn(second)).toBe(''); // nothing repeated as text
          expect(second.isOpen).toBe(true);
          expect(runs()).toBe(1);
          expect(h!.session.stats.toolResultsReplayed).toBe(1);
        },
      );
    },
  );

  it.each([
    ['gemini-3.8-live', 'clientContent'],
    ['gemini-3.1-flash-live-preview', 'realtimeInput.text'],
  ])(
    '%s: a model that answers the repeated question without asking again gets the kept result as text (%s)',
    async (model) => {
      const { first, runs } = await start({ pendingToolCallsOnResume: 'forget' }, 400, model);
      first.drop();
      const second = await h!.fake.connection(1);
      await second.waitFor(() => second.audioStreamEnds === 1, 5000, 'the question asked again');
      expect(questionOn(second)).toEqual(everyChunk);
      await second.reply({ toneMs: 100, transcript: 'Let me check.' }); // no tool call this time
      await second.waitFor(() => injectedOn(second).includes('sunny in Oslo'), 5000, 'the kept result as text');
      expect(model.includes('3.1') ? second.clientContents : second.texts).toHaveLength(0);
      await second.reply({ toneMs: 200, transcript: REPLY });
      await waitUntil(() => repliesHeard() === 1, 'the spoken answer');
      expect(runs()).toBe(1);
      expect(h!.rec.toolCalls).toHaveLength(1);
      expect(second.isOpen).toBe(true);
    },
  );

  it('a model that stays silent after the repeated question gets the kept result as text after reaskWaitMs', async () => {
    const { first, runs } = await start({ pendingToolCallsOnResume: 'forget' }, 400);
    first.drop();
    const second = await h!.fake.connection(1);
    await second.waitFor(() => second.audioStreamEnds === 1, 5000, 'the question asked again');
    await second.waitFor(() => injectedOn(second).includes('sunny in Oslo'), 3000, 'the kept result as text');
    await second.reply({ toneMs: 200, transcript: REPLY });
    await waitUntil(() => repliesHeard() === 1, 'the spoken answer');
    expect(runs()).toBe(1);
    expect(h!.session.stats.stalls).toBe(0);
  });

  it('reask, handle issued after the call: the service asks again, the question is not repeated, the answer comes once', async () => {
    const { first, runs } = await start({ pendingToolCallsOnResume: 'reask' }, 400);
    first.resumptionUpdate(); // this service covers the pending call with a handle
    await new Promise((r) => setTimeout(r, 50));
    first.drop();
    const second = await h!.fake.connection(1);
    await waitUntil(() => second.reaskedToolCalls !== null, 'the call asked again');
    const [response] = await second.reaskedToolCalls!;
    expect(response!.response).toEqual({ result: 'sunny in Oslo' });
    await second.reply({ toneMs: 200, transcript: REPLY });
    await waitUntil(() => repliesHeard() === 1, 'the spoken answer');
    await new Promise((r) => setTimeout(r, 600)); // longer than reaskWaitMs: no late duplicate
    expect(second.audioStreamEnds).toBe(0); // the session already has the question
    expect(injectedOn(second)).toBe('');
    expect(second.toolResponses).toHaveLength(1);
    expect(repliesHeard()).toBe(1);
    expect(runs()).toBe(1);
    expect(h!.rec.toolCalls).toHaveLength(1);
  });

  it('forget, handle issued after the call: the service drops the pending call, the result reaches the model as text', async () => {
    const { first, runs } = await start({ pendingToolCallsOnResume: 'forget' }, 400);
    first.resumptionUpdate(); // a handle that covers the question and the call, not the answer
    await new Promise((r) => setTimeout(r, 50));
    first.drop();
    const second = await h!.fake.connection(1);
    expect(second.restoredFrom?.pendingToolCalls).toEqual([{ name: 'weather', args: ARGS }]);
    await second.waitFor(() => injectedOn(second).includes('sunny in Oslo'), 5000, 'the kept result as text');
    await second.reply({ toneMs: 200, transcript: REPLY });
    await waitUntil(() => repliesHeard() === 1, 'the spoken answer');
    expect(second.audioStreamEnds).toBe(0); // the session already has the question
    expect(second.toolResponses).toHaveLength(0);
    expect(runs()).toBe(1);
    expect(h!.rec.toolCalls).toHaveLength(1);
  });
});

describe('gemini live: a tool call still in flight on a socket we closed', () => {
  it('runs once with its result kept for the resumed session, and opens no turn (no turnComplete for it when its socket closes)', async () => {
    const tool = weatherTool(0);
    // A long re-ask window: the kept result is not injected while the text below is checked.
    h = await startHarness({}, { reaskWaitMs: 60_000 }, { tools: tool.registry.declarations() });
    dispatcher = attachToolDispatcher(h.session, tool.registry, { logger: captureLogger().logger });
    const first = await h.fake.connection(0);
    // A malformed frame makes the session close this socket and resume at once; the call written
    // right behind it left before the service saw our close, so it arrives on a socket we closed.
    first.sendRaw('{"serverContent": {');
    void first.toolCall([{ name: 'weather', args: ARGS }]).catch(() => undefined);
    const second = await h.fake.connection(1);
    await waitUntil(() => tool.runs() === 1, 'the call to run');
    await first.waitFor(() => first.closeCode !== null, 5000, 'the closed socket to finish closing');
    await new Promise((r) => setTimeout(r, 100)); // the tool's result is back and kept
    // No model turn was open, and the late call did not open one: nothing ended, nothing held back.
    expect(h.rec.turnCompletes).toBe(0);
    h.session.sendText('Reminder: stand up.');
    await second.waitFor(() => injectedOn(second).includes('stand up'), 3000, 'the text on the resumed socket');
    expect(first.toolResponses).toHaveLength(0); // nothing was written to the closed socket
    // The model asks again on the resumed socket: answered with the kept result, not a second run.
    const [response] = await second.toolCall([{ name: 'weather', args: ARGS }]);
    expect(response!.response).toEqual({ result: 'sunny in Oslo' });
    expect(tool.runs()).toBe(1);
    expect(h.rec.toolCalls).toHaveLength(1);
  });
});
