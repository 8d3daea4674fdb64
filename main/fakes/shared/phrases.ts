// Pitch-coded phrases: how the soak's fake user "says" numbered phrases and how every fake model
// "transcribes" them back. Phrase k is a tone at phraseHz(k); a fake model measures the pitch of the
// utterance it received (at its own input rate: 16 kHz for Gemini, 24 kHz for OpenAI) and so tells
// which phrase it heard. One reader for every provider, so the providers' soaks compare alike.

/** Distinct phrases (pitches); phrase n of a run is n mod PHRASES. */
export const PHRASES = 12;
const PHRASE_S = 1.2;

export function phraseHz(k: number): number {
  return 250 + 125 * k;
}

/** Phrase k as the fake Discord user sends it: a tone at phraseHz(k) with 10 ms fades, 48 kHz stereo. */
export function phraseSignal(k: number): Int16Array {
  const frames = Math.round(PHRASE_S * 48_000);
  const out = new Int16Array(frames * 2);
  const fade = 480;
  for (let i = 0; i < frames; i++) {
    const env = Math.min(1, i / fade, (frames - 1 - i) / fade);
    const v = Math.round(9000 * env * Math.sin((2 * Math.PI * phraseHz(k) * i) / 48_000));
    out[2 * i] = v;
    out[2 * i + 1] = v;
  }
  return out;
}

/**
 * Pitch of `pcm[from, to)` (mono at `rate` Hz) from the spacing of rising zero crossings (interpolated
 * to a fraction of a sample): the median spacing, then the mean of the spacings within `tolerance` of
 * it. `steady`: the share of spacings that were within it (two summed tones give uneven spacings).
 * Null: fewer than 8 crossings.
 */
export function crossingPitch(
  pcm: Int16Array,
  from: number,
  to: number,
  rate: number,
  tolerance: number,
): { hz: number; steady: number } | null {
  const spacings: number[] = [];
  let lastCrossing = -1;
  let peak = 0;
  for (let i = from + 1; i < to; i++) {
    const a = pcm[i - 1]!;
    const b = pcm[i]!;
    peak = Math.max(peak, Math.abs(b));
    if (a < 0 && b >= 0) {
      const at = i - 1 + a / (a - b);
      if (lastCrossing >= 0 && peak >= 200) spacings.push(at - lastCrossing);
      lastCrossing = at;
      peak = 0;
    }
  }
  if (spacings.length < 8) return null;
  const median = [...spacings].sort((x, y) => x - y)[spacings.length >> 1]!;
  const near = spacings.filter((d) => Math.abs(d - median) <= tolerance * median);
  return { hz: rate / (near.reduce((sum, d) => sum + d, 0) / near.length), steady: near.length / spacings.length };
}

/** The phrase whose pitch is nearest the one measured in `pcm` (mono at `rate` Hz); -1: none. */
export function transcribePhrase(pcm: Int16Array, rate: number): number {
  // A gap the call put into the utterance, the gate's hangover and the fades at its ends make
  // outlying spacings (or none), which neither the median nor the mean around it (15 %) sees;
  // counting crossings over a length does.
  const pitch = crossingPitch(pcm, 0, pcm.length, rate, 0.15);
  if (!pitch) return -1;
  const k = Math.round((pitch.hz - 250) / 125);
  return k >= 0 && k < PHRASES ? k : -1;
}
