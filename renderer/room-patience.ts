// The Room panel's patience (issue #52; docs/room.md "Patience per speaker"): beside each heard
// person, how long their pause may last before the service may end their turn, and whether that was
// learnt from cut-offs (with Reset); under the list, the call's patience and anyone else remembered.
// Names come from Discord: set as text, never as markup.
import type { PatienceView, SpeakerPatienceView } from '../main/core/api-types.ts';
import { h } from './dom.ts';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** `patience 1.4 s (learnt: cut off twice)` / `patience 0.8 s`. */
export function speakerPatienceWords(p: SpeakerPatienceView): string {
  if (!p.learnt) return `patience ${seconds(p.window_ms)}`;
  const times = p.cutoffs === 1 ? 'once' : p.cutoffs === 2 ? 'twice' : `${p.cutoffs} times`;
  return `patience ${seconds(p.window_ms)} (learnt: cut off ${times})`;
}

/** A level or ms in words: `natural (0.8 s)`, `1.2 s`. */
export function patienceLevelWords(patience: PatienceView['setting'], ms: number): string {
  return typeof patience === 'number' ? seconds(ms) : `${patience} (${seconds(ms)})`;
}

function resetButton(p: SpeakerPatienceView, reset: (p: SpeakerPatienceView) => void): HTMLButtonElement {
  return h(
    'button',
    {
      type: 'button',
      class: 'small room-patience-reset',
      'aria-label': `Reset ${p.name}'s patience`,
      onclick: () => reset(p),
    },
    'Reset',
  );
}

/** The patience part of one person's line. */
export function personPatience(p: SpeakerPatienceView, reset: (p: SpeakerPatienceView) => void): HTMLElement {
  return h(
    'span',
    { class: 'muted small room-patience', 'data-learnt': String(p.learnt) },
    speakerPatienceWords(p),
    p.learnt ? resetButton(p, reset) : null,
  );
}

/** The call's patience, then whoever else has a learnt one (not in the room now). */
export function patienceFooter(
  view: PatienceView,
  shown: ReadonlySet<string>,
  reset: (p: SpeakerPatienceView) => void,
): (Node | string)[] {
  const base = view.call ?? view.setting;
  const lead = `Patience ${patienceLevelWords(base, view.base_ms)}${view.call === null ? '' : ' this call'}: how long a pause may last before the model may answer.`;
  const others = view.speakers.filter((s) => s.learnt && !shown.has(s.speaker_id));
  if (others.length === 0) return [lead];
  const nodes: (Node | string)[] = [`${lead} Also learnt: `];
  others.forEach((s, i) => {
    nodes.push(
      h('span', { class: 'room-patience-other' }, `${s.name} ${seconds(s.window_ms)} `, resetButton(s, reset)),
    );
    if (i < others.length - 1) nodes.push(', ');
  });
  return nodes;
}
