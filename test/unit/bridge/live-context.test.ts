// bridge/live-context.ts: what a call's model is told about persona, tools and names, and how a
// change reaches it — at once where the session takes it, else from its next session — with the
// note the call's notes get. A session without updateContext (OpenAI) stands in for "cannot".
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { LiveContext } from '../../../main/core/bridge/live-context.ts';
import { silentLogger } from '../../../main/core/log/logger.ts';
import type { LiveModelSession, ToolDeclaration } from '../../../main/core/ports.ts';

const tick = () => new Promise((r) => setImmediate(r));

function setup(takesUpdates: boolean) {
  const state = {
    persona: 'first',
    tools: [] as ToolDeclaration[],
    speakers: ['1'],
    names: new Map([
      ['1', 'Ada'],
      ['2', 'Zed'],
    ]),
  };
  const updates: unknown[] = [];
  const notes: string[] = [];
  const session = Object.assign(new EventEmitter(), {
    model: 'm',
    ...(takesUpdates ? { updateContext: (u: unknown) => (updates.push(u), true) } : {}),
  }) as unknown as LiveModelSession;
  let open: LiveModelSession | null = null;
  const context = new LiveContext({
    persona: { base: () => ({ systemInstruction: state.persona, tools: state.tools }) },
    link: {
      get session() {
        return open;
      },
    },
    wakeNames: ['Gemini', ' gemini '],
    speakerIds: () => state.speakers,
    displayName: (id) => state.names.get(id),
    note: (text) => notes.push(text),
    logger: silentLogger(),
  });
  return { state, updates, notes, context, openSession: () => (open = session) };
}

describe('LiveContext', () => {
  it('vocabulary: wake names then display names, once each (any case), unknown names left out', () => {
    const { state, context } = setup(true);
    state.speakers = ['1', '1', '3', '2'];
    expect(context.vocabulary()).toEqual(['Gemini', 'Ada', 'Zed']);
  });

  it('a persona change goes to a session that takes it, once however many changes came together; nothing when nothing changed', async () => {
    const { state, updates, notes, context, openSession } = setup(true);
    openSession();
    context.vocabulary();
    context.opened();
    context.changed();
    await tick();
    expect(updates).toEqual([]);
    state.persona = 'second';
    context.changed();
    context.changed();
    await tick();
    expect(updates).toEqual([{ systemInstruction: 'second' }]);
    expect(notes).toEqual(['persona updated mid-call (m)']);
  });

  it('a session that cannot take it: the note says it applies from the next session; names alone make no note', async () => {
    const { state, notes, context, openSession } = setup(false);
    openSession();
    context.vocabulary();
    context.opened();
    state.speakers = ['1', '2'];
    context.changed();
    await tick();
    expect(notes).toEqual([]);
    state.tools = [{ name: 't', description: 'd', parameters: {} }];
    context.changed();
    await tick();
    expect(notes).toEqual(['tools changed: m takes it from its next session']);
  });

  it('names the session was opened without (the room was not known yet) count as a change', async () => {
    const { state, updates, context, openSession } = setup(true);
    state.speakers = [];
    context.vocabulary(); // what the session is opened with: wake names only
    state.speakers = ['1'];
    openSession();
    context.opened();
    context.changed();
    await tick();
    expect(updates).toEqual([{ vocabulary: ['Gemini', 'Ada'] }]);
  });

  it('no session: nothing is sent', async () => {
    const { state, updates, context } = setup(true);
    state.persona = 'second';
    context.changed();
    await tick();
    expect(updates).toEqual([]);
  });
});
