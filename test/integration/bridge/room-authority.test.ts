// Tool authority in a call with two allowed speakers, on the fakes: a tool call made while only the
// guest was talking is refused for an owner-only tool (cancelling a reminder) with an answer the
// model can speak, and the refusal is in the notes; the same call while the owner talks runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoomView } from '../../../main/core/api-types.ts';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { chirpStereo, waitFor } from './signals.ts';

let call: CoreOnFakes;
let model: FakeGeminiConnection;

beforeAll(async () => {
  call = await startCoreOnFakes({
    // The test drives each turn (no auto-reply); the fake must not cut anyone off either.
    gemini: { bargeInRms: null, autoReply: false },
    env: (d) => ({ DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS: `${d.owner.id},${d.user('guest').id}` }),
  });
  // Discord shows a member's server nickname first: that is the name the guest is told by.
  call.discord.user('guest').nick = 'Gus';
  call.discord.userJoinVoice(call.discord.user('guest').id);
  expect((await call.post('/join')).status).toBe(200);
  model = await call.gemini.connection(0);
}, 60_000);

afterAll(async () => {
  await call?.close();
});

/** While `userId` talks (the receive path reports them speaking), the model asks for a tool call. */
async function toolCallWhileTalking(userId: string, args: Record<string, unknown>) {
  const samplesBefore = model.inputSamples;
  const talking = call.discord.speak(userId, chirpStereo(2.5, 300, 2500, 48_000));
  await waitFor(() => model.inputSamples > samplesBefore + 16_000 * 0.4, 'the speaker to be heard by the model');
  const [response] = await model.toolCall([{ name: 'local_notify_schedule', args }]);
  await talking;
  // The model answers and ends its turn, so the next utterance starts a new turn.
  await model.reply({ toneMs: 100, transcript: 'Okay.' });
  return response!.response as { result?: { cancelled?: string }; error?: { code: string; message: string } };
}

