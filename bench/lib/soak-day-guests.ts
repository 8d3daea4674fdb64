// The day soak's other speakers (issue #55 item 1; runSoak's `guests`, wired in bench/soak-day.ts).
// The guest and the visitor say their own pitch-coded phrases, above the owner's PHRASES (so the
// owner's transcription, which rejects codes ≥ PHRASES, never takes one of theirs for the owner's),
// and a turn of mixed audio is read window by window, so two speakers in one model turn (one
// overlapping the other's tail, or one starting in the other's pause before the service ends the
// turn) are both heard: a window where two tones sum has no steady pitch and counts for nobody.
import { crossingPitch, PHRASES, phraseHz } from '../../main/fakes/shared/phrases.ts';

export const GUEST_SPEAKERS = ['guest', 'visitor'] as const;
export type GuestSpeaker = (typeof GUEST_SPEAKERS)[number];
/** Phrase codes per guest: PHRASES.. for the guest, the next four for the visitor (1750–2625 Hz). */
export const GUEST_CODES: Record<GuestSpeaker, readonly number[]> = {
  guest: [PHRASES, PHRASES + 1, PHRASES + 2, PHRASES + 3],
  visitor: [PHRASES + 4, PHRASES + 5, PHRASES + 6, PHRASES + 7],
};
const ALL_CODES = PHRASES + 8;
const WINDOW_MS = 60;
/** Steady windows a phrase needs to count as said (a 1.2 s phrase has ~20; a mixed tail has none). */
const MIN_WINDOWS = 4;

export function speakerOfCode(k: number): 'owner' | GuestSpeaker | null {
  if (k >= 0 && k < PHRASES) return 'owner';
  return GUEST_SPEAKERS.find((s) => GUEST_CODES[s].includes(k)) ?? null;
}

/** The pitch code of one window if its pitch is steady and on a code; else -1. */
function windowCode(pcm: Int16Array, from: number, to: number, rate: number): number {
  const pitch = crossingPitch(pcm, from, to, rate, 0.05);
  // Two summed tones give crossings at uneven spacings: not one speaker's steady pitch.
  if (!pitch || pitch.steady < 0.9) return -1;
  const k = Math.round((pitch.hz - 250) / 125);
  return k >= 0 && k < ALL_CODES && Math.abs(pitch.hz - phraseHz(k)) < 30 ? k : -1;
}

/** Every phrase code said in a turn (mono at `rate`), in the order first heard. */
export function transcribePhrases(pcm: Int16Array, rate: number): number[] {
  const size = Math.round((rate * WINDOW_MS) / 1000);
  const windows = new Map<number, number>();
  for (let from = 0; from + size <= pcm.length; from += size) {
    const k = windowCode(pcm, from, from + size, rate);
    if (k >= 0) windows.set(k, (windows.get(k) ?? 0) + 1);
  }
  return [...windows].filter(([, n]) => n >= MIN_WINDOWS).map(([k]) => k);
}

export interface GuestTally {
  sent: number;
  heard: number;
  /** Phrases begun and cut short by the speaker leaving the channel: not in `sent`. */
  cutByLeaving: number;
}

/** A phrase a guest said: its code, when, and how many of its frames the bot could not open (a silent re-key). */
export interface GuestPhraseSaid {
  k: number;
  at: number;
  unopenableFrames?: number;
}

type GuestTurn = { ks: readonly number[]; at: number };

/**
 * Each guest phrase in the order said, with whether it was heard: by the first model turn at or
 * after it, and before the next phrase of the same code (a guest's codes come round again), whose
 * transcription holds its code and that no earlier phrase of that code took. Without the bound a
 * lost phrase took the turn of the next one of its code, minutes later, and the trace named that
 * one unheard (the 120-minute run of 86c1871: each "unheard" phrase had its turn 2 s after it).
 */
function matchGuestPhrases(
  said: readonly GuestPhraseSaid[],
  turns: readonly GuestTurn[],
): { phrase: GuestPhraseSaid; speaker: GuestSpeaker; heard: boolean }[] {
  const used = new Set<string>();
  const matched: { phrase: GuestPhraseSaid; speaker: GuestSpeaker; heard: boolean }[] = [];
  const inOrder = [...said].sort((a, b) => a.at - b.at);
  for (const [n, phrase] of inOrder.entries()) {
    const speaker = speakerOfCode(phrase.k);
    if (speaker === null || speaker === 'owner') continue;
    const until = inOrder.slice(n + 1).find((next) => next.k === phrase.k)?.at ?? Infinity;
    const t = turns.findIndex(
      (turn, i) =>
        turn.at >= phrase.at && turn.at < until && turn.ks.includes(phrase.k) && !used.has(`${i}:${phrase.k}`),
    );
    if (t >= 0) used.add(`${t}:${phrase.k}`);
    matched.push({ phrase, speaker, heard: t >= 0 });
  }
  return matched;
}

