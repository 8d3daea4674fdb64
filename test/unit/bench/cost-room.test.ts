// bench:cost's room (bench/lib/cost-room.ts): what the fake screener hears, and how the words an
// utterance lost at the model are counted. The old count paired the i-th turn the model ended with
// the i-th utterance: one utterance the service ended as two turns (or one turn missing) then showed
// as lost words although every sample arrived. These cases fail on that pairing.
import { describe, expect, it } from 'vitest';
import { roomScript, screenerTranscript, utteranceSignal, WAKE_NAME, wordsLost } from '../../../bench/lib/cost-room.ts';

/** The utterance as the model receives it: mono 16 kHz (left channel of 48 kHz stereo, decimated by 3). */
function at16k(stereo48k: Int16Array): Int16Array {
  const out = new Int16Array(Math.floor(stereo48k.length / 6));
  for (let i = 0; i < out.length; i++) out[i] = stereo48k[6 * i]!;
  return out;
}

function at24k(stereo48k: Int16Array): Int16Array {
  const out = new Int16Array(Math.floor(stereo48k.length / 4));
  for (let i = 0; i < out.length; i++) out[i] = stereo48k[4 * i]!;
  return out;
}

const turn = (pcm: Int16Array) => ({ pcm, rate: 16_000 });

describe('bench:cost words lost', () => {
  const whole = at16k(utteranceSignal(2, 2.4));

  it('an utterance that arrived whole loses nothing, even with silence (hangover) around it', () => {
    const padded = new Int16Array(whole.length + 8000);
    padded.set(whole, 4000);
    expect(wordsLost(2400, [turn(padded)])).toBe(0);
  });

  it('an utterance the service ended as two turns still arrived whole: 0 lost', () => {
    const cut = Math.floor(whole.length / 2);
    expect(wordsLost(2400, [turn(whole.subarray(0, cut)), turn(whole.subarray(cut))])).toBe(0);
  });

  it('the first 600 ms missing is two 300 ms words lost', () => {
    expect(wordsLost(2400, [turn(whole.subarray(600 * 16))])).toBe(2);
  });

  it('nothing arrived: every word lost', () => {
    expect(wordsLost(2400, [])).toBe(8);
  });
});

describe('bench:cost room', () => {
  it('the screener hears the wake name in an opening turn and not in people talking to each other', () => {
    const script = roomScript(1);
    const exchange = script.find((e) => e.kind === 'exchange')!;
    const chat = script.find((e) => e.kind === 'chat')!;
    if (exchange.kind !== 'exchange' || chat.kind !== 'chat') throw new Error('script shape');
    expect(screenerTranscript(at24k(utteranceSignal(exchange.turns[0]!.k, 1.5))).startsWith(`${WAKE_NAME},`)).toBe(
      true,
    );
    for (const u of chat.utterances)
      expect(screenerTranscript(at24k(utteranceSignal(u.k, 1.5)))).not.toContain(WAKE_NAME);
  });

  it('the full script: five exchanges of four turns, five chats, a reminder, a /say, about two minutes of people speech, nothing in 420-900 s', () => {
    const script = roomScript(1);
    const exchanges = script.filter((e) => e.kind === 'exchange');
    const chats = script.filter((e) => e.kind === 'chat');
    expect(exchanges.map((e) => (e.kind === 'exchange' ? e.turns.length : 0))).toEqual([4, 4, 4, 4, 4]);
    expect(chats).toHaveLength(5);
    expect(script.filter((e) => e.kind === 'reminder' || e.kind === 'say')).toHaveLength(2);
    const speech = script.reduce(
      (s, e) =>
        s +
        (e.kind === 'exchange'
          ? e.turns.reduce((n, t) => n + t.speechS, 0)
          : e.kind === 'chat'
            ? e.utterances.reduce((n, u) => n + u.speechS, 0)
            : 0),
      0,
    );
    expect(speech).toBeGreaterThan(100);
    expect(speech).toBeLessThan(140);
    expect(script.filter((e) => e.atS > 420 && e.atS < 900)).toEqual([]);
  });
});
