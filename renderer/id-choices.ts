// The settings form's Discord ids picked by name: once the bot's directory answers (GET
// /setup/directory), the owner, server and channel boxes become drop-downs of what the bot can see.
// Until then (or when Discord does not answer) they stay boxes for a raw id. Names come from
// Discord, so they are set as text, never as markup.
import type { GuildDirectory } from '../main/core/sidecar-client/wire-types.ts';
import { h } from './dom.ts';

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
  textChannelId: { label: 'Text channel for notifications', none: 'None (direct messages)', items: (g) => g.textChannels },
};

/** The choices for one setting: names (with the server when there are several), each id once. */
export function choicesFor(key: IdChoiceKey, directory: readonly GuildDirectory[]): { id: string; name: string }[] {
  const several = directory.length > 1 && key !== 'guildId';
  const all = directory.flatMap((g) => ID_CHOICES[key].items(g).map((item) => ({ id: item.id, name: several ? `${item.name} (${g.name})` : item.name })));
  return [...new Map(all.map((item) => [item.id, item])).values()];
}

/**
 * A drop-down replacing the id box `input` (same id, name and description, so the form reads it the
 * same way); the id in force stays chosen, named as unknown when the bot cannot see it.
 */
export function idSelect(key: IdChoiceKey, input: HTMLInputElement, directory: readonly GuildDirectory[]): HTMLSelectElement {
  const current = input.value.trim();
  const items = choicesFor(key, directory);
  if (current && !items.some((item) => item.id === current)) items.push({ id: current, name: `${current} (not among what the bot can see)` });
  return h(
    'select',
    { id: input.id, name: input.name, 'aria-describedby': input.getAttribute('aria-describedby') ?? undefined, 'data-value': current },
    h('option', { value: '', selected: current === '' }, ID_CHOICES[key].none),
    ...items.map((item) => h('option', { value: item.id, selected: item.id === current }, item.name)),
  );
}
