// What the conversation said, kept client-side so it survives a dropped socket. Realtime has no
// session resumption (and GPT-Live resumes only within its own reconnect window), so after a new
// socket is opened the last items are replayed as conversation items / `input` history: the model
// keeps the thread (who said what, which tools ran) though not the audio itself.
// Bounded by item count and characters: a long call replays its recent part, never an ever-growing log.

export type HistoryItem =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string }
  | { kind: 'tool'; callId: string; name: string; arguments: string; output: string };

export interface HistoryLimits {
  maxItems: number;
  maxChars: number;
}

export const DEFAULT_HISTORY_LIMITS: HistoryLimits = { maxItems: 60, maxChars: 16_000 };

function sizeOf(item: HistoryItem): number {
  return item.kind === 'tool' ? item.name.length + item.arguments.length + item.output.length : item.text.length;
}

export class ConversationHistory {
  readonly #limits: HistoryLimits;
  #items: HistoryItem[] = [];
  #chars = 0;

  constructor(limits: HistoryLimits = DEFAULT_HISTORY_LIMITS) {
    this.#limits = limits;
  }

  get items(): readonly HistoryItem[] {
    return this.#items;
  }

  add(item: HistoryItem): void {
    if (item.kind !== 'tool' && !item.text.trim()) return;
    this.#items.push(item);
    this.#chars += sizeOf(item);
    while (
      this.#items.length > this.#limits.maxItems ||
      (this.#chars > this.#limits.maxChars && this.#items.length > 1)
    ) {
      this.#chars -= sizeOf(this.#items.shift()!);
    }
  }
}
