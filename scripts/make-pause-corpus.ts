// node scripts/make-pause-corpus.ts — regenerates test/fixtures/pause-corpus (needs `espeak-ng`:
// Debian `apt-get install -y espeak-ng`; CI never runs this, it reads the committed files).
//
// A labelled corpus for the voice gate's end of turn (issue #44): each clip is one turn of a
// speaker who pauses mid-sentence. Phrases are synthesised one by one (several voices and rates),
// trimmed to their sound, and joined with inserted silences of 200-900 ms, labelled "pause, not a
// turn end"; after the last phrase comes the true end of the turn and 1.2 s of silence. A faint
// deterministic noise (-66 dBFS RMS) runs under the whole clip, as a quiet microphone leaves it.
// Output: 16 kHz mono 16-bit WAV per clip and labels.json (sample indexes at 16 kHz).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeWav, encodeWav } from '../bench/lib/wav.ts';

const OUT = fileURLToPath(new URL('../test/fixtures/pause-corpus/', import.meta.url));
const RATE = 16_000;
const LEAD_MS = 150;
const TAIL_MS = 1000;
const NOISE_RMS = 16; // ≈ -66 dBFS
/** A 10 ms frame counts as sound above this RMS (≈ -54 dBFS) when trimming a synthesised phrase. */
const TRIM_RMS = 65;

interface ClipSpec {
  voice: string;
  wpm: number;
  phrases: string[];
  /** Inserted silence after each phrase but the last, ms. */
  pausesMs: number[];
}

// Pauses: 250, 400, 600, 800 ms seven times each, 200 and 900 ms once (30 in all), spread over
// voices and rates so no length belongs to one voice.
const CLIPS: ClipSpec[] = [
  {
    voice: 'en-us',
    wpm: 175,
    phrases: ['so I was thinking', 'that we could', 'maybe go to the', 'park tomorrow.'],
    pausesMs: [250, 600, 800],
  },
  {
    voice: 'en-gb',
    wpm: 150,
    phrases: ['can you tell me', 'what the weather', 'will be like', 'on Saturday?'],
    pausesMs: [400, 250, 900],
  },
  {
    voice: 'en-us+f3',
    wpm: 190,
    phrases: ['I need to book', 'a table for', 'four people', 'at seven.'],
    pausesMs: [800, 400, 250],
  },
  {
    voice: 'en-gb-x-rp',
    wpm: 140,
    phrases: ['the thing is', 'I am not sure', 'whether the train', 'leaves at nine.'],
    pausesMs: [600, 800, 400],
  },
  {
    voice: 'en-us+m3',
    wpm: 210,
    phrases: ['remind me to', 'call my sister', 'when I get', 'home tonight.'],
    pausesMs: [400, 200, 600],
  },
  {
    voice: 'en+f2',
    wpm: 165,
    phrases: ['what do you think', 'about moving the', 'meeting to', 'next Tuesday?'],
    pausesMs: [800, 600, 250],
  },
  {
    voice: 'en-029',
    wpm: 180,
    phrases: ['play something', 'relaxing like', 'the album from', 'last night.'],
    pausesMs: [400, 600, 800],
  },
  {
    voice: 'en-us+f4',
    wpm: 145,
    phrases: ['we should probably', 'order more', 'coffee before', 'Monday.'],
    pausesMs: [600, 250, 400],
  },
  {
    voice: 'en-gb-scotland',
    wpm: 200,
    phrases: ['how long does it', 'take to drive', 'from here to', 'Edinburgh?'],
    pausesMs: [250, 800, 600],
  },
  {
    voice: 'en-gb+m2',
    wpm: 185,
    phrases: ['tell the others', 'that I will be', 'about ten minutes', 'late.'],
    pausesMs: [800, 250, 400],
  },
];

function synthesise(text: string, voice: string, wpm: number, scratch: string): Int16Array {
  const file = path.join(scratch, 'phrase.wav');
  execFileSync('espeak-ng', ['-v', voice, '-s', String(wpm), '-w', file, text]);
  const { rate, samples } = decodeWav(readFileSync(file));
  return resample(samples, rate, RATE);
}

