// `recall` end to end on the fakes (issue 54): a first call where the owner says something worth
// remembering ends; the next call's model is seeded with its summary; the owner asks and the
// model's `recall` tool call is answered with the earlier call's line, cited by call, time and the
// owner's name; the guest asks the same and the model is told to refuse aloud, says so, and the
// room hears it. The model here is the fake, scripted by the test as a real model would act on
// what it is told.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoomView } from '../../../main/core/api-types.ts';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { chirpStereo, waitFor } from './signals.ts';

interface Note {
  id: string;
  kind: string;
  text: string;
  speaker?: string;
  speaker_name?: string;
  callId?: string;
}
interface RecallAnswer {
  result?: { hits: Array<{ call_id: string; at: string; speaker: string | null; snippet: string }>; text: string };
  error?: { code: string; message: string };
}

const DECISION = 'We decided to ship the kestrel installer on Thursday.';
let call: CoreOnFakes;
let firstCallId = '';

beforeAll(async () => {
  call = await startCoreOnFakes({
    // The test drives each turn; the fake must not cut anyone off.
    gemini: { bargeInRms: null, autoReply: false },
    env: (d) => ({ DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS: `${d.owner.id},${d.user('guest').id}` }),
  });
  call.discord.owner.nick = 'Olga';
  call.discord.user('guest').nick = 'Gus';
  call.discord.userJoinVoice(call.discord.user('guest').id);
}, 60_000);

afterAll(async () => {
  await call?.close();
});

async function notes(): Promise<Note[]> {
  return ((await call.get('/notes?limit=500')).json as { notes: Note[] }).notes;
}

/**
 * `userId` talks; once the model hears them and the core's room has them speaking (whom a tool call
 * of this turn is asked by), `whileHeard` runs (the model's side of the turn).
 */
async function whileTalking<T>(model: FakeGeminiConnection, userId: string, whileHeard: () => Promise<T>): Promise<T> {
  const before = model.inputSamples;
  const talking = call.discord.speak(userId, chirpStereo(2.5, 300, 2500, 48_000));
  await waitFor(() => model.inputSamples > before + 16_000 * 0.4, 'the speaker to be heard by the model');
  await waitFor(
    async () => ((await call.get('/room')).json as RoomView).people.some((p) => p.id === userId && p.speaking),
    'the room to have them speaking',
  );
  const out = await whileHeard();
  await talking;
  return out;
}

/** The model answers and ends its turn; its line in the notes says the core has seen the turn end. */
async function replyAndEndTurn(model: FakeGeminiConnection, transcript: string, toneMs = 100): Promise<void> {
  await model.reply({ toneMs, transcript });
  await waitFor(
    async () => (await notes()).some((n) => n.kind === 'output_transcript' && n.text.includes(transcript)),
    "the model's line in the notes",
  );
}

async function askRecall(model: FakeGeminiConnection, userId: string, query: string): Promise<RecallAnswer> {
  const [response] = await whileTalking(model, userId, () => model.toolCall([{ name: 'recall', args: { query } }]));
  return response!.response as RecallAnswer;
}

describe('recall by voice', () => {
  it('a first call: the owner states a decision, the call ends and its summary is stored', async () => {
    expect((await call.post('/join')).status).toBe(200);
    const model = await call.gemini.connection(0);
    await whileTalking(model, call.discord.owner.id, () =>
      model.reply({
        toneMs: 200,
        inputTranscript: DECISION,
        transcript: 'Agreed: the kestrel installer ships on Thursday.',
      }),
    );
    let said: Note | undefined;
    await waitFor(
      async () =>
        (said = (await notes()).find((n) => n.kind === 'input_transcript' && n.text === DECISION)) !== undefined,
      "the owner's line in the notes",
    );
    expect(said).toMatchObject({ speaker: call.discord.owner.id, speaker_name: 'Olga' });
    firstCallId = said!.callId!;
    expect((await call.get('/leave')).status).toBe(200);
    await waitFor(
      async () =>
        ((await call.get(`/calls/${encodeURIComponent(firstCallId)}/export?format=json`)).json as { summary?: unknown })
          .summary != null,
      "the first call's summary",
    );
  }, 60_000);

  it("the next call is seeded with it, and the owner's recall cites the earlier call and the owner by name", async () => {
    expect((await call.post('/join')).status).toBe(200);
    const model = await call.gemini.connection(1);
    expect(JSON.stringify(model.setup)).toContain('kestrel installer');

    const answer = await askRecall(model, call.discord.owner.id, 'kestrel installer');
    expect(answer.error).toBeUndefined();
    expect(answer.result!.hits[0]).toMatchObject({ call_id: firstCallId, speaker: 'Olga' });
    expect(answer.result!.hits.every((h) => h.call_id === firstCallId)).toBe(true);
    // The text the model reads out: time, call and the speaker's name, never a Discord id.
    expect(answer.result!.text).toMatch(
      new RegExp(
        `^\\[\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC, call ${firstCallId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\] Olga: .*kestrel`,
        'm',
      ),
    );
    expect(answer.result!.text).not.toContain(call.discord.owner.id);
    // The next utterance is a new request: the guest's recall is not the owner's turn.
    await replyAndEndTurn(model, 'Olga decided the kestrel installer ships on Thursday.');

    const toolNotes = (await notes()).filter((n) => n.kind === 'tool_call').map((n) => n.text);
    expect(toolNotes).toContain('recall: ok');
  }, 60_000);

  it('a guest asking is refused: nothing of the earlier call reaches the model, which tells the guest aloud', async () => {
    const model = await call.gemini.connection(1);
    const answer = await askRecall(model, call.discord.user('guest').id, 'kestrel installer');
    expect(answer.result).toBeUndefined();
    expect(answer.error?.code).toBe('owner_only');
    expect(answer.error?.message).toBe(
      'Only the owner may ask for this; it was asked by Gus. Tell Gus that you cannot do it for them, and that the owner can ask.',
    );
    expect(JSON.stringify(answer)).not.toContain('kestrel');

    // The model says what it was told to say; the room (the guest among it) hears the bot speak it.
    const heardBefore = call.discord.recorder.listener.framesSent;
    const refusal = 'Gus, I cannot do that for you; the owner can ask.';
    await replyAndEndTurn(model, refusal, 600);
    await waitFor(
      () => call.discord.recorder.listener.framesSent - heardBefore >= 20,
      'the refusal heard in the voice channel',
    );
    const toolNotes = (await notes()).filter((n) => n.kind === 'tool_call').map((n) => n.text);
    expect(toolNotes).toContain('recall: refused (owner_only), asked by Gus');
  }, 60_000);
});
