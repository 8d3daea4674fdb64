// Provider-neutral wording around text the model should speak (/announce, /say, voice notifications).
// A message the model should answer (/ask) is sent as it is, with no wording around it.

const ANNOUNCE_WORDING = 'Say the following to the user now, in your own voice, without adding anything else: ';

/** Default wording that turns a relayed message into something the model says, not answers. */
export function defaultInjectedText(text: string): string {
  return `${ANNOUNCE_WORDING}${text}`;
}

/** What the model says to a message it answers: a fixed line, or one made from the message's words. */
export type AnswerTo = string | ((message: string) => string);

/**
 * What a model that follows the wording speaks for one injected text: the announcement itself, or
 * `answer` for a message it answers. The fakes reply with it, as the real models do (they never read
 * our instruction aloud); the transcript therefore shows what was said, not the wording.
 */
export function spokenReplyTo(injected: string, answer: AnswerTo): string {
  if (injected.startsWith(ANNOUNCE_WORDING)) return injected.slice(ANNOUNCE_WORDING.length);
  return typeof answer === 'string' ? answer : answer(injected);
}

/**
 * The same for a turn of several texts joined by newlines (how the OpenAI sessions send a batch):
 * each announcement once in order, each answer once (an answer made from a message may be '', none).
 */
export function spokenReplyToTurn(turn: string, answer: AnswerTo): string {
  const lines = turn.split('\n');
  const said = lines.map((line) => spokenReplyTo(line, answer));
  const announced = lines.map((line) => line.startsWith(ANNOUNCE_WORDING));
  return said
    .filter(
      (line, i) => line !== '' && (announced[i] || said.findIndex((other, j) => other === line && !announced[j]) === i),
    )
    .join(' ');
}
