// `live-voice-bridge patience …`: the words typed → the action, a name → the speaker, and the summary.
import { describe, expect, it } from 'vitest';
import type { PatienceView } from '../../../main/core/api-types.ts';
import { findSpeaker, patienceAction, patienceSummary, PATIENCE_USAGE } from '../../../main/cli/patience-command.ts';

const VIEW: PatienceView = {
  setting: 'natural',
  call: null,
  base_ms: 800,
  current_ms: 800,
  speakers: [
    { speaker_id: '111111111111111111', name: 'Zoë', window_ms: 1400, learnt: true, cutoffs: 2, updated_at: 1 },
    { speaker_id: '222222222222222222', name: 'Gus', window_ms: 800, learnt: false, cutoffs: 1, updated_at: 1 },
  ],
};

describe('patience command', () => {
  it('maps the words to what it does', () => {
    expect(patienceAction([])).toEqual({ kind: 'show' });
    expect(patienceAction(['Patient'])).toEqual({ kind: 'set', patience: 'patient' });
    expect(patienceAction(['1200'])).toEqual({ kind: 'set', patience: 1200 });
    expect(patienceAction(['1200ms'])).toEqual({ kind: 'set', patience: 1200 });
    expect(patienceAction(['reset', 'Zoë'])).toEqual({ kind: 'reset', who: 'Zoë' });
    for (const bad of [['slow'], ['100'], ['9000'], ['1.5'], ['quick', 'now']])
      expect(patienceAction(bad)).toEqual({ error: PATIENCE_USAGE });
    expect(patienceAction(['reset'])).toEqual({
      error: 'patience reset needs the name (or Discord id) of the speaker to reset',
    });
  });

  it('finds a speaker by name (case and accents ignored) or id, and says who is known when none matches', () => {
    expect(findSpeaker(VIEW, 'zoe')).toMatchObject({ name: 'Zoë' });
    expect(findSpeaker(VIEW, '222222222222222222')).toMatchObject({ name: 'Gus' });
    expect(findSpeaker(VIEW, 'Ann')).toEqual({
      error: "nothing was learnt of Ann: their patience is the call's already (learnt: Zoë, Gus)",
    });
  });

  it('prints people by name, never by id', () => {
    const text = patienceSummary(VIEW);
    expect(text).toBe(
      [
        'Patience: natural (800 ms) (the setting)',
        'Learnt per speaker (cut off mid-thought, so the service waits longer for them):',
        '  Zoë: 1400 ms (learnt after 2 cut-offs)',
        "  Gus: 800 ms, the call's (drifted back; 1 cut-off in all)",
      ].join('\n'),
    );
    expect(text).not.toMatch(/\d{17}/);
  });
});
