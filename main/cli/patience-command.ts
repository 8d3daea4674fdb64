// `live-voice-bridge patience [quick|natural|patient|MS]` and `patience reset NAME|ID`: read or save
// the one patience setting (PUT /settings `patience`: the next call takes it), list each speaker
// whose patience the learner lengthened (GET /room/patience), and forget one of them (DELETE
// /room/patience/{id}). People are named as the room names them; an id works too. Pure parts here,
// so the wording is tested without a sidecar (test/unit/cli/patience-command.test.ts).
import type { PatienceView, SpeakerPatienceView } from '../core/api-types.ts';
import { parsePatience, patienceSilenceMs, type Patience } from '../core/contracts/patience.ts';

export type PatienceAction = { kind: 'show' } | { kind: 'set'; patience: Patience } | { kind: 'reset'; who: string };

export const PATIENCE_USAGE =
  'patience takes quick, natural, patient or a number of ms (200–5000), or: patience reset NAME|ID';

/** The action for the words after `patience`, or an error message. */
export function patienceAction(args: readonly string[]): PatienceAction | { error: string } {
  const [first, ...rest] = args;
  if (first === undefined) return { kind: 'show' };
  if (first.toLowerCase() === 'reset') {
    const who = rest.join(' ').trim();
    return who
      ? { kind: 'reset', who }
      : { error: 'patience reset needs the name (or Discord id) of the speaker to reset' };
  }
  if (rest.length > 0) return { error: PATIENCE_USAGE };
  const patience = parsePatience(first.replace(/ms$/i, ''));
  return patience === null ? { error: PATIENCE_USAGE } : { kind: 'set', patience };
}

/** A patience in words: `natural (800 ms)`, or `1400 ms`. */
export function patienceWords(patience: Patience): string {
  return typeof patience === 'number' ? `${patience} ms` : `${patience} (${patienceSilenceMs(patience)} ms)`;
}

/** The speaker `who` names: an id, or a name (case and accents ignored); an error when none or several match. */
export function findSpeaker(view: PatienceView, who: string): SpeakerPatienceView | { error: string } {
  const byId = view.speakers.find((s) => s.speaker_id === who);
  if (byId) return byId;
  const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();
  const matches = view.speakers.filter((s) => fold(s.name) === fold(who));
  if (matches.length === 1) return matches[0]!;
  const known = view.speakers.map((s) => s.name).join(', ');
  if (matches.length > 1)
    return {
      error: `${matches.length} speakers are called ${who}: give the Discord id instead (${matches.map((s) => s.speaker_id).join(', ')})`,
    };
  return {
    error: `nothing was learnt of ${who}: their patience is the call's already${known ? ` (learnt: ${known})` : ''}`,
  };
}

function speakerLine(s: SpeakerPatienceView): string {
  const cuts = `${s.cutoffs} cut-off${s.cutoffs === 1 ? '' : 's'}`;
  return s.learnt
    ? `  ${s.name}: ${s.window_ms} ms (learnt after ${cuts})`
    : `  ${s.name}: ${s.window_ms} ms, the call's (drifted back; ${cuts} in all)`;
}

/** GET /room/patience for a person. */
export function patienceSummary(view: PatienceView): string {
  const lines = [`Patience: ${patienceWords(view.setting)} (the setting)`];
  if (view.call !== null)
    lines.push(`This call: ${patienceWords(view.call)}; now ${view.current_ms} ms for who is talking`);
  if (view.speakers.length === 0) lines.push('No speaker has a longer patience learnt.');
  else
    lines.push(
      'Learnt per speaker (cut off mid-thought, so the service waits longer for them):',
      ...view.speakers.map(speakerLine),
    );
  return lines.join('\n');
}
