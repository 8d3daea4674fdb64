// Usage and the daily cap on the fakes, through the real core: the fake Gemini sends usageMetadata
// per turn as the service does; /health shows the call's tokens by modality and its estimated cost
// (equal to what the fake reported, priced); past 80 % of the cap the call is warned once (note +
// a sentence handed to the model), at the cap it says so (note and a sentence) and parks the model
// while the call stays in Discord: speech and /say no longer wake it, a new /join after leaving is
// refused with 429, and the call's notes file holds its usage line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthReport } from '../../../main/core/api-types.ts';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { errorCode } from '../../helpers/http.ts';
import { chirpStereo, waitFor } from '../bridge/signals.ts';

let call: CoreOnFakes;
let model: FakeGeminiConnection;

beforeAll(async () => {
  call = await startCoreOnFakes({
    // Only output audio is priced, at $1 a token, so each 400 ms reply (10 tokens) costs $10.
    env: () => ({
      DISCORD_VOICE_LIVE_USAGE_PRICES: JSON.stringify({
        gemini: { input_text: 0, input_audio: 0, input_image: 0, output_text: 0, output_audio: 1_000_000 },
      }),
      DISCORD_VOICE_LIVE_DAILY_CAP_USD: '25',
    }),
  });
}, 60_000);
afterAll(async () => {
  await call?.close();
});

const health = async (): Promise<HealthReport> => (await call.get('/health')).json as HealthReport;

describe('usage and the daily cap on the fakes', () => {
  it("shows the call's tokens by modality and its cost, as the fake reported them", async () => {
    expect((await call.post('/join')).status).toBe(200);
    model = await call.gemini.connection(0);
    await model.reply({ toneMs: 400, transcript: 'One.' });
    await waitFor(async () => ((await health()).usage?.call?.total_tokens ?? 0) > 0, 'usage in /health');
    const sent = model.usageSent;
    expect(sent).toHaveLength(1);
    const usage = (await health()).usage!;
    expect(usage.call).toMatchObject({ provider: 'gemini', live: true, cost_usd: 10, unpriced: [] });
    expect(usage.call!.tokens.output.audio).toBe(10);
    expect(usage.call!.tokens.input.text).toBe(
      sent[0]!.promptTokensDetails.find((d) => d.modality === 'TEXT')!.tokenCount,
    );
    expect(usage.call!.total_tokens).toBe(sent[0]!.totalTokenCount);
    expect(usage.today).toMatchObject({ cost_usd: 10, cap_usd: 25, state: 'ok' });
  });

  it('past 80 % it warns once (note and a spoken sentence); at the cap it says so, parks the call, wakes it for nothing and refuses a new join', async () => {
    await model.reply({ toneMs: 400, transcript: 'Two.' });
    await waitFor(async () => (await health()).usage?.today.state === 'warned', 'the warning');
    const page = (await call.get('/notes?q=cost%20warning')).json as { notes: { text: string }[] };
    expect(page.notes.map((n) => n.text)).toEqual([
      expect.stringMatching(/^cost warning: today's estimate \$20\.00 is 80% of the \$25\.00 daily cap/),
    ]);
    await waitFor(
      () => JSON.stringify(model.received).includes('percent of your daily cap'),
      'the spoken warning reaching the model',
    );

    await model.reply({ toneMs: 400, transcript: 'Three.' });
    await waitFor(
      () => JSON.stringify(model.received).includes('reached your daily cap'),
      'the cap sentence reaching the model',
    );
    // The model speaks the cap sentence, as the service answers every text turn (a model silent
    // after it would be a stall: resumed on a second socket before the park). That reply is paid too.
    await model.reply({ toneMs: 400, transcript: 'I am going quiet until tomorrow.' });
    await waitFor(async () => (await health()).bridge.state === 'parked', 'the call parked at the cap', 20_000);
    const after = await health();
    expect(after.bridge.reason).toBe('daily cost cap reached');
    expect(after.connections.discord).toBe('connected'); // the call stays in Discord
    expect(after.usage).toMatchObject({
      call: { live: true, cost_usd: 40 },
      today: { cost_usd: 40, state: 'reached' },
    });
    const capNote = (await call.get('/notes?q=daily%20cost%20cap')).json as { notes: { text: string }[] };
    expect(capNote.notes.map((n) => n.text)).toContainEqual(
      expect.stringMatching(/the model is parked until tomorrow/),
    );
    // Nothing wakes it: speech, /say.
    await call.discord.speak(call.discord.owner.id, chirpStereo(0.6, 300, 3000, 48_000));
    const said = await call.post('/say', { text: 'are you there?' });
    expect([said.status, errorCode(said)]).toEqual([429, 'daily_cap_reached']);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(call.gemini.connections.length).toBe(1);
    expect((await health()).bridge.state).toBe('parked');

    expect((await call.get('/leave')).status).toBe(200);
    const refused = await call.post('/join');
    expect([refused.status, errorCode(refused)]).toEqual([429, 'daily_cap_reached']);
    expect(call.gemini.connections.length).toBe(1); // no new model session was opened

    // The call's own notes hold its usage line.
    const callId = (await health()).usage!.call!.call_id!;
    const own = (await call.get(`/notes?call=${callId}&limit=500`)).json as { notes: { text: string }[] };
    expect(own.notes.map((n) => n.text)).toContainEqual(
      expect.stringMatching(/^usage: \d[\d,]* tokens \(in: [^)]*; out: audio 40\)/),
    );
  });
});
