// Scripted "speech" for calls on the fakes: each utterance is a tone of its own frequency, and a
// fake transcriber "hears" the sentence scripted for the loudest tone in the audio it is given.
import { amplitudeAt, stereoSine } from '../../bench/lib/tone-analysis.ts';

/** One speaker's utterance as the fake Discord client sends it: a 48 kHz stereo tone peaking at -11 dBFS. */
export function toneUtterance(seconds: number, hz: number): Int16Array {
  return stereoSine(48_000, seconds, hz, 9000);
}

/** A fake transcriber of 24 kHz audio: the sentence of the loudest scripted tone, or '' when none is clearly there. */
export function toneTranscriber(sentences: Record<number, string>): (pcm24k: Int16Array) => string {
  const tones = Object.keys(sentences).map(Number);
  return (pcm24k) => {
    const [loudest] = tones.map((hz) => ({ hz, a: amplitudeAt(pcm24k, hz, 24_000) })).sort((x, y) => y.a - x.a);
    return loudest && loudest.a > 500 ? sentences[loudest.hz]! : '';
  };
}
