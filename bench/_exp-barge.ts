import { BargeInDetector } from '../main/core/bridge/barge-in.ts';
import { speechLikeSignal } from '../main/demo/simulated-call.ts';
import { voicedReply } from './lib/speech-like.ts';
import { loadOpus } from '../main/core/voice/opus.ts';

const reply24 = voicedReply(6000);
// 24k mono -> 48k stereo by repetition
const reply48 = new Int16Array(reply24.length * 4);
for (let i = 0; i < reply24.length; i++) { const v = reply24[i]!; reply48.set([v, v, v, v], 4 * i); }
const FRAME = 1920;
const results: number[] = [];
const codecF = loadOpus();
for (const secs of [1.6, 2.2, 1.9, 2.5, 1.5, 2.0]) {
  for (let off = 450; off <= 850; off += 20) {
    for (const phase of [0, 7, 13]) {
      const det = new BargeInDetector();
      const owner = speechLikeSignal(secs);
      const codec = codecF.create();
      let now = 0;
      const replyFrames = Math.floor((off + phase) / 20);
      for (let f = 0; f < replyFrames; f++) { det.notePlayed(reply48.subarray(f * FRAME, (f + 1) * FRAME), now); now += 20; }
      let fired = -1;
      for (let k = 0; k < 10; k++) {
        const fr = new Int16Array(owner.subarray(k * FRAME, (k + 1) * FRAME));
        const dec = new Int16Array(new Uint8Array(codec.decode(codec.encode(Buffer.from(fr.buffer)))).buffer);
        if (det.isSpeech(dec, now + phase / 10, 'owner')) { fired = k; break; }
        const f = replyFrames + k;
        det.notePlayed(reply48.subarray(f * FRAME, (f + 1) * FRAME), now); now += 20;
      }
      results.push(fired);
      codec.destroy();
    }
  }
}
const hist = new Map<number, number>();
for (const r of results) hist.set(r, (hist.get(r) ?? 0) + 1);
console.log([...hist.entries()].sort((a, b) => a[0] - b[0]));
