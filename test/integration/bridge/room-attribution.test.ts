// Three people in one call, on the fakes: each input transcript segment goes to whoever was talking
// when its words were said. The fake model "transcribes" what it hears: every 320 ms of received
// 16 kHz audio becomes one word per speaker whose tone (each speaker speaks their own frequency)
// is in it, so the transcription itself carries no speaker, as with the real service. The bridge
// can only attribute by the receive path's per-speaker activity and timing. The model is told who
// speaks as context that waits for more (clientContent, turnComplete false): never answered or read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { waitFor } from './signals.ts';
import { toneUtterance } from '../../helpers/tone-speech.ts';
import { amplitudeAt } from '../../../bench/lib/tone-analysis.ts';

const BLOCK = 5120; // 320 ms at 16 kHz
let call: CoreOnFakes;
let model: FakeGeminiConnection;
const people: { id: string; word: string; hz: number }[] = [];
/** Every fragment the fake sent, with the ids of the speakers whose words it holds (the truth). */
const fragments: { text: string; truth: string[] }[] = [];

/** The fake's transcriber: one word per speaker heard in each 320 ms of audio, sent at once. */
function transcribeAsHeard(connection: FakeGeminiConnection): void {
  let pending = new Int16Array(0);
  let seen = 0;
  const counters = new Map<string, number>();
  connection.on('message', () => {
    while (seen < connection.audio.length) {
      const pcm = connection.audio[seen++]!.pcm;
      const joined = new Int16Array(pending.length + pcm.length);
      joined.set(pending);
      joined.set(pcm, pending.length);
      pending = joined;
    }
    while (pending.length >= BLOCK) {
      const block = pending.subarray(0, BLOCK);
      const heard = people.filter((p) => amplitudeAt(block, p.hz, 16_000) > 1500);
      pending = pending.slice(BLOCK);
      if (heard.length === 0) continue;
      const text = heard
        .map((p) => `${p.word}${(counters.set(p.id, (counters.get(p.id) ?? 0) + 1), counters.get(p.id))} `)
        .join('');
      fragments.push({ text, truth: heard.map((p) => p.id) });
      connection.send({ serverContent: { inputTranscription: { text } } });
    }
  });
}

beforeAll(async () => {
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null, autoReply: false },
    env: (d) => ({
      DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS: [d.owner.id, d.user('guest').id, d.user('stranger').id].join(','),
    }),
  });
  const { discord } = call;
  people.push(
    { id: discord.owner.id, word: 'olga', hz: 440 },
    { id: discord.user('guest').id, word: 'gus', hz: 950 },
    { id: discord.user('stranger').id, word: 'stan', hz: 1700 },
  );
  // Names as Discord shows them: a server nickname first, else the global name.
  discord.owner.nick = 'Olga';
  discord.user('guest').nick = 'Gus';
  discord.user('stranger').globalName = 'Stanley';
  discord.userLeaveVoice(discord.owner.id);
  for (const id of [discord.owner.id, discord.user('guest').id, discord.user('stranger').id]) discord.userJoinVoice(id);
  expect((await call.post('/join')).status).toBe(200);
  model = await call.gemini.connection(0);
  transcribeAsHeard(model);
}, 60_000);

afterAll(async () => {
  await call?.close();
});

