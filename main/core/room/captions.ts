// Captions and notes in the voice channel's chat (opt-in: DISCORD_VOICE_LIVE_CAPTIONS). One message
// per call carries the live captions (the newest lines that fit) and a rolling brief (decisions and
// reminders so far); it is edited as the notes come, never reposted, and at most once per
// EDIT_EVERY_MS: Discord limits message edits per channel (about 5 per 5 s, answered 429 beyond),
// so a busy call coalesces many lines into one edit and stays well under it. When the call ends the
// message gets its last edit and a summary is posted at once (well within 10 s) with the decisions
// and reminders, each citing its transcript turn ("turn 12": the 12th transcript line of the call,
// as /notes lists them).
import type { Logger } from 'pino';
import type { BridgeStateEvent, NoteEvent } from '../api-types.ts';
import type { EventHub } from '../event-hub.ts';
import type { SentMessage, VoiceTarget } from '../ports.ts';
import { splitMessage } from '../voice/text.ts';

export const EDIT_EVERY_MS = 1500;
const CAPTION_LINES = 12;
const MESSAGE_LIMIT = 2000;

const DECISION = /\b(decided|decision|agreed|we(?:'|’)ll go with|let(?:'|’)s go with|we will|final answer)\b/i;
const REMINDER = /\b(remind|reminder|don(?:'|’)t forget|follow up)\b/i;

export interface CaptionsOptions {
  hub: Pick<EventHub, 'subscribe'>;
  target: () => VoiceTarget | undefined;
  post: (channelId: string, text: string) => Promise<SentMessage>;
  edit: (channelId: string, messageId: string, text: string) => Promise<void>;
  logger: Logger;
  /** Tests shorten the edit interval. */
  editEveryMs?: number;
}

interface Point {
  kind: 'decision' | 'reminder';
  text: string;
  turn: number;
}

export class ChannelCaptions {
  readonly #o: CaptionsOptions;
  #unsubscribe: (() => void) | null = null;
  #channelId: string | null = null;
  #callId: string | undefined;
  #message: Promise<SentMessage | null> | null = null;
  #lines: string[] = [];
  #points: Point[] = [];
  #turns = 0;
  #speakers = new Set<string>();
  #dirty = false;
  #editing = false;
  #timer: NodeJS.Timeout | null = null;
  /** The end of the latest call (last edit, summary post) while it is under way. */
  #ending: Promise<void> | null = null;
  #lastEditAt = 0;
  /** Edits sent (tests and the room view). */
  edits = 0;

  constructor(options: CaptionsOptions) {
    this.#o = options;
  }

  start(): void {
    this.#unsubscribe = this.#o.hub.subscribe((event) => {
      if (event.type === 'state') this.#onState(event.data);
      else if (event.type === 'note') this.#onNote(event.data);
    });
  }

  /**
   * Stops following the call. Resolves once a summary being posted for a call that just ended is
   * out: the core stops its Discord client after this (lifecycle order), and a summary still in
   * flight then failed ("Expected token to be set"), lost on every shutdown right after a call.
   */
  stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    return this.#ending ?? Promise.resolve();
  }

  #onState(event: BridgeStateEvent): void {
    if (event.state === 'connected' && this.#channelId === null) {
      const channelId = this.#o.target()?.channelId;
      if (!channelId) return;
      this.#channelId = channelId;
      this.#lines = [];
      this.#points = [];
      this.#turns = 0;
      this.#speakers.clear();
      this.#message = this.#o.post(channelId, this.#render(false)).catch((err: unknown) => {
        this.#o.logger.warn({ err, channelId }, 'could not post the captions message');
        return null;
      });
    } else if ((event.state === 'stopped' || event.state === 'error') && this.#channelId !== null) {
      this.#ending = this.#end(this.#channelId);
      this.#channelId = null;
    }
  }

  #onNote(note: NoteEvent): void {
    if (this.#channelId === null) return;
    if (note.kind !== 'input_transcript' && note.kind !== 'output_transcript') return;
    this.#callId ??= note.callId;
    const turn = ++this.#turns;
    const who = note.kind === 'output_transcript' ? 'Assistant' : (note.speaker_name ?? 'Someone');
    if (note.kind === 'input_transcript') this.#speakers.add(who);
    this.#lines.push(`**${who}**: ${note.text}`);
    if (this.#lines.length > CAPTION_LINES) this.#lines.shift();
    if (DECISION.test(note.text)) this.#points.push({ kind: 'decision', text: `${who}: ${note.text}`, turn });
    else if (REMINDER.test(note.text)) this.#points.push({ kind: 'reminder', text: `${who}: ${note.text}`, turn });
    this.#dirty = true;
    this.#schedule();
  }

  /** One edit at a time, at most one per interval; lines arriving meanwhile go in the next one. */
  #schedule(): void {
    if (this.#timer || this.#editing || !this.#dirty) return;
    const every = this.#o.editEveryMs ?? EDIT_EVERY_MS;
    const wait = Math.max(0, this.#lastEditAt + every - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#flush(false);
    }, wait);
  }

  async #flush(ended: boolean, channelId = this.#channelId): Promise<void> {
    const message = await this.#message;
    if (!message || channelId === null) return;
    this.#editing = true;
    this.#dirty = false;
    this.#lastEditAt = Date.now();
    try {
      await this.#o.edit(message.channelId, message.messageId, this.#render(ended));
      this.edits++;
    } catch (err) {
      this.#o.logger.warn({ err }, 'could not edit the captions message');
    } finally {
      this.#editing = false;
    }
    if (!ended) this.#schedule();
  }

  async #end(channelId: string): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#flush(true, channelId);
    try {
      await this.#o.post(channelId, this.summary());
    } catch (err) {
      this.#o.logger.warn({ err, channelId }, 'could not post the call summary');
    }
    this.#message = null;
  }

  summary(): string {
    const list = (kind: Point['kind']) =>
      this.#points.filter((p) => p.kind === kind).map((p) => `• ${p.text} (turn ${p.turn})`);
    const decisions = list('decision');
    const reminders = list('reminder');
    const text = [
      `🧾 **Call summary** — ${this.#turns} transcript turns${this.#speakers.size ? `, with ${[...this.#speakers].join(', ')}` : ''}.`,
      '**Decisions**',
      ...(decisions.length ? decisions : ['• none noted']),
      '**Reminders**',
      ...(reminders.length ? reminders : ['• none noted']),
      `Turns are the call's transcript lines in order${this.#callId ? ` (call ${this.#callId} in the notes)` : ''}.`,
    ].join('\n');
    return splitMessage(text, MESSAGE_LIMIT, 1)[0]!;
  }

  #render(ended: boolean): string {
    const head = ended ? '📝 **Captions** (the call has ended)' : '📝 **Live captions** (updated as people talk)';
    const brief = this.#points
      .slice(-6)
      .map((p) => `• ${p.kind === 'decision' ? 'Decision' : 'Reminder'}: ${p.text} (turn ${p.turn})`);
    const tail = ['**Brief so far**', ...(brief.length ? brief : ['• nothing decided yet'])].join('\n');
    // The newest caption lines that fit beside the brief.
    const lines = [...this.#lines];
    let body = lines.join('\n');
    while (lines.length > 0 && head.length + body.length + tail.length + 4 > MESSAGE_LIMIT) {
      lines.shift();
      body = lines.join('\n');
    }
    return [head, body || '…', tail].join('\n');
  }
}
