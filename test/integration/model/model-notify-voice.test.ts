// A voice notification the live model asks for itself (its own `local_notify` call, mode voice or
// auto, mid-turn) must not wait on that turn: the turn cannot end while the model waits for the
// tool. The tool answers at once with the text for the model to say now (`say_now`), and nothing
// goes out as a DM. Through a real call on the fakes (discord.js, @google/genai, the real core).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../../../main/fakes/discord/index.ts';
import type { FakeGemini } from '../../../main/fakes/gemini/index.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';

let call: CoreOnFakes;
let discord: FakeDiscord;
let gemini: FakeGemini;

beforeAll(async () => {
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null },
    env: () => ({ DISCORD_VOICE_LIVE_WAKE_NAMES: 'Gemini, Bartholomew' }),
  });
  ({ discord, gemini } = call);
}, 60_000);

afterAll(async () => {
  await call?.close();
});

describe('a voice notification the live model asks for', () => {
  it.each(['voice', 'auto'])(
    'mode %s mid-turn: answered before the turn ends, with the text to say now; no DM',
    async (mode) => {
      expect((await call.post('/join')).status).toBe(200);
      const model = await gemini.connection(gemini.established.length - 1);
      // The model is mid-turn: it has started speaking and has not ended its turn.
      await model.reply({ toneMs: 200, complete: false, transcript: 'One moment, ' });
      const text = `Tea is ready (${mode}).`;
      // The fake waits at most 5 s for the answer (the old hand-off waited 20 s for a pause that could not come).
      const [response] = await model.toolCall([{ name: 'local_notify', args: { text, mode } }], 5000);
      const result = response!.response as {
        result: { status: string; channel: string; results: { voice: { status: string; say_now?: string } } };
      };
      expect(result.result).toMatchObject({ status: 'ok', channel: 'voice', results: { voice: { status: 'ok' } } });
      expect(result.result.results.voice.say_now).toContain(text);
      expect(discord.messages.filter((m) => m.content.includes(text))).toHaveLength(0);
      model.turnComplete();
      expect((await call.get('/stop')).status).toBe(200);
    },
  );
});

describe("wake names bias the live model's input transcription", () => {
  it("the call's setup carries them as customVocabulary", async () => {
    expect((await call.post('/join')).status).toBe(200);
    const model = await gemini.connection(gemini.established.length - 1);
    // The wake names first; the room's display names follow (bridge/live-context.ts).
    const vocabulary =
      (model.setup?.inputAudioTranscription as { customVocabulary?: string[] } | undefined)?.customVocabulary ?? [];
    expect(vocabulary.slice(0, 2)).toEqual(['Gemini', 'Bartholomew']);
    expect((await call.get('/stop')).status).toBe(200);
  });
});