describe('who said what, three speakers', () => {
  it('attributes at least 95 % of transcript segments to the right speaker(s); overlaps are marked', async () => {
    const [olga, gus, stan] = people.map((p) => p.id) as [string, string, string];
    const hz = (id: string) => people.find((p) => p.id === id)!.hz;
    // Turns with pauses between them, then Gus and Olga talking over each other for a while.
    const script: { id: string; at: number; seconds: number }[] = [
      { id: olga, at: 0, seconds: 2.0 },
      { id: gus, at: 2800, seconds: 2.0 },
      { id: stan, at: 5600, seconds: 2.0 },
      { id: gus, at: 8400, seconds: 2.0 },
      { id: olga, at: 9200, seconds: 2.2 },
    ];
    await Promise.all(
      script.map(async (line) => {
        await new Promise((r) => setTimeout(r, line.at));
        await call.discord.speak(line.id, toneUtterance(line.seconds, hz(line.id)));
      }),
    );
    // The voice gate closes after the last words: wait until no more audio arrives at the model.
    let samples = -1;
    await waitFor(
      async () => {
        const quiet = model.audioStreamEnds > 0 && model.inputSamples === samples;
        samples = model.inputSamples;
        if (!quiet) await new Promise((r) => setTimeout(r, 400));
        return quiet;
      },
      'the audio to the model to stop',
      30_000,
    );
    await model.reply({ toneMs: 100, transcript: 'Noted.' });

    const notes = (await call.get('/notes?limit=500')).json as {
      notes: { kind: string; text: string; speaker?: string }[];
    };
    const inputs = notes.notes.filter((n) => n.kind === 'input_transcript');
    // Each fragment the model sent is in exactly one note; it is right when that note names exactly its speakers.
    let right = 0;
    for (const fragment of fragments) {
      const words = fragment.text.trim().split(' ');
      const holding = inputs.filter((n) => words.every((w) => n.text.split(' ').includes(w)));
      expect(holding).toHaveLength(1);
      const named = (holding[0]!.speaker ?? '').split(',').filter(Boolean).sort();
      if (JSON.stringify(named) === JSON.stringify([...fragment.truth].sort())) right++;
      else console.log(`misattributed: ${fragment.text.trim()} → ${holding[0]!.speaker ?? 'nobody'}`);
    }
    console.log(`attribution: ${right}/${fragments.length} transcript segments right`);
    expect(fragments.length).toBeGreaterThanOrEqual(20);
    expect(right / fragments.length).toBeGreaterThanOrEqual(0.95);
    // All three had notes of their own, and the talk-over was said to be overlapping.
    for (const id of [olga, gus, stan]) expect(inputs.some((n) => n.speaker === id)).toBe(true);
    expect(
      inputs.some(
        (n) =>
          n.text.startsWith('(overlapping) ') &&
          n.speaker?.split(',').sort().join(',') === [gus, olga].sort().join(','),
      ),
    ).toBe(true);
  }, 60_000);

  it('told the model who was speaking, by display name, as context it neither answers nor reads aloud', async () => {
    const notes = model.clientContents.filter((c) => JSON.stringify(c).includes('[Speaking now: '));
    const named = notes.map((c) => (c.turns as { parts: { text: string }[] }[])[0]!.parts[0]!.text);
    // In speaking order; a burst cut in two by a late packet on a loaded machine may name someone
    // again after the other talker, but never the same person twice in a row.
    expect(named.slice(0, 3)).toEqual(['[Speaking now: Olga]', '[Speaking now: Gus]', '[Speaking now: Stanley]']);
    expect(new Set(named.slice(3))).toEqual(new Set(['[Speaking now: Gus]', '[Speaking now: Olga]']));
    expect(named.every((line, i) => i === 0 || line !== named[i - 1])).toBe(true);
    // The setup explained those lines.
    expect(JSON.stringify(model.setup)).toContain('[Speaking now: NAME]');
    expect(notes.every((c) => c.turnComplete === false && (c.turns as { role: string }[])[0]!.role === 'user')).toBe(
      true,
    );
    // Nothing of it was spoken back: the only model output is the scripted reply.
    const spoken = model.sent.map((m) => JSON.stringify(m)).filter((m) => m.includes('outputTranscription'));
    expect(spoken.join('')).not.toContain('Speaking now');
    // A next turn names its speaker again.
    const before = model.clientContents.length;
    await call.discord.speak(olgaId(), toneUtterance(0.6, 440));
    await waitFor(() => model.clientContents.length > before, 'the next turn to be announced');
    expect(JSON.stringify(model.clientContents.slice(before))).toContain('[Speaking now: Olga]');
  }, 60_000);
});

function olgaId(): string {
  return people[0]!.id;
}