/** Windowed-sinc resampling (Hann, 32 taps, cut-off 7.2 kHz): clean enough for an energy gate. */
function resample(input: Int16Array, from: number, to: number): Int16Array {
  const out = new Int16Array(Math.floor((input.length * to) / from));
  const cutoff = 7200 / from; // cycles per input sample
  const half = 16;
  for (let n = 0; n < out.length; n++) {
    const x = (n * from) / to;
    const centre = Math.floor(x);
    let sum = 0;
    for (let k = centre - half + 1; k <= centre + half; k++) {
      if (k < 0 || k >= input.length) continue;
      const d = x - k;
      const sinc = d === 0 ? 1 : Math.sin(2 * Math.PI * cutoff * d) / (2 * Math.PI * cutoff * d);
      const window = 0.5 + 0.5 * Math.cos((Math.PI * d) / half);
      sum += input[k]! * 2 * cutoff * sinc * window;
    }
    out[n] = Math.max(-32768, Math.min(32767, Math.round(sum)));
  }
  return out;
}

/** The phrase from its first to its last 10 ms frame with sound. */
function trim(pcm: Int16Array): Int16Array {
  const frame = RATE / 100;
  const loud: number[] = [];
  for (let f = 0; (f + 1) * frame <= pcm.length; f++) {
    let sum = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) sum += pcm[i]! * pcm[i]!;
    if (Math.sqrt(sum / frame) > TRIM_RMS) loud.push(f);
  }
  if (!loud.length) throw new Error('espeak-ng produced no sound');
  return pcm.slice(loud[0]! * frame, (loud.at(-1)! + 1) * frame);
}

function main(): void {
  const scratch = mkdtempSync(path.join(tmpdir(), 'pause-corpus-'));
  mkdirSync(OUT, { recursive: true });
  let seed = 44;
  const noise = () => {
    // Deterministic (xorshift32), uniform ±√3·RMS: the same corpus on every run.
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return ((seed >>> 0) / 2 ** 32 - 0.5) * 2 * Math.sqrt(3) * NOISE_RMS;
  };
  const clips = CLIPS.map((spec, c) => {
    const phrases = spec.phrases.map((p) => trim(synthesise(p, spec.voice, spec.wpm, scratch)));
    const ms = (v: number) => (v * RATE) / 1000;
    const total =
      ms(LEAD_MS) +
      phrases.reduce((n, p) => n + p.length, 0) +
      spec.pausesMs.reduce((n, p) => n + ms(p), 0) +
      ms(TAIL_MS);
    const samples = new Int16Array(total);
    const speech: [number, number][] = [];
    const pauses: { start: number; end: number; ms: number }[] = [];
    let at = ms(LEAD_MS);
    phrases.forEach((phrase, i) => {
      samples.set(phrase, at);
      speech.push([at, at + phrase.length]);
      at += phrase.length;
      const pause = spec.pausesMs[i];
      if (pause !== undefined) {
        pauses.push({ start: at, end: at + ms(pause), ms: pause });
        at += ms(pause);
      }
    });
    for (let i = 0; i < samples.length; i++)
      samples[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! + noise())));
    const file = `clip-${String(c + 1).padStart(2, '0')}.wav`;
    writeFileSync(path.join(OUT, file), encodeWav({ rate: RATE, samples }));
    return {
      file,
      voice: spec.voice,
      wpm: spec.wpm,
      text: spec.phrases.join(' … '),
      samples: samples.length,
      speech,
      pauses,
      endOfSpeech: speech.at(-1)![1],
    };
  });
  const labels = {
    description:
      "Pause corpus for the voice gate's end of turn (issue #44), made by scripts/make-pause-corpus.ts with espeak-ng. One turn per clip: phrases joined by inserted pauses (labelled: not a turn end), the true end of the turn at endOfSpeech, then 1 s of silence. Sample indexes at `rate`; speech = [start, end) of each phrase, trimmed to its sound (10 ms RMS > -54 dBFS); noise at -66 dBFS RMS under everything.",
    rate: RATE,
    tailMs: TAIL_MS,
    clips,
  };
  writeFileSync(path.join(OUT, 'labels.json'), JSON.stringify(labels, null, 1) + '\n');
  rmSync(scratch, { recursive: true, force: true });
  const seconds = clips.reduce((n, c) => n + c.samples, 0) / RATE;
  process.stdout.write(
    `wrote ${clips.length} clips (${seconds.toFixed(1)} s, ${clips.reduce((n, c) => n + c.pauses.length, 0)} pauses) to ${path.relative(process.cwd(), OUT)}\n`,
  );
}

main();
