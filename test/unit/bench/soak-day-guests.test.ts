import { describe, expect, it } from 'vitest';
import {
  GUEST_CODES,
  speakerOfCode,
  tallyGuestWords,
  transcribePhrases,
  unheardGuestWords,
} from '../../../bench/lib/soak-day-guests.ts';
import { phraseHz, transcribePhrase } from '../../../main/fakes/shared/phrases.ts';

const RATE = 16_000;
/** Tone of code k for `ms` at 16 kHz mono, starting `atMs` into a buffer of `totalMs`. */
function tone(k: number, atMs: number, ms: number, out: Int16Array): void {
  const from = Math.round((atMs * RATE) / 1000);
  const n = Math.round((ms * RATE) / 1000);
  for (let i = 0; i < n && from + i < out.length; i++)
    out[from + i] = Math.max(
      -32768,
      Math.min(32767, out[from + i]! + Math.round(6000 * Math.sin((2 * Math.PI * phraseHz(k) * i) / RATE))),
    );
}

describe('the soak guests\u2019 phrases', () => {
  it('codes: the owner\u2019s below PHRASES, the guests\u2019 apart, and the owner\u2019s reader rejects a guest\u2019s', () => {
    expect(speakerOfCode(3)).toBe('owner');
    expect(speakerOfCode(GUEST_CODES.guest[0]!)).toBe('guest');
    expect(speakerOfCode(GUEST_CODES.visitor[3]!)).toBe('visitor');
    const pcm = new Int16Array(RATE * 2);
    tone(GUEST_CODES.visitor[3]!, 0, 1200, pcm);
    expect(transcribePhrase(pcm, RATE)).toBe(-1);
  });

  it('hears both speakers of one turn when one overlaps the tail of the other', () => {
    const pcm = new Int16Array(RATE * 3);
    tone(GUEST_CODES.guest[1]!, 0, 1200, pcm);
    tone(5, 900, 1200, pcm); // the owner starts 300 ms before the guest ends
    expect(transcribePhrases(pcm, RATE).sort((a, b) => a - b)).toEqual([5, GUEST_CODES.guest[1]!]);
  });

  it('hears a phrase said alone, and nothing in silence', () => {
    const pcm = new Int16Array(RATE * 2);
    expect(transcribePhrases(pcm, RATE)).toEqual([]);
    tone(GUEST_CODES.visitor[0]!, 200, 1200, pcm);
    expect(transcribePhrases(pcm, RATE)).toEqual([GUEST_CODES.visitor[0]]);
  });

  it('tallies per guest: a turn heard once per phrase said, owner phrases ignored', () => {
    const g = GUEST_CODES.guest[0]!;
    const v = GUEST_CODES.visitor[0]!;
    const tally = tallyGuestWords(
      [
        { k: g, at: 0 },
        { k: 2, at: 5 },
        { k: v, at: 10 },
        { k: g, at: 20 },
      ],
      [
        { ks: [g, 2], at: 8 },
        { ks: [v], at: 15 },
        { ks: [g], at: 3 }, // before the second guest phrase: not its hearing
      ],
    );
    expect(tally).toEqual({
      guest: { sent: 2, heard: 1, cutByLeaving: 0 },
      visitor: { sent: 1, heard: 1, cutByLeaving: 0 },
    });
  });

  it('a phrase no turn heard is the one listed, not the next of its code whose turn it would take', () => {
    const g = GUEST_CODES.guest[0]!;
    const said = [
      { k: g, at: 1000 }, // lost
      { k: g, at: 200_000 }, // its code again, heard 2 s later
    ];
    const turns = [{ ks: [g], at: 202_000 }];
    expect(unheardGuestWords(said, turns, 0).map((w) => w.atS)).toEqual([1]);
    expect(tallyGuestWords(said, turns).guest).toEqual({ sent: 2, heard: 1, cutByLeaving: 0 });
  });

  it('lists the phrases the tally counts unheard, with the model turns around each', () => {
    const g = GUEST_CODES.guest[0]!;
    const said = [
      { k: g, at: 1000 },
      { k: g, at: 21_000, unopenableFrames: 38 },
    ];
    const turns = [
      { ks: [g], at: 3000 },
      { ks: [2], at: 22_000 },
      { ks: [g], at: 40_000 }, // 19 s after: outside the window shown, still counts as heard
    ];
    expect(unheardGuestWords(said, turns, 0)).toEqual([]);
    const unheard = unheardGuestWords(said, turns.slice(0, 2), 0);
    expect(unheard).toEqual([
      { speaker: 'guest', k: g, atS: 21, unopenableFrames: 38, turnsAround: [{ atS: 22, ks: [2] }] },
    ]);
    expect(tallyGuestWords(said, turns.slice(0, 2)).guest).toEqual({ sent: 2, heard: 1, cutByLeaving: 0 });
  });

  it('a phrase cut short by its speaker leaving is counted apart, not as said and unheard', () => {
    const v = GUEST_CODES.visitor[0]!;
    const tally = tallyGuestWords(
      [{ k: v, at: 0 }],
      [{ ks: [v], at: 2000 }],
      [{ k: v, at: 5000, unopenableFrames: 0 }],
    );
    expect(tally.visitor).toEqual({ sent: 1, heard: 1, cutByLeaving: 1 });
  });
});
