// The model knows who speaks, on the two OpenAI providers: a whole call on the fakes (real core,
// fake Discord, fake Realtime / GPT-Live) with three allowed speakers. Each turn's speaker is named
// as context that neither starts nor interrupts a reply and is never spoken: on Realtime a `system`
// message item with no `response.create`, on GPT-Live `session.thinking.append` (silent context;
// `session.commentary.append` would be speakable). Checked in what the fake service recorded.
import { afterEach, describe, expect, it } from 'vitest';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { waitFor } from './signals.ts';
import { toneUtterance } from '../../helpers/tone-speech.ts';

let call: CoreOnFakes | null = null;
afterEach(async () => {
  await call?.close();
  call = null;
});

async function threeSpeakerCall(
  provider: 'openai-realtime' | 'openai-live',
): Promise<{ c: CoreOnFakes; olga: string; gus: string }> {
  const c = await startCoreOnFakes({
    env: (d) => ({
      DISCORD_VOICE_LIVE_PROVIDER: provider,
      DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS: [d.owner.id, d.user('guest').id, d.user('stranger').id].join(','),
    }),
  });
  c.discord.owner.nick = 'Olga';
  c.discord.user('guest').nick = 'Gus';
  c.discord.userLeaveVoice(c.discord.owner.id);
  for (const id of [c.discord.owner.id, c.discord.user('guest').id, c.discord.user('stranger').id])
    c.discord.userJoinVoice(id);
  expect((await c.post('/join')).status).toBe(200);
  return { c, olga: c.discord.owner.id, gus: c.discord.user('guest').id };
}

describe('speaker names on the OpenAI providers', () => {
  it('openai-realtime: each speaker is named in a system item, and no response is asked for', async () => {
    const { c, olga, gus } = await threeSpeakerCall('openai-realtime');
    call = c;
    const model = await c.openai.connection(0);
    await c.discord.speak(olga, toneUtterance(0.6, 440));
    await new Promise((r) => setTimeout(r, 300));
    await c.discord.speak(gus, toneUtterance(0.6, 950));
    const named = () => model.items.filter((i) => i.source === 'client' && i.role === 'system').map((i) => i.text);
    await waitFor(() => named().includes('[Speaking now: Gus]'), 'Gus to be named to the model');
    expect(named().slice(0, 2)).toEqual(['[Speaking now: Olga]', '[Speaking now: Gus]']);
    // Named before that person's audio: the item precedes the user audio item the turn commits.
    await waitFor(
      () => model.items.some((i) => i.role === 'user' && i.source === 'server'),
      'server VAD to commit a user turn',
    );
    expect(model.items.findIndex((i) => i.text === '[Speaking now: Olga]')).toBeLessThan(
      model.items.findIndex((i) => i.role === 'user' && i.source === 'server'),
    );
    // Nothing asked the model to answer the note, and the service rejected nothing.
    expect(model.received.filter((e) => e.type === 'response.create')).toEqual([]);
    expect(model.errors).toEqual([]);
    expect(JSON.stringify(model.session.instructions)).toContain('[Speaking now: NAME]');
  }, 60_000);

  it('openai-live: each speaker is named as silent thinking context, never as speakable commentary', async () => {
    const { c, olga, gus } = await threeSpeakerCall('openai-live');
    call = c;
    const model = await c.openaiLive.connection(0);
    await c.discord.speak(olga, toneUtterance(0.6, 440));
    await new Promise((r) => setTimeout(r, 300));
    await c.discord.speak(gus, toneUtterance(0.6, 950));
    await waitFor(() => model.thinking.includes('[Speaking now: Gus]'), 'Gus to be named to the model');
    expect(model.thinking.slice(0, 2)).toEqual(['[Speaking now: Olga]', '[Speaking now: Gus]']);
    expect(model.commentary).toEqual([]);
    expect(model.responseCreates).toBe(0);
    expect(model.errors).toEqual([]);
    expect(String(model.session?.instructions)).toContain('[Speaking now: NAME]');
  }, 60_000);
});
