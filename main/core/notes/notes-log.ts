// The notes log: every transcript event and note of a call, written at once to the database
// (notes-store.ts; a crash loses nothing already said); events outside a call (a notification with
// no call live) go to the day's `outside-YYYY-MM-DD` record. /notes and /calls read them back, so
// they survive restarts; the bounded ring serves the helper tools and /events. Writes are a few per
// second at most, never per audio frame, so a synchronous insert is cheap. The words of a speaker
// who opted out are never written (the audio is dropped before the model already; this holds for
// any path a transcript could take).
import type { NoteEvent } from '../api-types.ts';
import type { EventHub } from '../event-hub.ts';
import type { NotesSink } from '../ports.ts';
import type { NotesStore } from './notes-store.ts';

export const NOTES_RING_SIZE = 1000;

export interface NotesLogOptions {
  store: NotesStore;
  hub?: EventHub;
  ringSize?: number;
  now?: () => number;
}

export class NotesLog implements NotesSink {
  readonly #store: NotesStore;
  readonly #hub?: EventHub;
  readonly #ring: NoteEvent[] = [];
  readonly #ringSize: number;
  readonly #now: () => number;
  #callId: string | undefined;
  #seq = 0;
  #nameOf: ((userId: string) => string | undefined) | undefined;
  #optedOut: (userId: string) => boolean = () => false;
  readonly #callEnded = new Set<(callId: string) => void>();

  constructor(options: NotesLogOptions) {
    this.#store = options.store;
    this.#hub = options.hub;
    this.#ringSize = options.ringSize ?? NOTES_RING_SIZE;
    this.#now = options.now ?? Date.now;
  }

  /** Record following events under `callId`. */
  startCall(callId: string): void {
    this.endCall();
    this.#callId = callId;
  }

  endCall(): void {
    const ended = this.#callId;
    this.#callId = undefined;
    if (ended !== undefined) for (const listener of this.#callEnded) listener(ended);
  }

  /** Called with the call's id once its last note is written (the end-of-call summary). */
  onCallEnded(listener: (callId: string) => void): void {
    this.#callEnded.add(listener);
  }

  /** The call being recorded (retention never deletes it). */
  get currentCallId(): string | undefined {
    return this.#callId;
  }

  /** Who opted out of being heard (room/consent-store.ts): their words are never written. */
  excludeSpeakers(optedOut: (userId: string) => boolean): void {
    this.#optedOut = optedOut;
  }

  /** Whether this Discord id opted out (search and recall leave their lines out). */
  speakerOptedOut(userId: string): boolean {
    return this.#optedOut(userId);
  }

  #optedOutSpeaker(event: Pick<NoteEvent, 'kind' | 'speaker'>): boolean {
    if (event.kind !== 'input_transcript' || !event.speaker) return false;
    return event.speaker.split(',').some((id) => this.#optedOut(id));
  }

  /**
   * How Discord ids are shown to people (the bridge's room: nickname, then global name). Each note
   * is named when written, so the database and every reader show the name the person had then.
   */
  nameSpeakers(nameOf: (userId: string) => string | undefined): void {
    this.#nameOf = nameOf;
  }

  #speakerName(speaker: string | undefined, given: string | undefined): { speaker_name?: string } {
    if (given) return { speaker_name: given };
    if (!speaker || !this.#nameOf || !/^\d+(,\d+)*$/.test(speaker)) return {};
    const names = speaker.split(',').map((id) => this.#nameOf?.(id));
    return names.every((n) => n) ? { speaker_name: names.join(' and ') } : {};
  }

  append(input: Omit<NoteEvent, 'id' | 'ts'> & { ts?: number }): NoteEvent {
    const ts = input.ts ?? this.#now() / 1000;
    this.#seq += 1;
    const event: NoteEvent = {
      id: `${Math.floor(ts * 1000).toString(36)}-${this.#seq.toString(36)}`,
      ts,
      kind: input.kind,
      ...(input.speaker ? { speaker: input.speaker } : {}),
      ...this.#speakerName(input.speaker, input.speaker_name),
      text: input.text,
      ...((input.callId ?? this.#callId) ? { callId: input.callId ?? this.#callId } : {}),
    };
    // Dropped, never stored nor shown: words of someone who asked not to be heard.
    if (this.#optedOutSpeaker(event)) return event;
    this.#store.insert(event);
    this.#ring.push(event);
    if (this.#ring.length > this.#ringSize) this.#ring.splice(0, this.#ring.length - this.#ringSize);
    this.#hub?.publish({ type: 'note', data: event });
    return event;
  }

  /** Shutdown: nothing is buffered (each event was written when appended). */
  close(): void {
    this.endCall();
  }

  /** The call being recorded (startCall to endCall) and its most recent `limit` events; null between calls. */
  currentCallNotes(limit: number): { callId: string; notes: NoteEvent[] } | null {
    return this.#callId === undefined ? null : { callId: this.#callId, notes: this.recent(limit, this.#callId) };
  }

  /** The most recent `limit` events, newest last; with `callId`, only that call's. */
  recent(limit: number, callId?: string): NoteEvent[] {
    // The ring holds several calls (and events between them): filter before counting.
    const events = callId === undefined ? this.#ring : this.#ring.filter((e) => e.callId === callId);
    return events.slice(Math.max(0, events.length - limit));
  }
}
