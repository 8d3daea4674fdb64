// Room panel: who is in the call's voice channel, who is speaking, and who may make the model do
// what (GET /room). Names come from Discord, so they are set as text, never as markup.
import type { DaveSpeakerHealth, RoomView, SpeakerPatienceView } from '../main/core/api-types.ts';
import { api } from './api.ts';
import { byId, status } from './dom.ts';
import { patienceFooter, personPatience } from './room-patience.ts';
import { describeSpeakerDave } from './format.ts';
import { mayInWords, toolWords } from './tool-words.ts';

const ROLE_TEXT: Record<RoomView['people'][number]['role'], string> = {
  owner: 'owner',
  speaker: 'speaker',
  listener: 'listener',
};

export class RoomPanel {
  readonly #list = byId<HTMLUListElement>('room-list');
  readonly #ownerOnly = byId('room-owner-only');
  readonly #wake = byId('room-wake');
  readonly #patience = byId('room-patience');
  readonly #patienceStatus = byId('room-patience-status');
  #speakingKey = '';
  #dave = new Map<string, DaveSpeakerHealth>();
  #names = new Map<string, string>();

  /** Per-speaker E2EE receive health from /health `dave.speakers`, shown beside each person. */
  applyDave(speakers: readonly DaveSpeakerHealth[]): void {
    this.#dave = new Map(speakers.map((s) => [s.user_id, s]));
  }

  nameOf(id: string): string {
    return this.#names.get(id) ?? id;
  }

  async refresh(): Promise<void> {
    const room = await api.room().catch(() => null);
    if (room) this.#render(room);
  }

  /** Levels arrive 10 times a second: ask again only when who is speaking changed. */
  onSpeaking(ids: readonly string[]): void {
    const key = [...ids].sort().join(',');
    if (key === this.#speakingKey) return;
    this.#speakingKey = key;
    void this.refresh();
  }

  #render(room: RoomView): void {
    this.#names = new Map(room.people.map((p) => [p.id, p.name]));
    const items = room.people.map((person) => {
      const li = document.createElement('li');
      li.dataset.role = person.role;
      li.classList.toggle('speaking', person.speaking);
      li.classList.toggle('opted-out', person.opted_out === true);
      const name = document.createElement('strong');
      name.textContent = person.name;
      const role = document.createElement('span');
      role.className = 'badge';
      role.textContent = person.opted_out ? `${ROLE_TEXT[person.role]} · opted out` : ROLE_TEXT[person.role];
      const state = document.createElement('span');
      state.className = 'room-state';
      state.textContent = person.speaking ? 'speaking' : person.in_channel ? 'in the channel' : 'not in the channel';
      const may = document.createElement('span');
      may.className = 'muted small room-may';
      may.textContent = `may: ${mayInWords(person.may, room.owner_only)}`;
      const e2ee = document.createElement('span');
      e2ee.className = 'muted small room-e2ee';
      e2ee.textContent = describeSpeakerDave(this.#dave.get(person.id));
      e2ee.dataset.deaf = String(this.#dave.get(person.id)?.deaf ?? false);
      li.append(name, role, state, may, e2ee);
      if (person.patience) li.append(personPatience(person.patience, this.#reset));
      return li;
    });
    if (items.length === 0) {
      const li = document.createElement('li');
      li.className = 'muted';
      li.textContent = 'No voice platform configured.';
      items.push(li);
    }
    this.#list.replaceChildren(...items);
    this.#ownerOnly.textContent = room.owner_only.length
      ? `Only the owner’s voice may: ${room.owner_only.map(toolWords).join(', ')}.`
      : '';
    this.#wake.textContent = wakeText(room.wake);
    this.#wake.dataset.on = String(room.wake.on);
    this.#patience.replaceChildren(
      ...(room.patience ? patienceFooter(room.patience, new Set(room.people.map((p) => p.id)), this.#reset) : []),
    );
  }

  /** Forget what was learnt of one speaker (DELETE /room/patience/{id}), then show the room again. */
  readonly #reset = (speaker: SpeakerPatienceView): void => {
    api.resetPatience(speaker.speaker_id).then(
      () => {
        status(this.#patienceStatus, `${speaker.name}'s patience is the call's again.`, 'ok');
        void this.refresh();
      },
      (err: unknown) =>
        status(
          this.#patienceStatus,
          `Could not reset ${speaker.name}'s patience: ${err instanceof Error ? err.message : String(err)}`,
          'error',
        ),
    );
  };
}

/** The wake-name gate in one sentence: on or off, why, and what it let through. */
export function wakeText(wake: RoomView['wake']): string {
  const names = wake.names.map((n) => `“${n}”`).join(' or ');
  if (!wake.on) return `Wake names off (${wake.reason}).${names ? ` Names: ${names}.` : ''}`;
  const rule = `only speech starting with ${names}, or within ${Math.round(wake.follow_up_ms / 1000)} s after the bot spoke, reaches the model`;
  // Never open without a screener: until it is ready only the follow-up window reaches the model.
  const screening =
    wake.screening === 'ready' ? '' : ` Screener ${wake.screening}: the gate is closed until it is ready.`;
  return `Wake names on (${wake.reason}): ${rule}. ${wake.accepted} let through, ${wake.dropped} not for the bot.${screening}`;
}
