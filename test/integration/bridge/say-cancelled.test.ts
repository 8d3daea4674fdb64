// A text the service's interruption cancels before a word of it is no spoken text (issue 53, "every
// word accounted for"): the owner begins to speak just as an announcement goes over, Gemini's
// `interrupted` stops the generation before its audio, and the model's next reply is its answer to
// the owner. Before the fix that answer was taken for the announcement's reply and GET /say/{id}
// said "spoken" with the answer's words; the announcement was never heard. Now the record waits,
// the text goes over again at the next pause, and it is spoken with its own words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SayOutcome } from '../../../main/core/api-types.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { waitFor } from './signals.ts';

let call: CoreOnFakes;
const TEXT = 'the pelican budget review moved to Monday';
const ANSWER_TO_OWNER = 'Hello from the fake model, loud and clear.';

beforeAll(async () => {
  // The model answers nothing by itself: the test plays the service's part step by step.
  call = await startCoreOnFakes({ gemini: { bargeInRms: null } });
}, 60_000);
afterAll(async () => call?.close());

const outcome = async (id: string) => (await call.get(`/say/${id}`)).json as SayOutcome;

describe('an announcement cancelled by the service before a word', () => {
  it('is not reported spoken with another reply’s words; it goes over again and is spoken whole', async () => {
    expect((await call.post('/join')).status).toBe(200);
    const model = await call.gemini.connection(0);
    const handed = () => model.clientContents.filter((c) => JSON.stringify(c).includes(TEXT)).length;
    const { id } = (await call.post('/say', { text: TEXT })).json as { id: string };
    await waitFor(() => handed() === 1, 'the announcement handed to the model');

    // The owner spoke as it went over: the service stops the generation before any audio.
    model.interrupt();
    // ... and answers the owner.
    await model.reply({ transcript: ANSWER_TO_OWNER, toneMs: 300 });
    await waitFor(() => handed() === 2, 'the announcement handed over again after the answer', 20_000);
    expect(await outcome(id)).toMatchObject({ outcome: 'waiting' });

    await model.reply({ transcript: TEXT, toneMs: 300 });
    await waitFor(async () => (await outcome(id)).outcome !== 'waiting', 'the announcement settled');
    expect(await outcome(id)).toMatchObject({ outcome: 'spoken', spoken_text: TEXT });
  });
});
