// Scripted speech as the fake models hear it: each sentence is a tone of its own, transcribed back
// from audio at the models' input rates (16 kHz Gemini, 24 kHz OpenAI), in the order the sentences
// began, written as it is heard when streamed; and the fake model's answers made from the words.
import { describe, expect, it } from 'vitest';
import { answerAbout } from '../../../main/fakes/shared/model-answers.ts';
import { SpeechScript } from '../../../main/fakes/shared/scripted-speech.ts';

/** The left channel of a 48 kHz stereo utterance, decimated to `rate` (48 kHz divides evenly). */
function monoAt(stereo48k: Int16Array, rate: number): Int16Array {
  const step = 48_000 / rate;
  const out = new Int16Array(Math.floor(stereo48k.length / 2 / step));
  for (let i = 0; i < out.length; i++) out[i] = stereo48k[2 * i * step]!;
  return out;
}

/** Two signals laid over each other, the second starting `offset` samples in (a talk-over). */
function mix(a: Int16Array, b: Int16Array, offset: number): Int16Array {
  const out = new Int16Array(Math.max(a.length, offset + b.length));
  for (let i = 0; i < out.length; i++)
    out[i] = Math.max(-32768, Math.min(32767, Math.round(((a[i] ?? 0) + (b[i - offset] ?? 0)) / 2)));
  return out;
}

describe('SpeechScript', () => {
  it('transcribes each sentence from its own audio at 16 and 24 kHz, and nothing from silence or an unscripted tone', () => {
    const script = new SpeechScript();
    const lines = ['Hi, can you hear me?', 'We decided to ship the release on Friday.', 'Tell me a joke.'];
    const audio = lines.map((line) => script.utterance(line));
    for (const rate of [16_000, 24_000]) {
      lines.forEach((line, i) => expect(script.transcribe(monoAt(audio[i]!, rate), rate)).toBe(line));
      expect(script.transcribe(new Int16Array(rate * 2), rate)).toBe('');
    }
    expect(script.hzOf(lines[1]!)).toBe(script.hzOf(lines[1]!));
    expect(new Set(lines.map((l) => script.hzOf(l))).size).toBe(3);
  });

  it('hears both people of a talk-over, in the order they began', () => {
    const script = new SpeechScript();
    const first = monoAt(script.utterance('Remind me to email the client tomorrow.'), 16_000);
    const second = monoAt(script.utterance('And the launch party is on Saturday.'), 16_000);
    expect(script.transcribe(mix(first, second, 32_000), 16_000)).toBe(
      'Remind me to email the client tomorrow. And the launch party is on Saturday.',
    );
  });

  it('streamed, writes the words as they are heard, each fragment holding the words of who was heard in it', () => {
    const script = new SpeechScript();
    const first = monoAt(script.utterance('Remind me to email the client tomorrow.'), 16_000);
    const second = monoAt(script.utterance('And the launch party is on Saturday.'), 16_000);
    const stream = script.streaming(16_000);
    const mixed = mix(first, second, 32_000);
    const fragments: string[] = [];
    // Fed in 100 ms chunks, as the bridge's voice gate sends them.
    for (let at = 0; at < mixed.length; at += 1600) {
      const words = stream.hear(mixed.subarray(at, at + 1600));
      if (words) fragments.push(words);
    }
    const end = stream.endTurn();
    if (end.rest) fragments.push(end.rest);
    expect(end.turn).toBe('Remind me to email the client tomorrow. And the launch party is on Saturday.');
    // Every word once; the first fragments are the first speaker's alone, the last ones the second's.
    expect(fragments.join('').trim().split(/\s+/).sort()).toEqual(end.turn.split(' ').sort());
    expect(fragments.length).toBeGreaterThanOrEqual(5);
    expect(fragments[0]!.startsWith('Remind')).toBe(true);
    expect(fragments.at(-1)!.trim().endsWith('Saturday.')).toBe(true);
    // A new turn starts empty.
    expect(stream.endTurn()).toEqual({ rest: '', turn: '' });
  });
});

describe('answerAbout (the fake model answers from the words it received)', () => {
  it('answers a question about its words, a reminder and a decision with their own words; context lines get no answer', () => {
    expect(answerAbout('Tell me a one-line joke')).toContain('joke');
    expect(answerAbout('Remind me to email the client tomorrow. And more.')).toBe(
      "Sure, I'll remind you to email the client tomorrow.",
    );
    expect(answerAbout('We decided to ship the release on Friday.')).toBe(
      'Noted as a decision: we decided to ship the release on Friday.',
    );
    expect(answerAbout('Which train goes to Lyon?')).toContain('which train goes to Lyon?');
    expect(answerAbout('The build is green')).toBe('Got it: the build is green.');
    expect(answerAbout('[Speaking now: Olga]')).toBe('');
    // The same words, the same answer.
    expect(answerAbout('Which train goes to Lyon?')).toBe(answerAbout('Which train goes to Lyon?'));
  });
});
