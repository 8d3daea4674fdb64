// Who may speak to the model. One list that the voice receive path, the room view and tool authority
// all read (never copy), so a change saved in Settings applies at once, even in the middle of a call:
// a newly allowed person is heard from their next utterance, a removed one no longer is.

export class AllowedSpeakers {
  readonly ownerId: string | undefined;
  #ids: readonly string[] = [];
  #set: ReadonlySet<string> = new Set();
  #excluded: (userId: string) => boolean = () => false;

  constructor(ownerId: string | undefined, ids: readonly string[]) {
    this.ownerId = ownerId;
    this.replace(ids);
  }

  /** An empty list means the owner alone. */
  replace(ids: readonly string[]): void {
    const unique = [...new Set(ids)];
    this.#ids = unique.length > 0 ? unique : this.ownerId ? [this.ownerId] : [];
    this.#set = new Set(this.#ids);
  }

  get ids(): readonly string[] {
    return this.#ids;
  }

  /** Allowed and not opted out (room/consent.ts): the receive path decodes only these. */
  has(userId: string): boolean {
    return this.#set.has(userId) && !this.#excluded(userId);
  }

  /** People never heard whatever the list says (opted out); read live. */
  exclude(excluded: (userId: string) => boolean): void {
    this.#excluded = excluded;
  }

  /** Nobody but the owner can speak to the model. */
  get ownerOnly(): boolean {
    return this.#ids.length === 1 && this.#ids[0] === this.ownerId;
  }
}

/** A comma-separated id list as the environment gives it (validated at start-up by the config loader). */
export function speakerList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
}
