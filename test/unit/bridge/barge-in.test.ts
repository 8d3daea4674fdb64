// The echo-aware speech test behind local barge-in: what decides is the speaker frame's level
// against what we played within the echo tail.
import { describe, expect, it } from 'vitest';
import { BargeInDetector } from '../../../main/core/bridge/barge-in.ts';

/** A 20 ms 48 kHz stereo frame of a 440 Hz tone at `amplitude` (RMS = amplitude / √2). */
function frame(amplitude: number): Int16Array {
  const out = new Int16Array(1920);
  for (let i = 0; i < 960; i++) out.fill(Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / 48_000)), i * 2, i * 2 + 2);
  return out;
}

describe('BargeInDetector', () => {
  it('with nothing played, speech over -40 dBFS counts and quieter sound does not', () => {
    const d = new BargeInDetector();
    expect(d.isSpeech(frame(3000), 0)).toBe(true); // -21 dBFS
    expect(d.isSpeech(frame(300), 0)).toBe(false); // -41 dBFS
  });

  it('our own audio 20 dB down is echo; a speaker 12 dB under us is speech (the line is 14 dB under)', () => {
    const d = new BargeInDetector();
    for (let t = 0; t < 200; t += 20) expect(d.notePlayed(frame(12_000), t)).toBe(true);
    expect(d.isSpeech(frame(1200), 300)).toBe(false);
    expect(d.isSpeech(frame(3000), 300)).toBe(true);
  });

  it('the echo estimate fades once nothing was played for the echo tail', () => {
    const d = new BargeInDetector();
    d.notePlayed(frame(12_000), 0);
    expect(d.isSpeech(frame(1200), 900)).toBe(false);
    expect(d.isSpeech(frame(1200), 1100)).toBe(true);
    expect(d.notePlayed(new Int16Array(1920), 1200)).toBe(false);
  });

  it('a frame whose speech starts only in its last 10 ms counts; one whose last 10 ms are quiet does not', () => {
    const d = new BargeInDetector();
    const late = frame(6000);
    late.fill(0, 0, 960);
    expect(d.isSpeech(late, 0)).toBe(true);
    const click = frame(6000);
    click.fill(0, 960);
    expect(d.isSpeech(click, 0)).toBe(false);
  });
});
