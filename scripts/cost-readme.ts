// node scripts/cost-readme.ts — writes the bench:cost table into README.md between the cost markers,
// from bench/results/cost.json (validated). README figures come from the benchmark's JSON, never
// typed by hand.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { costTableMarkdown } from '../bench/cost.ts';
import { BENCH_PROVIDERS, type BenchProvider } from '../bench/lib/model-fakes.ts';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const RESULT = fileURLToPath(new URL('../bench/results/cost.json', import.meta.url));
const BEGIN = '<!-- cost:begin (npm run bench:cost, then node scripts/cost-readme.ts) -->';
const END = '<!-- cost:end -->';

const ms = z.number().nullable();
const resultSchema = z.object({
  generatedAt: z.string(),
  scale: z.number().positive().max(1),
  parkAfterSeconds: z.number(),
  note: z.string(),
  rows: z.array(
    z
      .object({
        provider: z.enum(BENCH_PROVIDERS as [BenchProvider, ...BenchProvider[]]),
        parking: z.enum(['on', 'off']),
        callSeconds: z.number(),
        speechSeconds: z.number(),
        peopleSpeechSeconds: z.number(),
        modelSpeechSeconds: z.number(),
        modelConnectedSeconds: z.number(),
        billedSecondsEstimate: z.number(),
        parks: z.number().int(),
        wakes: z.number().int(),
        wakeToReadyP95Ms: ms,
        wakeToFirstAudioP95Ms: ms,
        wordsLost: z.number().int(),
        turnSilencePerUtteranceMeanMs: ms.optional(),
        turnSilencePerUtteranceMaxMs: ms.optional(),
        turnSilenceCapMs: z.number().optional(),
        chatReachedModel: z.number().int(),
        parkAfterLastVoiceMaxS: z.number().nullable(),
        costUsd: z.number(),
      })
      .strict(),
  ),
});

const result = resultSchema.parse(JSON.parse(readFileSync(RESULT, 'utf8')));
const intro = `Run ${result.generatedAt.slice(0, 10)}, six calls at once: ${result.note}`;
const readme = readFileSync(README, 'utf8');
const from = readme.indexOf(BEGIN);
const to = readme.indexOf(END);
if (from < 0 || to < from) throw new Error(`README.md has no ${BEGIN} … ${END} block`);
writeFileSync(
  README,
  `${readme.slice(0, from + BEGIN.length)}\n${intro}\n\n${costTableMarkdown(result)}\n${readme.slice(to)}`,
);
console.log('README.md cost table updated from bench/results/cost.json');
