// The demo's call on every provider's fake: the owner says a scripted sentence and the notes show
// those words (the fake model transcribed the audio it received), answered from them; an `ask` is
// answered about its own words and an announce is spoken word for word, so the two read apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NoteEvent } from '../../../main/core/api-types.ts';
import { LIVE_PROVIDERS } from '../../../main/core/config/index.ts';
import { startSimulatedCall, type SimulatedCall } from '../../../main/demo/simulated-call.ts';
import { answerAbout } from '../../../main/fakes/shared/model-answers.ts';

async function until(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(LIVE_PROVIDERS)('scripted speech and answers on %s', (provider) => {
  let call: SimulatedCall;
  const notes: NoteEvent[] = [];
  const said = (kind: NoteEvent['kind'], text: string) => notes.some((n) => n.kind === kind && n.text.trim() === text);

  beforeAll(async () => {
    call = await startSimulatedCall({ provider, nicknames: true });
    call.core.hub.subscribe((event) => {
      if (event.type === 'note') notes.push(event.data);
    });
    const joined = await fetch(`${call.core.sidecarUrl}/join`, { method: 'POST', headers: call.auth });
    expect(joined.status).toBe(200);
    await until(() => call.core.bridge.status().state === 'connected', 'the call to connect');
  }, 60_000);

  afterAll(async () => {
    await call?.close();
  });

  const post = (path: string, text: string) =>
    fetch(`${call.core.sidecarUrl}${path}`, {
      method: 'POST',
      headers: { ...call.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });

  it('transcribes what the owner said, under their name, and answers from those words', async () => {
    const sentence = 'We decided to ship the release on Friday.';
    await call.say('owner', sentence);
    await until(() => said('output_transcript', answerAbout(sentence)), 'the answer to the sentence');
    const input = notes.filter((n) => n.kind === 'input_transcript');
    expect(input.map((n) => n.text.trim()).join(' ')).toBe(sentence);
    expect(
      input.every((n) => n.speaker_name === 'Olga' && n.speaker === call.people.find((p) => p.key === 'owner')!.id),
    ).toBe(true);
    expect(answerAbout(sentence)).toBe('Noted as a decision: we decided to ship the release on Friday.');
  }, 60_000);

  it('answers an ask about its words and reads an announce word for word', async () => {
    expect((await post('/ask', 'Which train goes to Lyon?')).status).toBeLessThan(300);
    await until(() => said('output_transcript', answerAbout('Which train goes to Lyon?')), 'the answer to the ask');
    expect(answerAbout('Which train goes to Lyon?')).toContain('which train goes to Lyon?');
    expect((await post('/announce', 'The build is green')).status).toBeLessThan(300);
    await until(() => said('output_transcript', 'The build is green'), 'the announcement spoken');
    // The model said neither the wording around the announce nor a fixed line.
    const spoken = notes.filter((n) => n.kind === 'output_transcript').map((n) => n.text);
    expect(spoken.some((t) => /Say the following|I can hear you clearly/.test(t))).toBe(false);
  }, 60_000);
});
