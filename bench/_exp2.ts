import { speechLikeSignal } from '../main/demo/simulated-call.ts';
import { loadOpus } from '../main/core/voice/opus.ts';
const FRAME = 1920;
const owner = speechLikeSignal(1.6);
const codec = loadOpus().create();
const db = (a: Int16Array, from: number, to: number) => { let s = 0; for (let i = from; i < to; i++) s += a[i]! * a[i]!; return (10 * Math.log10(s / (to - from) / 32768 ** 2)).toFixed(1); };
for (let k = 0; k < 4; k++) {
  const fr = new Int16Array(owner.subarray(k * FRAME, (k + 1) * FRAME));
  const dec = new Int16Array(new Uint8Array(codec.decode(codec.encode(Buffer.from(fr.buffer)))).buffer);
  console.log(k, 'orig last10', db(fr, 960, 1920), 'dec first10', db(dec, 0, 960), 'dec last10', db(dec, 960, 1920), 'dec last5', db(dec, 1440, 1920));
}
