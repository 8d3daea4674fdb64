// How the demo's fake model answers what it heard or was asked: from the words themselves, so a
// transcript reads like a conversation and an `ask` gets an answer about its question (an announce
// is not answered: the fakes read it word for word, core/model/injected-text.ts). A few topics get
// a fitting line; anything else is answered by naming what was said. No model, no randomness: the
// same words get the same answer, which tests can assert.

type Answer = (words: string) => string;

const TOPICS: readonly [RegExp, Answer][] = [
  [/\bjoke\b/i, () => "Here's a one-liner: I'd tell you a joke about UDP, but you might not get it."],
  [/\bhear (me|us)\b/i, () => 'Loud and clear. Everything in this call is simulated on your machine.'],
  [/\bweather\b/i, () => 'Dry and mild where the fakes live: about 18 degrees, no umbrella needed.'],
  [/\bremind me to (.+)/i, (words) => `Sure, I'll remind you to ${after(words, /\bremind me to /i)}.`],
  [
    /\b(we decided|let's go with)\b/i,
    (words) => `Noted as a decision: ${lowerFirst(stripEnd(/^[^.!?]*/.exec(words)![0]))}.`,
  ],
  [
    /\b(summary|summarise|summarize|recap)\b/i,
    () => 'So far: the release is on Friday, and there is a reminder to email the client.',
  ],
  [/\bwhat time\b/i, () => `It's ${new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })} here.`],
];

function stripEnd(text: string): string {
  return text.trim().replace(/[.!?]+$/, '');
}

function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

/** The words after `marker`, to the end of their sentence. */
function after(words: string, marker: RegExp): string {
  const found = marker.exec(words);
  const rest = found ? words.slice(found.index + found[0].length) : words;
  return stripEnd(/^[^.!?]*/.exec(rest)![0]);
}

/**
 * The fake model's answer to `heard` (a user turn's transcription or an `ask` message). Context
 * lines the bridge sends ("[Speaking now: Olga]") are nobody's words and get no answer ('').
 */
export function answerAbout(heard: string): string {
  const words = heard.trim();
  if (!words || /^\[[^\]]*\]$/.test(words)) return '';
  for (const [pattern, answer] of TOPICS) if (pattern.test(words)) return answer(words);
  const topic = lowerFirst(stripEnd(words));
  return words.endsWith('?')
    ? `You asked: ${topic}? Good question. I'm the demo's stand-in model, so I can only say I heard it.`
    : `Got it: ${topic}.`;
}
