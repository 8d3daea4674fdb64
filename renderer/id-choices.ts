// The settings form's Discord ids picked by name: once the bot's directory answers (GET
// /setup/directory), the owner, server and channel boxes become drop-downs of what the bot can see
// (id-select.ts builds them). Until then (or when Discord does not answer) they stay boxes for a raw
// id. Pure (no DOM), unit-tested in Node.
import type { GuildDirectory } from '../main/core/sidecar-client/wire-types.ts';

export type IdChoiceKey = 'ownerId' | 'guildId' | 'voiceChannelId' | 'textChannelId';

interface Choice {
  label: string;
  /** The empty choice (the setting unset) in words. */
  none: string;
  items: (guild: GuildDirectory) => { id: string; name: string }[];
}

export const ID_CHOICES: Record<IdChoiceKey, Choice> = {
  ownerId: { label: 'Owner (you)', none: '— nobody picked —', items: (g) => g.members },
  guildId: { label: 'Server', none: 'Any server shared with the owner', items: (g) => [{ id: g.id, name: g.name }] },
  voiceChannelId: { label: 'Voice channel', none: 'Follow the owner', items: (g) => g.voiceChannels },
  textChannelId: {
    label: 'Text channel for notifications',
    none: 'None (direct messages)',
    items: (g) => g.textChannels,
  },
};

/** The choices for one setting: names (with the server when there are several), each id once. */
export function choicesFor(key: IdChoiceKey, directory: readonly GuildDirectory[]): { id: string; name: string }[] {
  const several = directory.length > 1 && key !== 'guildId';
  const all = directory.flatMap((g) =>
    ID_CHOICES[key].items(g).map((item) => ({ id: item.id, name: several ? `${item.name} (${g.name})` : item.name })),
  );
  // Each id once, as first listed (a person in two servers is named with the first).
  const seen = new Set<string>();
  return all.filter((item) => !seen.has(item.id) && seen.add(item.id));
}
