// The drop-down that replaces an id box in the settings form (choices from id-choices.ts). Names
// come from Discord, so they are set as text, never as markup.
import type { GuildDirectory } from '../main/core/sidecar-client/wire-types.ts';
import { h } from './dom.ts';
import { choicesFor, ID_CHOICES, type IdChoiceKey } from './id-choices.ts';

/**
 * A drop-down replacing the id box `input` (same id, name and description, so the form reads it the
 * same way); the id in force stays chosen, named as unknown when the bot cannot see it.
 */
export function idSelect(
  key: IdChoiceKey,
  input: HTMLInputElement,
  directory: readonly GuildDirectory[],
): HTMLSelectElement {
  const current = input.value.trim();
  const items = choicesFor(key, directory);
  if (current && !items.some((item) => item.id === current))
    items.push({ id: current, name: `${current} (not among what the bot can see)` });
  return h(
    'select',
    {
      id: input.id,
      name: input.name,
      'aria-describedby': input.getAttribute('aria-describedby') ?? undefined,
      'data-value': current,
    },
    h('option', { value: '', selected: current === '' }, ID_CHOICES[key].none),
    ...items.map((item) => h('option', { value: item.id, selected: item.id === current }, item.name)),
  );
}
