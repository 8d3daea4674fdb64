// How the fakes answer injected text, as the real models do: an announcement's words are spoken,
// never the wording around them; a message gets the model's answer.
import { describe, expect, it } from 'vitest';
import { defaultInjectedText, spokenReplyTo, spokenReplyToTurn } from '../../../main/core/model/injected-text.ts';

describe('spokenReplyTo', () => {
  it('an announcement: its words, without the wording', () => {
    expect(spokenReplyTo(defaultInjectedText('The build is green.'), 'an answer')).toBe('The build is green.');
  });

  it('a message: the answer', () => {
    expect(spokenReplyTo('Tell me a one-line joke', 'Here is one.')).toBe('Here is one.');
  });

  it('a turn of several texts: each announcement said, one answer for the messages', () => {
    const turn = [
      defaultInjectedText('First.'),
      'What time is it?',
      defaultInjectedText('Second.'),
      'And the weather?',
    ].join('\n');
    expect(spokenReplyToTurn(turn, 'Noon, and sunny.')).toBe('First. Noon, and sunny. Second.');
  });
});
