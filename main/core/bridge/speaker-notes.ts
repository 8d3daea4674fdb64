// Who is talking, as the model and the notes are told in a call with several allowed speakers: the
// persona gains a rule explaining the per-turn "[Speaking now: NAME]" lines, each turn names its
// speaker (again only when it changes), and an utterance the wake names kept from the model is
// noted with whose it was (never its words).
import type { NotesLog } from '../notes/notes-log.ts';
import type { LiveModelSession } from '../ports.ts';
import type { RoomPeople, SpeakerActivity } from './room.ts';
import type { WakeVerdicts } from './wake-gate.ts';

/** Told to the model in a call with several allowed speakers, with the per-turn notes it explains. */
const SPEAKER_NOTES_RULE =
  'Several people can talk in this call. A line like "[Speaking now: NAME]" tells you who is talking; it is not said by anyone. ' +
  'Never read it aloud and do not answer it by itself; use the name when it helps.';

export interface SpeakerNotesOptions {
  room: RoomPeople | undefined;
  activity: SpeakerActivity;
  notes: NotesLog;
  /** The call's current model session (none while parked or down): the model link. */
  link: { readonly session: LiveModelSession | null };
  /** `withholding`: the wake names may keep speech starting now from the model (wake-gate.ts). */
  wake: { readonly withholding: boolean };
  now: () => number;
}

export class SpeakerNotes implements WakeVerdicts {
  readonly #o: SpeakerNotesOptions;
  /** The speaker the model was last told about in this turn (named again only when it changes). */
  #announced: string | undefined;

  constructor(options: SpeakerNotesOptions) {
    this.#o = options;
  }

  severalSpeakers(): boolean {
    return (this.#o.room?.allowedSpeakers?.length ?? 0) > 1;
  }

  /** The persona with the speaker-notes rule added when several people may talk. */
  persona(persona: string | undefined): string | undefined {
    if (!this.severalSpeakers()) return persona;
    return persona ? `${persona}\n\n${SPEAKER_NOTES_RULE}` : SPEAKER_NOTES_RULE;
  }

  /**
   * At each turn, before its audio, the model is told who speaks (and again when someone else
   * starts), as context that neither starts nor interrupts a reply (provider's `addContext`).
   */
  announce(id: string): void {
    // Speech that may be kept from the model (wake names) is named once it is let through (accepted()).
    if (!this.severalSpeakers() || id === this.#announced || this.#o.wake.withholding) return;
    if (this.#o.link.session?.addContext?.(`[Speaking now: ${this.#o.activity.name(id)}]`)) this.#announced = id;
  }

  /** A screened utterance was let through: name its speaker(s) before its held audio reaches the model. */
  accepted(startedAt: number): void {
    for (const id of this.#o.activity.activeDuring(startedAt, this.#o.now())) this.announce(id);
  }

  /** The notes say an utterance was kept from the model, and whose (never its words). */
  notForBot(startedAt: number, why: string): void {
    const activity = this.#o.activity;
    const ids = activity.activeDuring(startedAt, this.#o.now());
    const who = ids.length > 0 ? ids.map((id) => activity.name(id)).join(' and ') : 'someone';
    this.#o.notes.append({
      kind: 'note',
      text: `not for the bot: ${who} spoke, but ${why}`,
      ...(ids.length === 1 ? { speaker: ids[0] } : {}),
    });
  }

  /** A turn ended or was cut off: the next one names its speaker again. */
  turnEnded(): void {
    this.#announced = undefined;
  }
}
