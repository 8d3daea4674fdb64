// The scripted room of `npm run bench:cost` (bench/cost.ts): who says what when, what the fake
// screener "hears" in each utterance, and how the words the model lost are counted.
//
// Three people in one call, so the wake-name gate is on (auto mode: two or more humans;
// main/core/bridge/wake-gate.ts): an utterance reaches the model only if it starts with the wake
// name (the screener's transcript says so) or starts within the follow-up window (default 8 s)
// after the bot spoke. The script has both kinds of talk a room has:
// - an exchange with the model: someone says "Assistant, …", the model answers, and the next person
//   follows up 200 ms after the model's voice stops (human turn gaps are ~200 ms median,
//   field-2026-11.md §4), inside the follow-up window, so it passes without the name;
// - people talking to each other (no wake name), starting after the follow-up window: screened,
//   dropped, never sent to the model — they must not wake it, keep it connected or be "lost".
import { phraseHz, PHRASES, transcribePhrase } from '../../main/fakes/shared/phrases.ts';

/** Pitches 0-5 "say" the wake name first; 6-11 are people talking to each other. */
const NAMED_PITCHES = 6;
export const WAKE_NAME = 'Assistant';

/** What the fake transcription session hears in a committed buffer (24 kHz mono): by its pitch. */
export function screenerTranscript(pcm24k: Int16Array): string {
  const k = transcribePhrase(pcm24k, 24_000);
  if (k < 0) return '';
  return k < NAMED_PITCHES ? `${WAKE_NAME}, what is on phrase ${k}?` : `So anyway, about phrase ${k}.`;
}

/** An utterance: a tone at phrase k's pitch, `seconds` long with 10 ms fades, 48 kHz stereo (what the fake Discord user sends). */
export function utteranceSignal(k: number, seconds: number): Int16Array {
  const frames = Math.round(seconds * 48_000);
  const out = new Int16Array(frames * 2);
  const fade = 480;
  const hz = phraseHz(k % PHRASES);
  for (let i = 0; i < frames; i++) {
    const env = Math.min(1, i / fade, (frames - 1 - i) / fade);
    const v = Math.round(9000 * env * Math.sin((2 * Math.PI * hz * i) / 48_000));
    out[2 * i] = v;
    out[2 * i + 1] = v;
  }
  return out;
}

export interface ExchangeTurn {
  /** Pitch: named (< 6) for the opening turn, a follow-up pitch after it. */
  k: number;
  speechS: number;
  /** The model's answer to this turn (s of audio). */
  replyS: number;
}

export type RoomEvent =
  | { atS: number; kind: 'exchange'; turns: ExchangeTurn[] }
  | { atS: number; kind: 'chat'; utterances: { k: number; speechS: number }[] }
  | { atS: number; kind: 'reminder' }
  | { atS: number; kind: 'say' };

export const SCRIPT_S = 1200;
/** Where the exchanges with the model start in the full script (s); 420-900 is the long silence. */
const EXCHANGES_AT_S = [30, 180, 330, 930, 1080];
const REMINDER_AT_S = 270;
const SAY_AT_S = 1030;
/** People's utterance lengths (s), cycled; replies (s), cycled. */
const SPEECH_S = [2.6, 1.8, 3.2, 2.2, 1.6, 2.8, 2.4];
const REPLY_S = [2.5, 3.5, 2.0, 3.0];
/** Full script: four turns per exchange with the model, six utterances per chat among people. */
const TURNS_PER_EXCHANGE = 4;
const CHAT_UTTERANCES = 6;

/**
 * The room's events, in order, for time compressed by `scale` (1 = the full 20 minutes): event
 * times scale; so do the turns per exchange and the chat's utterances (at least one each), so a
 * short run keeps the same shape. Utterance and reply lengths are real-time.
 */
export function roomScript(scale: number): RoomEvent[] {
  const turns = Math.max(1, Math.round(TURNS_PER_EXCHANGE * scale));
  const chats = Math.max(1, Math.round(CHAT_UTTERANCES * scale));
  let n = 0;
  const events: RoomEvent[] = [];
  EXCHANGES_AT_S.forEach((atS, e) => {
    const exchange: ExchangeTurn[] = [];
    for (let t = 0; t < turns; t++, n++) {
      // Opening turn: a named pitch; follow-ups: whichever pitch (they pass by the follow-up window, unscreened).
      exchange.push({
        k: t === 0 ? e % NAMED_PITCHES : NAMED_PITCHES + ((e + t) % NAMED_PITCHES),
        speechS: SPEECH_S[n % SPEECH_S.length]!,
        replyS: REPLY_S[n % REPLY_S.length]!,
      });
    }
    events.push({ atS, kind: 'exchange', turns: exchange });
    const chat = Array.from({ length: chats }, (_, c) => ({
      k: NAMED_PITCHES + ((e + c + 3) % NAMED_PITCHES),
      speechS: SPEECH_S[(n + c) % SPEECH_S.length]!,
    }));
    // The chat follows the exchange once the follow-up window has passed (the runner waits for it).
    events.push({ atS, kind: 'chat', utterances: chat });
  });
  events.push({ atS: REMINDER_AT_S, kind: 'reminder' }, { atS: SAY_AT_S, kind: 'say' });
  return events.map((e) => ({ ...e, atS: e.atS * scale })).sort((a, b) => a.atS - b.atS);
}

/** Ms of `pcm` (mono at `rate`) in 10 ms blocks loud enough to be speech of the script (the tones are ≈ 6400 RMS). */
export function loudMs(pcm: Int16Array, rate: number): number {
  const block = rate / 100;
  let loud = 0;
  for (let b = 0; (b + 1) * block <= pcm.length; b++) {
    let sum = 0;
    for (let i = b * block; i < (b + 1) * block; i++) sum += pcm[i]! * pcm[i]!;
    if (Math.sqrt(sum / block) > 1500) loud += 10;
  }
  return loud;
}

export const WORD_MS = 300;

/**
 * Words of one utterance the model did not receive: the utterance counts as words of 300 ms; what
 * arrived is the loud audio of every turn the model ended while that utterance was the latest one
 * meant for it (a turn the service split in two still adds up to the whole). Nothing arrived: all
 * its words. Rounded, so a few ms of fade at the edges are not a word.
 */
export function wordsLost(utteranceMs: number, turns: readonly { pcm: Int16Array; rate: number }[]): number {
  const received = turns.reduce((sum, t) => sum + loudMs(t.pcm, t.rate), 0);
  return Math.max(0, Math.round((utteranceMs - Math.min(utteranceMs, received)) / WORD_MS));
}