describe('tool authority with a guest in the call', () => {
  it('refuses an owner-only tool to the guest and runs it for the owner', async () => {
    const scheduled = await call.post('/tools/local_notify_schedule', {
      text: 'stretch',
      delay_seconds: 3600,
      mode: 'dm',
    });
    expect(scheduled.status).toBe(200);
    const id = (scheduled.json as { scheduled: string }).scheduled;

    const guestTry = await toolCallWhileTalking(call.discord.user('guest').id, { cancel_id: id });
    expect(guestTry.error?.code).toBe('owner_only');
    // Something the model can say to the guest.
    expect(guestTry.error?.message).toBe(
      'Only the owner may ask for this; it was asked by Gus. Tell Gus that you cannot do it for them, and that the owner can ask.',
    );
    const listed = (await call.post('/tools/local_notify_schedule', { list: true })).json as {
      entries: { id: string }[];
    };
    expect(listed.entries.map((e) => e.id)).toContain(id);

    // Listing stays open to every allowed speaker.
    const guestList = await toolCallWhileTalking(call.discord.user('guest').id, { list: true });
    expect(guestList.error).toBeUndefined();

    const ownerTry = await toolCallWhileTalking(call.discord.owner.id, { cancel_id: id });
    expect(ownerTry.error).toBeUndefined();
    expect(ownerTry.result?.cancelled).toBe(id);

    const notes = (await call.get('/notes?limit=500')).json as {
      notes: { kind: string; text: string; speaker?: string }[];
    };
    const toolNotes = notes.notes.filter((n) => n.kind === 'tool_call').map((n) => n.text);
    expect(toolNotes.filter((t) => t === 'local_notify_schedule: refused (owner_only), asked by Gus')).toHaveLength(1);
    expect(toolNotes.filter((t) => t === 'local_notify_schedule: ok')).toHaveLength(2);
    // The refusal's note names the guest as people see them; the id stays in the machine field.
    const refusal = notes.notes.find((n) => n.text === 'local_notify_schedule: refused (owner_only), asked by Gus') as {
      speaker?: string;
      speaker_name?: string;
    };
    expect(refusal).toMatchObject({ speaker: call.discord.user('guest').id, speaker_name: 'Gus' });
  }, 60_000);

  it("a guest's request cut off by the owner's barge-in keeps the guest's rights: the next tool call is refused", async () => {
    const scheduled = await call.post('/tools/local_notify_schedule', {
      text: 'water the plants',
      delay_seconds: 3600,
      mode: 'dm',
    });
    const id = (scheduled.json as { scheduled: string }).scheduled;
    // The guest asks; the model starts answering; the owner talks over it (the model is cut off).
    let samplesBefore = model.inputSamples;
    await call.discord.speak(call.discord.user('guest').id, chirpStereo(1.5, 300, 2500, 48_000));
    await waitFor(() => model.inputSamples > samplesBefore + 16_000 * 0.4, 'the guest to be heard');
    const answering = model.reply({ toneMs: 3000, transcript: 'Let me see about that.' });
    await new Promise((r) => setTimeout(r, 300));
    samplesBefore = model.inputSamples;
    const ownerTalks = call.discord.speak(call.discord.owner.id, chirpStereo(1.5, 300, 2500, 48_000));
    await waitFor(() => model.inputSamples > samplesBefore + 16_000 * 0.4, 'the owner to be heard');
    model.interrupt();
    await answering;
    await ownerTalks;
    // The model now acts on the guest's request: the owner's voice in the cut-off turn lends it nothing.
    const [response] = await model.toolCall([{ name: 'local_notify_schedule', args: { cancel_id: id } }]);
    const result = response!.response as { error?: { code: string; message: string } };
    expect(result.error?.code).toBe('owner_only');
    expect(result.error?.message).toContain('Gus spoke in the same turn');
    await model.reply({ toneMs: 100, transcript: 'Okay.' });
    const listed = (await call.post('/tools/local_notify_schedule', { list: true })).json as {
      entries: { id: string }[];
    };
    expect(listed.entries.map((e) => e.id)).toContain(id);
  }, 60_000);

  it('GET /room shows who is in, who is speaking and who may do what', async () => {
    const { discord } = call;
    const stranger = discord.user('stranger');
    discord.userJoinVoice(stranger.id);
    const talking = discord.speak(discord.owner.id, chirpStereo(1.5, 300, 2500, 48_000));
    let room: RoomView | undefined;
    await waitFor(async () => {
      room = (await call.get('/room')).json as RoomView;
      return (
        room.people.some((p) => p.id === stranger.id && p.in_channel) &&
        room.people.some((p) => p.role === 'owner' && p.speaking)
      );
    }, 'the stranger in the room and the owner speaking');
    await talking;
    // recall searches past calls: the owner's alone by default (issue 54, docs/storage.md).
    expect(room!.owner_only).toEqual(['recall', 'local_notify_schedule (cancel)']);
    // Each voice the model hears has a patience by name (docs/room.md "Patience per speaker"; whether
    // the turns above taught the learner anything is patience-learning.test.ts's); a listener's ends no turn.
    expect(room!.people).toEqual([
      {
        id: discord.owner.id,
        name: 'owner',
        role: 'owner',
        in_channel: true,
        speaking: true,
        may: 'everything',
        patience: expect.objectContaining({ speaker_id: discord.owner.id, name: 'owner' }),
      },
      {
        id: discord.user('guest').id,
        name: 'Gus',
        role: 'speaker',
        in_channel: true,
        speaking: false,
        may: 'everything but recall, local_notify_schedule (cancel)',
        patience: expect.objectContaining({ speaker_id: discord.user('guest').id, name: 'Gus' }),
      },
      {
        id: stranger.id,
        name: 'stranger',
        role: 'listener',
        in_channel: true,
        speaking: false,
        may: 'nothing: the model does not hear them',
      },
    ]);
    discord.userLeaveVoice(stranger.id);
  }, 60_000);
});
