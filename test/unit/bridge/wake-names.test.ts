// The wake-name matcher: does a screener's transcript start with a wake name?
import { describe, expect, it } from 'vitest';
import { parseWakeNames, startsWithWakeName, words } from '../../../main/core/bridge/wake-names.ts';

const names = parseWakeNames(['Gemini', 'assistant', 'Hal Bot', ' ', 'Zoë']);

describe('wake names', () => {
  it('normalises case, punctuation and accents, and drops empty names', () => {
    expect(words('¡Hé, GEMINI!… what’s up?')).toEqual(['he', 'gemini', 'what', 's', 'up']);
    expect(names).toEqual([['gemini'], ['assistant'], ['hal', 'bot'], ['zoe']]);
  });

  it('accepts an utterance that starts with a name, whatever the case or punctuation', () => {
    expect(startsWithWakeName('Gemini, what time is it?', names)).toBe('gemini');
    expect(startsWithWakeName('ASSISTANT. Lights off.', names)).toBe('assistant');
    expect(startsWithWakeName('Hal Bot — play music', names)).toBe('hal bot');
    expect(startsWithWakeName('zoe, help', names)).toBe('zoe');
    expect(startsWithWakeName('Gemini', names)).toBe('gemini');
  });

  it('allows a short greeting before the name', () => {
    expect(startsWithWakeName('Hey Gemini, what is the weather', names)).toBe('gemini');
    expect(startsWithWakeName('OK so, assistant: timer', names)).toBe('assistant');
    expect(startsWithWakeName('um uh hey Gemini', names)).toBe('gemini');
  });

  it('accepts the fuzzy forms a transcriber writes for a name (split, run together, a letter off)', () => {
    expect(startsWithWakeName('Gem ini, hello', names)).toBe('gemini');
    expect(startsWithWakeName('Jemini, hello', names)).toBe('gemini');
    expect(startsWithWakeName('Gemeni what now', names)).toBe('gemini');
    expect(startsWithWakeName('Assistent, note this', names)).toBe('assistant');
    expect(startsWithWakeName('Halbot, stop', names)).toBe('hal bot');
  });

  it('refuses utterances that do not start with a name', () => {
    expect(startsWithWakeName('So I told Gemini about it', names)).toBeNull();
    expect(startsWithWakeName('anyway, about lunch', names)).toBeNull();
    expect(startsWithWakeName('Germany is nice', names)).toBeNull();
    expect(startsWithWakeName('Gemstone collection', names)).toBeNull();
    expect(startsWithWakeName('', names)).toBeNull();
    expect(startsWithWakeName('hey hey hey hey Gemini', names)).toBeNull();
    // Short names get no letters of slack: "Zoo" is not "Zoë".
    expect(startsWithWakeName('Zoo trip tomorrow', names)).toBeNull();
  });

  it('with no names set, nothing matches', () => {
    expect(startsWithWakeName('Gemini, hello', [])).toBeNull();
  });
});
