// Does a transcript start with a wake name? The screener's transcription of an utterance's first
// words is compared with the configured names ("Gemini, assistant"): case, punctuation and accents
// do not count, a short greeting before the name is allowed ("hey Gemini", "ok, assistant"), and a
// few forms a transcriber produces for a name it does not know are accepted: the name split into
// several words or run together ("Gem ini", "Hal Bot" for "halbot") and one or two letters off
// (Levenshtein distance 1 for names of 4–7 letters, 2 for 8 or more: "Jemini", "Gemeni").

/** Words people say before a name without it stopping being addressed to the bot. */
const LEAD_INS = new Set([
  'hey',
  'hi',
  'hello',
  'ok',
  'okay',
  'oh',
  'so',
  'um',
  'uh',
  'yo',
  'excuse',
  'me',
  'please',
  'and',
  'well',
]);
/** At most this many lead-in words are skipped ("ok so hey Gemini"). */
const MAX_LEAD_INS = 3;

/** Lower-case words without accents or punctuation ("Hé, Gemini!" → ["he", "gemini"]). */
export function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
}

/** Names from the setting: comma-separated, each normalised to its words; empty ones dropped. */
export function parseWakeNames(names: readonly string[]): string[][] {
  return names.map(words).filter((w) => w.length > 0);
}

function editDistanceAtMost(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const value = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      row.push(value);
      best = Math.min(best, value);
    }
    if (best > max) return false;
    prev = row;
  }
  return prev[b.length]! <= max;
}

function allowedEdits(name: string): number {
  return name.length >= 8 ? 2 : name.length >= 4 ? 1 : 0;
}

/** The name's letters match the heard letters closely enough. */
function sounds(heard: string, name: string): boolean {
  return heard === name || editDistanceAtMost(heard, name, allowedEdits(name));
}

/**
 * The wake name the transcript starts with (as configured, normalised), or null. The name must be
 * the first thing said after at most three lead-in words; a name heard later in the sentence does
 * not count ("tell Gemini…" said to someone else is not for the bot).
 */
export function startsWithWakeName(transcript: string, names: readonly (readonly string[])[]): string | null {
  const heard = words(transcript);
  for (let skip = 0; skip <= MAX_LEAD_INS && skip < heard.length; skip++) {
    for (const name of names) {
      const joined = name.join('');
      // The name's words one by one, or all of them run together in 1–3 heard words.
      const asWords = name.every((part, k) => heard[skip + k] !== undefined && sounds(heard[skip + k]!, part));
      let together = false;
      for (let span = 1; span <= 3 && !together && skip + span <= heard.length; span++)
        together = sounds(heard.slice(skip, skip + span).join(''), joined);
      if (asWords || together) return name.join(' ');
    }
    if (!LEAD_INS.has(heard[skip]!)) return null;
  }
  return null;
}
