// The notes log: every transcript event and note of a call, appended synchronously to a per-call
// JSONL file (so a crash loses nothing already said); events outside a call (a notification with no
// call live) go to a daily `outside-YYYY-MM-DD.jsonl`. /notes and /calls read these files back
// (notes-archive.ts), so they survive restarts; the bounded ring serves the helper tools and
// /events. Appends are a few per second at most, never per audio frame, so a sync write is cheap.
import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { NoteEvent } from '../api-types.ts';
import type { EventHub } from '../event-hub.ts';
import type { NotesSink } from '../ports.ts';
import { ensurePrivateDir } from '../private-dir.ts';

export const NOTES_RING_SIZE = 1000;

export interface NotesLogOptions {
  /** `<agent home>/voice-users/notes` */
  dir: string;
  hub?: EventHub;
  ringSize?: number;
  now?: () => number;
}

export class NotesLog implements NotesSink {
  readonly #dir: string;
  readonly #hub?: EventHub;
  readonly #ring: NoteEvent[] = [];
  readonly #ringSize: number;
  readonly #now: () => number;
  #fd: number | null = null;
  #callId: string | undefined;
  #file: string | undefined;
  #seq = 0;
  #outsideFd: number | null = null;
  #outsideDay: string | undefined;
  #nameOf: ((userId: string) => string | undefined) | undefined;

  constructor(options: NotesLogOptions) {
    this.#dir = options.dir;
    this.#hub = options.hub;
    this.#ringSize = options.ringSize ?? NOTES_RING_SIZE;
    this.#now = options.now ?? Date.now;
  }

  /** Route following events to `<dir>/<callId>.jsonl`. */
  startCall(callId: string): string {
    this.endCall();
    ensurePrivateDir(this.#dir);
    this.#callId = callId;
    this.#file = path.join(this.#dir, `${callId}.jsonl`);
    this.#fd = openSync(this.#file, 'a', 0o600);
    return this.#file;
  }

  endCall(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
    this.#callId = undefined;
  }

  get currentFile(): string | undefined {
    return this.#file;
  }

  /**
   * How Discord ids are shown to people (the bridge's room: nickname, then global name). Each note
   * is named when written, so the files and every reader show the name the person had then.
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
    this.#ring.push(event);
    if (this.#ring.length > this.#ringSize) this.#ring.splice(0, this.#ring.length - this.#ringSize);
    if (this.#fd !== null) writeSync(this.#fd, JSON.stringify(event) + '\n');
    else this.#writeOutside(JSON.stringify(event) + '\n', ts);
    this.#hub?.publish({ type: 'note', data: event });
    return event;
  }

  #writeOutside(line: string, ts: number): void {
    const day = new Date(ts * 1000).toISOString().slice(0, 10);
    if (day !== this.#outsideDay || this.#outsideFd === null) {
      if (this.#outsideFd !== null) closeSync(this.#outsideFd);
      ensurePrivateDir(this.#dir);
      this.#outsideFd = openSync(path.join(this.#dir, `outside-${day}.jsonl`), 'a', 0o600);
      this.#outsideDay = day;
    }
    writeSync(this.#outsideFd, line);
  }

  /** Close every file (shutdown). */
  close(): void {
    this.endCall();
    if (this.#outsideFd !== null) closeSync(this.#outsideFd);
    this.#outsideFd = null;
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
