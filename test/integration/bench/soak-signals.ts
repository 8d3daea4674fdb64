// What the soak's bench-fake tests say and wait on: a pitch-coded phrase as the voice gate hands it
// on (16 kHz mono), and a bounded wait.
import { phraseHz } from '../../../main/fakes/shared/phrases.ts';

/** Phrase k at 16 kHz mono (the fake's phrase reader names it by its pitch). */
export function phrase16k(k: number, ms = 1200): Int16Array {
  const out = new Int16Array(16 * ms);
  for (let i = 0; i < out.length; i++) out[i] = Math.round(9000 * Math.sin((2 * Math.PI * phraseHz(k) * i) / 16_000));
  return out;
}

export async function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