/** Per guest, phrases said and heard (matchGuestPhrases's rule), and those cut short by leaving. */
export function tallyGuestWords(
  said: readonly GuestPhraseSaid[],
  turns: readonly GuestTurn[],
  cutByLeaving: readonly GuestPhraseSaid[] = [],
): Record<GuestSpeaker, GuestTally> {
  const tally: Record<GuestSpeaker, GuestTally> = {
    guest: { sent: 0, heard: 0, cutByLeaving: 0 },
    visitor: { sent: 0, heard: 0, cutByLeaving: 0 },
  };
  for (const { speaker, heard } of matchGuestPhrases(said, turns)) {
    tally[speaker].sent++;
    if (heard) tally[speaker].heard++;
  }
  for (const phrase of cutByLeaving) {
    const speaker = speakerOfCode(phrase.k);
    if (speaker !== null && speaker !== 'owner') tally[speaker].cutByLeaving++;
  }
  return tally;
}

export interface UnheardGuestWord {
  speaker: GuestSpeaker;
  k: number;
  /** When it was said, seconds from `from`. */
  atS: number;
  /** Its frames sealed with a key the bot lacked (the silent re-key fault): speech no bridge can hear. */
  unopenableFrames: number;
  /** The model turns from 5 s before it to 15 s after: when (s from `from`) and the codes each held. */
  turnsAround: { atS: number; ks: number[] }[];
}

/** The guests' phrases no model turn heard (the tally's rule), with the turns around each, for tracing. */
export function unheardGuestWords(
  said: readonly GuestPhraseSaid[],
  turns: readonly GuestTurn[],
  from: number,
): UnheardGuestWord[] {
  const seconds = (t: number) => Math.round((t - from) / 100) / 10;
  return matchGuestPhrases(said, turns)
    .filter(({ heard }) => !heard)
    .map(({ phrase, speaker }) => ({
      speaker,
      k: phrase.k,
      atS: seconds(phrase.at),
      unopenableFrames: phrase.unopenableFrames ?? 0,
      turnsAround: turns
        .filter((turn) => turn.at >= phrase.at - 5000 && turn.at <= phrase.at + 15_000)
        .map((turn) => ({ atS: seconds(turn.at), ks: [...turn.ks] })),
    }));
}

/** The guests' phrases and the model's turns, seconds from `from`: what the tally is taken from, kept for re-reading. */
export function guestPhraseLog(
  said: readonly GuestPhraseSaid[],
  turns: readonly GuestTurn[],
  from: number,
): { said: { k: number; atS: number; unopenableFrames: number }[]; turns: { atS: number; ks: number[] }[] } {
  const seconds = (t: number) => Math.round((t - from) / 100) / 10;
  return {
    said: said.map((p) => ({ k: p.k, atS: seconds(p.at), unopenableFrames: p.unopenableFrames ?? 0 })),
    turns: turns.map((t) => ({ atS: seconds(t.at), ks: [...t.ks] })),
  };
}

/** What the guests said (for tallyGuestWords) and the soak's hook that makes them speak. */
export interface GuestVoices {
  said: GuestPhraseSaid[];
  /** Phrases whose speaker left the channel before the end (the membership schedule is not theirs): not counted as said. */
  cutByLeaving: GuestPhraseSaid[];
  turns: { ks: number[]; at: number }[];
  /** In the owner's pause: sometimes nobody, else the guest or the visitor (when in the channel) says a phrase. */
  between(): Promise<void>;
}

/**
 * `speak(name, k)` says code k as that guest (rejects when they are not in the channel); about one
 * pause in two gets a guest's phrase; one of those in three returns 300 ms before it ends, so the
 * owner's next phrase overlaps its tail.
 */
export function guestVoices(
  random: () => number,
  speak: (name: GuestSpeaker, k: number) => Promise<{ foreignE2eeFrames: number; leftMidway: boolean }>,
): GuestVoices {
  const voices: GuestVoices = {
    said: [],
    cutByLeaving: [],
    turns: [],
    between: async () => {
      if (random() < 0.5) return;
      const name = GUEST_SPEAKERS[random() < 0.6 ? 0 : 1]!;
      const codes = GUEST_CODES[name];
      const k = codes[voices.said.length % codes.length]!;
      const at = Date.now();
      const spoken = speak(name, k).then(
        (result) =>
          void (result.leftMidway ? voices.cutByLeaving : voices.said).push({
            k,
            at,
            unopenableFrames: result.foreignE2eeFrames,
          }),
        () => undefined, // not in the channel right now: nothing said
      );
      if (random() < 1 / 3) await new Promise((resolve) => setTimeout(resolve, 900));
      else await spoken.then(() => new Promise((resolve) => setTimeout(resolve, 1500 + random() * 1500)));
    },
  };
  return voices;
}
