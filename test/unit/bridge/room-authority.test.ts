// Tool authority and who-was-heard: the registry refuses an owner-only form to a turn in which only
// a guest was heard or the guest was heard with the owner (least privilege: nobody knows who asked),
// and lets the owner alone, a voiceless turn and the sidecar through. A late fragment is nobody's alone.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SpeakerActivity } from '../../../main/core/bridge/room.ts';
import { defineTool, ToolRegistry } from '../../../main/core/tools/registry.ts';

function setup() {
  let now = 0;
  const activity = new SpeakerActivity(
    { ownerId: 'o', allowedSpeakers: ['o', 'g'], displayName: (id) => ({ o: 'Olga', g: 'Gus' })[id] },
    () => now,
  );
  const registry = new ToolRegistry().register(
    defineTool({
      name: 'reminders',
      description: 'list or cancel',
      args: z.object({ cancel_id: z.string().optional() }),
      authorityFor: (args) => (args.cancel_id ? 'owner' : 'speakers'),
      run: (args) => ({ done: args.cancel_id ?? 'listed' }),
    }),
  );
  return { activity, registry, at: (ms: number) => (now = ms) };
}

describe('tool authority', () => {
  it('refuses the owner-only form when only the guest was heard this turn, with a sentence naming them', async () => {
    const { activity, registry, at } = setup();
    at(0);
    activity.start('o');
    at(1000);
    activity.end('o');
    at(2000);
    activity.turnBoundary(); // the model answered the owner
    at(3000);
    activity.start('g');
    at(3500);
    const heard = activity.heardThisTurn();
    expect(heard).toEqual({ ids: ['g'], names: ['Gus'], owner: false, allowed: true });
    const refused = await registry.invoke('reminders', { cancel_id: 'x' }, { caller: 'model', heard });
    expect(refused).toEqual({
      ok: false,
      error: { code: 'owner_only', status: 403, message: expect.stringContaining('it was asked by Gus') },
    });
    expect(await registry.invoke('reminders', {}, { caller: 'model', heard })).toEqual({
      ok: true,
      result: { done: 'listed' },
    });
  });

  it('runs it when the owner alone was heard, when nobody was, and for the sidecar', async () => {
    const { activity, registry, at } = setup();
    at(0);
    activity.start('o');
    at(500);
    activity.end('o');
    expect(
      (await registry.invoke('reminders', { cancel_id: 'x' }, { caller: 'model', heard: activity.heardThisTurn() })).ok,
    ).toBe(true);
    at(1000);
    activity.turnBoundary();
    at(1500);
    expect(activity.heardThisTurn().ids).toEqual([]);
    expect(
      (await registry.invoke('reminders', { cancel_id: 'x' }, { caller: 'model', heard: activity.heardThisTurn() })).ok,
    ).toBe(true);
    expect((await registry.invoke('reminders', { cancel_id: 'x' }, { caller: 'sidecar' })).ok).toBe(true);
  });

  it("a guest heard in the owner's turn (over them, before or after) takes the owner's rights away", async () => {
    const { activity, registry, at } = setup();
    at(0);
    activity.start('g');
    activity.start('o');
    at(500);
    activity.end('o');
    activity.end('g');
    const mixed = activity.heardThisTurn();
    expect(mixed).toMatchObject({ names: ['Gus', 'Olga'], owner: false, allowed: true, notOwner: ['Gus'] });
    const refused = await registry.invoke('reminders', { cancel_id: 'x' }, { caller: 'model', heard: mixed });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'owner_only', status: 403, message: expect.stringContaining('Gus spoke in the same turn') },
    });
    // The guest asked, then the owner spoke up before the model's tool call arrived: still refused.
    at(5000);
    activity.turnBoundary();
    at(6000);
    activity.start('g');
    at(7000);
    activity.end('g');
    at(7600);
    activity.start('o');
    expect(
      (await registry.invoke('reminders', { cancel_id: 'x' }, { caller: 'model', heard: activity.heardThisTurn() })).ok,
    ).toBe(false);
    // Forms open to every allowed speaker still run.
    expect((await registry.invoke('reminders', {}, { caller: 'model', heard: activity.heardThisTurn() })).ok).toBe(
      true,
    );
  });

  it("a late transcript fragment is nobody's alone while another voice was heard within the lag window", () => {
    const { activity, at } = setup();
    at(0);
    activity.start('g');
    at(2000);
    activity.end('g');
    at(2400);
    activity.start('o');
    at(2600);
    // The guest's last words arrive now, while the owner talks: timing alone would say "Olga".
    const speakers = activity.speakersOfFragment();
    expect(activity.soleSpeaker(speakers)).toBeUndefined();
    expect(activity.soleSpeaker(['g'])).toBeUndefined();
    // Long after the guest stopped, the owner alone: hers.
    at(9000);
    expect(activity.soleSpeaker(activity.speakersOfFragment())).toBe('o');
  });

  it('refuses a voice that is not an allowed speaker for tools open to speakers', async () => {
    const { activity, registry } = setup();
    activity.start('stranger');
    const heard = activity.heardThisTurn();
    expect(heard.names).toEqual(['user stranger']);
    expect(await registry.invoke('reminders', {}, { caller: 'model', heard })).toMatchObject({
      ok: false,
      error: { code: 'not_allowed', status: 403 },
    });
  });
});
