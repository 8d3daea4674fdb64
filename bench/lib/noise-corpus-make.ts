// node bench/lib/noise-corpus-make.ts — rewrites test/fixtures/noise-corpus from bench/lib/noise-corpus.ts
// (every clip is synthesised from its seed; nothing is downloaded or recorded). CI never runs this:
// it reads the committed files, and test/unit/noise-corpus.test.ts checks they match the code.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NOISE_CLIPS, NOISE_RATE, noiseLabels, synthesiseNoiseClip } from './noise-corpus.ts';
import { encodeWav } from './wav.ts';

const OUT = fileURLToPath(new URL('../../test/fixtures/noise-corpus/', import.meta.url));
mkdirSync(OUT, { recursive: true });
for (const spec of NOISE_CLIPS)
  writeFileSync(OUT + spec.file, encodeWav({ rate: NOISE_RATE, samples: synthesiseNoiseClip(spec) }));
const labels = {
  description:
    'Noise corpus for phantom turns (issue #52 item 5), synthesised by bench/lib/noise-corpus.ts from the seeds below (regenerate: node bench/lib/noise-corpus-make.ts). label noise: must open no turn and cut no reply; label speech: a control that must open the gate. 16 kHz mono s16; soundStart = sample where the sound begins; -66 dBFS RMS floor noise under everything.',
  ...noiseLabels(),
};
writeFileSync(OUT + 'labels.json', `${JSON.stringify(labels, null, 1)}\n`);
console.log(`wrote ${NOISE_CLIPS.length} clips to ${OUT}`);
