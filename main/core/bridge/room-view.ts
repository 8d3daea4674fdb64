// Who is in a call's room and what each may do (`GET /room`), from the bridge's live state.
import type { RoomView } from '../api-types.ts';
import type { RoomPeople } from './room.ts';

export interface RoomViewInput {
  room: RoomPeople;
  /** Humans in the voice channel now (empty outside a call). */
  inChannel: readonly string[];
  ownerOnly: string[];
  name: (id: string) => string;
  speaking: ReadonlySet<string>;
  wake: RoomView['wake'];
}

export function roomView(input: RoomViewInput): RoomView {
  const { ownerId, allowedSpeakers = [] } = input.room;
  const { inChannel, ownerOnly } = input;
  const ids = [...new Set([...(ownerId ? [ownerId] : []), ...allowedSpeakers, ...inChannel])];
  const people = ids.map((id) => {
    const role = id === ownerId ? 'owner' : allowedSpeakers.includes(id) ? 'speaker' : 'listener';
    const may =
      role === 'owner'
        ? 'everything'
        : role === 'speaker'
          ? ownerOnly.length > 0
            ? `everything but ${ownerOnly.join(', ')}`
            : 'everything'
          : 'nothing: the model does not hear them';
    return { id, name: input.name(id), role, in_channel: inChannel.includes(id), speaking: input.speaking.has(id), may } as const;
  });
  return { people, owner_only: ownerOnly, wake: input.wake };
}
