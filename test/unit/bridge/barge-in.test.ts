// The echo-aware speech test behind local barge-in: what decides is the speaker frame's level
// against what we played within the echo tail, broadband and band by band.
import { describe, expect, it } from 'vitest';
import { BargeInDetector } from '../../../main/core/bridge/barge-in.ts';
import { speechLikeSignal } from '../../../main/demo/fake-services.ts';

/** A 20 ms 48 kHz mono frame of a `hz` tone at `amplitude` (RMS = amplitude / √2), from sample `start`. */
function frame(amplitude: number, hz = 440, start = 0): Int16Array {
  return Int16Array.from({ length: 960 }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * (start + i)) / 48_000)),
  );
}

/** 20 ms mono frame `k` of a 48 kHz stereo signal with L = R (the fake client's speech), scaled by `gain`. */
function frameOf(signal: Int16Array, k: number, gain = 1): Int16Array {
  return Int16Array.from({ length: 960 }, (_, i) => Math.round(signal[2 * (k * 960 + i)]! * gain));
}

const dB = (db: number) => 10 ** (db / 20);

describe('BargeInDetector', () => {
  it('with nothing played, speech over -40 dBFS counts and quieter sound does not', () => {
    const d = new BargeInDetector();
    expect(d.isSpeech(frame(3000), 0)).toBe(true); // -21 dBFS
    expect(d.isSpeech(frame(300), 0)).toBe(false); // -41 dBFS
  });

  it('our own audio coming back 20 dB or 14 dB down is echo; the same voice 8 dB under us is speech (the line is 10 dB under)', () => {
    const d = new BargeInDetector();
    for (let t = 0; t < 200; t += 20) expect(d.notePlayed(frame(12_000, 440, t * 48), t)).toBe(true);
    expect(d.isSpeech(frame(12_000 * dB(-20)), 300)).toBe(false);
    expect(d.isSpeech(frame(12_000 * dB(-14)), 300)).toBe(false);
    expect(d.isSpeech(frame(12_000 * dB(-14), 440, 480), 300), 'another phase of the echo').toBe(false);
    expect(d.isSpeech(frame(12_000 * dB(-8)), 300)).toBe(true);
  });

  it('a voice where the reply is not is speech on its first frame, 18 dB under the reply', () => {
    const d = new BargeInDetector();
    for (let t = 0; t < 400; t += 20) d.notePlayed(frame(8000, 440, t * 48), t);
    // Speech-like (140 Hz harmonics, 20 ms fade-in): its first frame's last 10 ms are -33 dBFS, the reply -15 dBFS.
    const voice = speechLikeSignal(0.2, 6000 * dB(-5));
    expect(d.isSpeech(frameOf(voice, 0), 400)).toBe(true);
    // The reply's own echo at -14 dB is not, nor a quieter voice under the floor.
    expect(d.isSpeech(frame(8000 * dB(-14), 440, 400 * 48), 400)).toBe(false);
    expect(d.isSpeech(frameOf(voice, 0, dB(-12)), 400)).toBe(false);
  });

  it('a voice-like reply fills the bands: its echo at -14 dB is echo in every band, the same voice 6 dB under its loudest syllable speech', () => {
    const reply = speechLikeSignal(1, 12_000);
    const d = new BargeInDetector();
    for (let k = 0; k < 40; k++) d.notePlayed(frameOf(reply, k), k * 20);
    for (let k = 10; k < 40; k++) expect(d.isSpeech(frameOf(reply, k, dB(-14)), 800), `frame ${k}`).toBe(false);
    expect(d.isSpeech(frameOf(reply, 15, dB(-6)), 800)).toBe(true); // a syllable's peak (4 per second)
  });

  it('the echo estimate fades once nothing was played for the echo tail', () => {
    const d = new BargeInDetector();
    d.notePlayed(frame(12_000), 0);
    expect(d.isSpeech(frame(1200), 900)).toBe(false);
    expect(d.isSpeech(frame(1200), 1100)).toBe(true);
    expect(d.notePlayed(new Int16Array(960), 1200)).toBe(false);
  });

  it('a frame whose speech starts only in its last 10 ms counts; one whose last 10 ms are quiet does not', () => {
    const d = new BargeInDetector();
    const late = frame(6000);
    late.fill(0, 0, 480);
    expect(d.isSpeech(late, 0)).toBe(true);
    const click = frame(6000);
    click.fill(0, 480);
    expect(d.isSpeech(click, 0)).toBe(false);
  });

  describe("a speaker's own evidence: quiet through our reply's echo tail", () => {
    /** A voice-like reply played from 0 ms for `ms` (one frame per 20 ms). */
    function playing(d: BargeInDetector, ms: number, gain = 1): void {
      const reply = speechLikeSignal(ms / 1000, 12_000 * gain);
      for (let k = 0; k < ms / 20; k++) d.notePlayed(frameOf(reply, k), k * 20);
    }
    const reply = speechLikeSignal(2, 12_000);
    /** The reply itself, 18 dB down: to the two tests it is our echo (under the 10 dB line, in our bands). */
    const quietVoice = frameOf(reply, 66, dB(-18)); // -34 dBFS

    it('a speaker who stayed quiet through the tail of 10+ played frames is speaking at their first frame over the floor', () => {
      const d = new BargeInDetector();
      playing(d, 1600);
      expect(d.isSpeech(quietVoice, 1600), 'no speaker named: the line for the worst echo path').toBe(false);
      expect(d.isSpeech(quietVoice, 1600, 'olga')).toBe(true);
    });

    it('no evidence: a reply younger than its echo tail, a speaker whose stream carried sound, a reply grown louder', () => {
      const young = new BargeInDetector();
      playing(young, 1100); // 5 frames past the 1 s tail: fewer than 10
      expect(young.isSpeech(quietVoice, 1100, 'olga')).toBe(false);

      const heard = new BargeInDetector();
      playing(heard, 1600);
      heard.heard('olga', frameOf(reply, 14, dB(-20)), 700); // -36 dBFS: over the floor (echo or voice), after the frames past their tail
      expect(heard.isSpeech(quietVoice, 1600, 'olga')).toBe(false);
      heard.heard('gus', frameOf(reply, 14, dB(-30)), 700); // -46 dBFS: under the floor, still quiet
      expect(heard.isSpeech(quietVoice, 1600, 'gus')).toBe(true);

      const louder = new BargeInDetector();
      playing(louder, 800, dB(-6)); // quiet for its tail at -6 dB…
      const loud = speechLikeSignal(1, 12_000);
      for (let k = 0; k < 40; k++) louder.notePlayed(frameOf(loud, k), 800 + k * 20); // …then 6 dB louder
      expect(louder.isSpeech(quietVoice, 1600, 'olga')).toBe(false);
    });

    it('their own voice with nothing played within the echo tail leaves the evidence standing', () => {
      const d = new BargeInDetector();
      playing(d, 1600);
      d.heard('olga', frameOf(reply, 14), 2700); // -16 dBFS, 1.1 s after our last frame: not our echo
      for (let k = 0; k < 20; k++) d.notePlayed(frameOf(reply, k), 3000 + k * 20); // the next reply
      expect(d.isSpeech(quietVoice, 3400, 'olga')).toBe(true);
    });

    it('the evidence ends at their first frame over the floor: the rest of the word meets the two tests', () => {
      const d = new BargeInDetector();
      playing(d, 1600);
      expect(d.isSpeech(quietVoice, 1600, 'olga')).toBe(true);
      expect(d.isSpeech(quietVoice, 1620, 'olga')).toBe(false);
    });
  });

  describe('onsets: a first frame over the floor the two tests cannot yet tell from echo', () => {
    const reply = speechLikeSignal(2, 12_000);
    /** The reply played from 0 ms for `ms`. */
    function playing(d: BargeInDetector, ms: number): void {
      for (let k = 0; k < ms / 20; k++) d.notePlayed(frameOf(reply, k), k * 20);
    }
    const quietVoice = frameOf(reply, 66, dB(-18)); // -34 dBFS: under the echo line, over the floor

    it('is an onset after at least 50 ms under the floor, and the frames after it are not', () => {
      const d = new BargeInDetector();
      playing(d, 600);
      expect(d.judge(quietVoice, 600, 'olga')).toBe('onset');
      expect(d.judge(quietVoice, 620, 'olga')).toBe('none');
      expect(d.judge(quietVoice, 640, 'olga')).toBe('none');
      // One quiet frame inside a word is no new onset; 60 ms under the floor is.
      expect(d.judge(frameOf(reply, 66, dB(-40)), 660, 'olga')).toBe('none');
      expect(d.judge(quietVoice, 680, 'olga')).toBe('none');
      expect(d.judge(quietVoice, 740, 'olga')).toBe('onset');
      expect(d.judge(quietVoice, 600), 'no speaker named: nothing to compare with').toBe('none');
    });

    it('a frame heard while the bot was silent counts as sound before it; loud speech is speech, not an onset', () => {
      const d = new BargeInDetector();
      d.heard('olga', quietVoice, 580);
      playing(d, 600);
      expect(d.judge(quietVoice, 600, 'olga')).toBe('none');
      expect(d.judge(frameOf(reply, 66), 700, 'gus')).toBe('speech');
    });

    it('a speaker whose onset was not confirmed (suspectEcho) has no more onsets; their speech still counts', () => {
      const d = new BargeInDetector();
      playing(d, 600);
      d.suspectEcho('olga');
      expect(d.judge(quietVoice, 600, 'olga')).toBe('none');
      expect(d.judge(frameOf(reply, 66), 700, 'olga')).toBe('speech');
      expect(d.judge(quietVoice, 600, 'gus')).toBe('onset');
      d.reset();
      playing(d, 600);
      expect(d.judge(quietVoice, 600, 'olga'), 'a new call forgets it').toBe('onset');
    });
  });
});
