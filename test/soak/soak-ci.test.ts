// The 5-minute soak, in CI only (it runs in real time: 5 minutes of call, plus start-up), and a
// 2-minute one on each OpenAI provider. It runs `npm run soak` exactly as a user would, in its own
// process, and asserts what a user would notice: no utterance lost, no reply doubled, the call still
// connected at the end.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const SOAK = fileURLToPath(new URL('../../bench/soak.ts', import.meta.url));
const inCi = process.env.CI === 'true';
if (!inCi)
  console.log(
    'soak-ci: the soaks run only with CI=true (~6 minutes of wall time for Gemini, ~2.5 for each OpenAI provider); run `npm run soak` by hand',
  );

const resultSchema = z.object({
  provider: z.string(),
  minutes: z.number(),
  rotations: z.number(),
  drops: z.number(),
  utterancesSent: z.number(),
  utterancesHeard: z.number(),
  repliesDoubled: z.number(),
  maxGapMs: z.number().nullable(),
  health: z.object({ bridge: z.string() }),
});

describe.runIf(inCi)('5-minute soak (CI)', () => {
  it(
    'rotations every 60 s and a drop and a stall and a voice reset: 0 utterances lost, 0 replies doubled',
    () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'lvb-soak-ci-'));
      const out = path.join(dir, 'soak.json');
      try {
        const run = spawnSync(
          process.execPath,
          [
            SOAK,
            '--minutes',
            '5',
            '--rotate-s',
            '60',
            '--drop-every-s',
            '150',
            '--stall-every-s',
            '200',
            '--voice-reset-every-s',
            '170',
            '--out',
            out,
          ],
          {
            encoding: 'utf8',
            timeout: 9 * 60_000,
          },
        );
        console.log(run.stdout);
        expect(run.status, run.stderr).toBe(0);
        const result = resultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
        expect(result.rotations).toBeGreaterThanOrEqual(3);
        expect(result.drops).toBeGreaterThanOrEqual(1);
        expect(result.utterancesSent).toBeGreaterThan(20);
        expect(result.utterancesSent - result.utterancesHeard).toBe(0);
        expect(result.repliesDoubled).toBe(0);
        expect(result.health.bridge).toBe('connected'); // at the end of the call, before /stop
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    10 * 60_000,
  );
});

describe.runIf(inCi).each(['openai-realtime', 'openai-live'])('2-minute soak on %s (CI)', (provider) => {
  it(
    'sessions expiring every 40 s and a drop: 0 utterances lost, 0 replies doubled',
    () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'lvb-soak-ci-'));
      const out = path.join(dir, 'soak.json');
      try {
        const run = spawnSync(
          process.execPath,
          [SOAK, '--provider', provider, '--minutes', '2', '--rotate-s', '40', '--drop-every-s', '50', '--out', out],
          {
            encoding: 'utf8',
            timeout: 5 * 60_000,
          },
        );
        console.log(run.stdout);
        expect(run.status, run.stderr).toBe(0);
        const result = resultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
        expect(result.provider).toBe(provider);
        expect(result.rotations).toBeGreaterThanOrEqual(1);
        expect(result.drops).toBeGreaterThanOrEqual(1);
        expect(result.utterancesSent).toBeGreaterThan(8);
        expect(result.utterancesSent - result.utterancesHeard).toBe(0);
        expect(result.repliesDoubled).toBe(0);
        expect(result.health.bridge).toBe('connected');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    6 * 60_000,
  );
});
