// Provider-neutral wording around text the model should speak (/announce, /say, voice notifications).
// A message the model should answer (/ask) is sent as it is, with no wording around it.

const ANNOUNCE_WORDING = 'Say the following to the user now, in your own voice, without adding anything else: ';

/** Default wording that turns a relayed message into something the model says, not answers. */
export function defaultInjectedText(text: string): string {
  return `${ANNOUNCE_WORDING}${text}`;
}

/**
 * What a model that follows the wording speaks for one injected text: the announcement itself, or
 * `answer` for a message it answers. The fakes reply with it, as the real models do (they never read
 * our instruction aloud); the transcript therefore shows what was said, not the wording.
 */
export function spokenReplyTo(injected: string, answer: string): string {
  return injected.startsWith(ANNOUNCE_WORDING) ? injected.slice(ANNOUNCE_WORDING.length) : answer;
}

/** The same for a turn of several texts joined by newlines (how the OpenAI sessions send a batch). */
export function spokenReplyToTurn(turn: string, answer: string): string {
  const said = turn.split('\n').map((line) => spokenReplyTo(line, answer));
  return said.filter((line, i) => line !== answer || said.indexOf(answer) === i).join(' ');
}
