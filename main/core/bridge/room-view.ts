// GET /room: everyone the call concerns (the owner, the allowed speakers, whoever is in the channel),
// with their role, whether they speak now, what they may make the model do by voice, and whether
// they opted out of being heard.
import type { RoomPersonView, RoomView, WakeView } from '../api-types.ts';
import type { CallPatience } from './call-patience.ts';
import type { RoomPeople } from './room.ts';

export interface RoomViewInput {
  people: RoomPeople;
  inChannel: readonly string[];
  speaking: ReadonlySet<string>;
  ownerOnly: readonly string[];
  name: (id: string) => string;
  wake: WakeView;
  /** The call's patience and each speaker's (absent: not shown). */
  patience?: CallPatience;
}

export function buildRoomView({
  people,
  inChannel,
  speaking,
  ownerOnly,
  name,
  wake,
  patience,
}: RoomViewInput): RoomView {
  const { ownerId, allowedSpeakers = [] } = people;
  const ids = [...new Set([...(ownerId ? [ownerId] : []), ...allowedSpeakers, ...inChannel])];
  const persons = ids.map((id): RoomPersonView => {
    const role = id === ownerId ? 'owner' : allowedSpeakers.includes(id) ? 'speaker' : 'listener';
    const optedOut = people.optedOut?.(id) ?? false;
    const may = optedOut
      ? 'nothing: opted out, their audio is dropped before the model'
      : role === 'owner'
        ? 'everything'
        : role === 'speaker'
          ? ownerOnly.length > 0
            ? `everything but ${ownerOnly.join(', ')}`
            : 'everything'
          : 'nothing: the model does not hear them';
    const shown = name(id);
    // A listener is not heard by the model: no turn of theirs ends, so no patience to show.
    const heard = role !== 'listener' && patience ? { patience: patience.speaker(id, shown) } : {};
    return {
      id,
      name: shown,
      role,
      in_channel: inChannel.includes(id),
      speaking: speaking.has(id),
      may,
      ...(optedOut ? { opted_out: true } : {}),
      ...heard,
    };
  });
  return { people: persons, owner_only: [...ownerOnly], wake, ...(patience ? { patience: patience.view() } : {}) };
}
