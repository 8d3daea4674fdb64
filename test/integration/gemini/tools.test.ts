import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { attachToolDispatcher, type ToolCallSettled, type ToolDispatcher } from '../../../main/core/model/index.ts';
import { defineTool, ToolRegistry } from '../../../main/core/tools/registry.ts';
import { tone } from '../../../main/fakes/gemini/index.ts';
import { captureLogger, startHarness, waitUntil, type Harness } from './helpers.ts';

let h: Harness | null = null;
let dispatcher: ToolDispatcher | null = null;
afterEach(async () => {
  dispatcher?.detach();
  dispatcher = null;
  await h?.close();
  h = null;
});

function buildRegistry(state: { aborted: boolean; started: boolean }): ToolRegistry {
  return new ToolRegistry()
    .register(
      defineTool({
        name: 'add',
        description: 'Add two numbers',
        args: z.object({ a: z.number(), b: z.number() }),
        run: ({ a, b }) => a + b,
      }),
    )
    .register(
      defineTool({
        name: 'explode',
        description: 'Always fails',
        args: z.object({}),
        run: () => {
          throw new Error('boom');
        },
      }),
    )
    .register(
      defineTool({
        name: 'slow',
        description: 'Waits until cancelled',
        args: z.object({}),
        run: (_args, ctx) =>
          new Promise((_resolve, reject) => {
            state.started = true;
            ctx.signal?.addEventListener('abort', () => {
              state.aborted = true;
              reject(new Error('aborted'));
            });
          }),
      }),
    );
}

describe('gemini live: tool calls', () => {
  it('round-trips a call with its id; bad args, unknown tools and failures come back as errors and the session lives on', async () => {
    const state = { aborted: false, started: false };
    const registry = buildRegistry(state);
    h = await startHarness({}, {}, { tools: registry.declarations() });
    const settled: ToolCallSettled[] = [];
    dispatcher = attachToolDispatcher(h.session, registry, {
      logger: captureLogger().logger,
      onSettled: (s) => settled.push(s),
    });
    const conn = await h.fake.connection(0);

    const [ok] = await conn.toolCall([{ id: 'call-ok', name: 'add', args: { a: 2, b: 3 } }]);
    expect(ok).toEqual({ id: 'call-ok', name: 'add', response: { result: 5 } });

    const [bad, unknown, failed] = await conn.toolCall([
      { id: 'call-bad', name: 'add', args: { a: 'two', b: 3 } },
      { id: 'call-unknown', name: 'nope', args: {} },
      { id: 'call-fail', name: 'explode', args: {} },
    ]);
    expect(bad!.id).toBe('call-bad');
    expect(bad!.response).toMatchObject({ error: { code: 'invalid_args' } });
    expect(String((bad!.response!.error as { message: string }).message)).toMatch(/a/);
    expect(unknown!.response).toMatchObject({ error: { code: 'unknown_tool' } });
    expect(failed!.response).toEqual({ error: { code: 'tool_failed', message: 'boom' } });

    // still alive: audio flows and another call works
    expect(h.session.state).toBe('connected');
    await conn.reply({ pcm: tone(100) });
    await waitUntil(() => h!.rec.turnCompletes === 1, 'turn after tool errors');
    const [again] = await conn.toolCall([{ id: 'call-again', name: 'add', args: { a: 1, b: 1 } }]);
    expect(again!.response).toEqual({ result: 2 });
    expect(settled.map((s) => s.call.id)).toEqual(['call-ok', 'call-bad', 'call-unknown', 'call-fail', 'call-again']);
  });

  it('aborts a running call on toolCallCancellation and sends no result for it', async () => {
    const state = { aborted: false, started: false };
    const registry = buildRegistry(state);
    h = await startHarness({}, {}, { tools: registry.declarations() });
    const settled: ToolCallSettled[] = [];
    dispatcher = attachToolDispatcher(h.session, registry, {
      logger: captureLogger().logger,
      onSettled: (s) => settled.push(s),
    });
    const conn = await h.fake.connection(0);
    void conn.toolCall([{ id: 'call-slow', name: 'slow' }], 60_000).catch(() => undefined);
    await waitUntil(() => state.started, 'slow tool started');
    expect([...dispatcher.inFlight]).toEqual(['call-slow']);
    conn.cancelToolCalls(['call-slow']);
    await waitUntil(() => settled.length === 1, 'cancelled call settled');
    expect(state.aborted).toBe(true);
    expect(settled[0]).toMatchObject({ replied: false, outcome: { ok: false, error: { code: 'cancelled' } } });
    expect(h.rec.cancelled).toEqual([['call-slow']]);
    // a later call is answered, and nothing was ever sent for the cancelled id
    const [after] = await conn.toolCall([{ id: 'call-after', name: 'add', args: { a: 4, b: 4 } }]);
    expect(after!.response).toEqual({ result: 8 });
    expect(conn.toolResponses.map((r) => r.id)).toEqual(['call-after']);
  });
});
