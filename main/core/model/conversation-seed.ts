// When a conversation cannot be resumed (the service refused the handle after its session deadline,
// or we renew the session before that deadline), the next session starts with no memory of the call.
// So the model layer keeps the call's recent transcript, and a fresh session is seeded with it: the
// persona, what was said lately, and what the bridge says is still pending (reminders), all in the
// fresh session's system instruction. That works on every model (no mid-session message a model
// could refuse, nothing the model would answer aloud) and is what a client can send in one `setup`.
import type { ConversationLine, ConversationSeed } from '../ports.ts';

/** The recent lines of a call (bounded by characters; the oldest give way). */
export class RecentTranscript {
  readonly #maxChars: number;
  readonly #lines: ConversationLine[] = [];
  #chars = 0;
  /** This turn's lines: the user's words may still arrive after the model began answering. */
  #user: ConversationLine | null = null;
  #model: ConversationLine | null = null;

  constructor(maxChars = 4000) {
    this.#maxChars = maxChars;
  }

  /**
   * A transcript fragment; one turn's fragments of each speaker join one line (input transcription
   * may end after the model's first audio, protocols.md §1.5).
   */
  add(role: ConversationLine['role'], fragment: string): void {
    if (!fragment) return;
    const current = role === 'user' ? this.#user : this.#model;
    if (current && this.#lines.includes(current)) current.text += fragment;
    else {
      const line = { role, text: fragment };
      this.#lines.push(line);
      if (role === 'user') this.#user = line;
      else this.#model = line;
    }
    this.#chars += fragment.length;
    while (this.#chars > this.#maxChars && this.#lines.length > 1) this.#chars -= this.#lines.shift()!.text.length;
  }

  /** The model's turn ended: the next fragments start new lines. */
  turnEnded(): void {
    this.#user = null;
    this.#model = null;
  }

  /** A copy, whitespace tidied, empty lines left out. */
  lines(): ConversationLine[] {
    return this.#lines
      .map((line) => ({ role: line.role, text: line.text.replace(/\s+/g, ' ').trim() }))
      .filter((line) => line.text);
  }
}

/** The system instruction of a fresh session that continues a call: persona, then the call so far. */
export function seededInstruction(persona: string | undefined, seed: ConversationSeed): string | undefined {
  const parts: string[] = [];
  if (persona) parts.push(persona);
  if (seed.transcript.length > 0) {
    parts.push(
      'This call is already under way: the connection to you was renewed. Continue the conversation where it was; ' +
        'do not greet again or repeat yourself. The conversation so far (most recent last):\n' +
        seed.transcript.map((line) => `${line.role === 'user' ? 'User' : 'You'}: ${line.text}`).join('\n'),
    );
  }
  const pending = seed.pending?.trim();
  if (pending) parts.push(`Still pending in this call:\n${pending}`);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}
