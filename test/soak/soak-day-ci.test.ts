// The day soak's 10-minute `--short` profile (it runs in real time): every fault at once
// (bench/soak-day.ts, issue #55), run as `npm run soak:day -- --short` runs it, in its own process.
// It asserts what a user would notice and what the receivers counted: no word lost, no reply
// doubled or stale, every reminder delivered exactly once, the call still connected at the end.
// Never timing, CPU or memory figures (those are reported in the JSON, not asserted).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const SOAK_DAY = fileURLToPath(new URL('../../bench/soak-day.ts', import.meta.url));
// Held back from CI (docs/performance.md, "A working day's call"): the first runs lost words (12 of 61
// in run 1, traced and fixed one cause at a time). Run 12's and 13-14's losses are traced and fixed
// (2026-12-03: the harness's barge-in, the stall watch, a handle that forgot unanswered speech, the
// held-speech hand-over); run 15 heard every word of the owner's on the final call path. What keeps
// it out of CI now is evidence, not a known loss: clean short runs at light load only, none yet
// under the whole suite's load on two cores, where a loss would fail CI and nothing would land.
// Its time fits CI's budget (about 10.5 min, started first). It runs with LVB_SOAK_DAY=1.
const enabled = process.env.LVB_SOAK_DAY === '1';
if (!enabled)
  console.log(
    'soak-day-ci: skipped — held back from CI (docs/performance.md, "A working day\'s call"); run it with LVB_SOAK_DAY=1, or `npm run soak:day -- --short`',
  );

const resultSchema = z.object({
  minutes: z.number(),
  wordsSent: z.number(),
  wordsHeard: z.number(),
  repliesDoubled: z.number(),
  repliesStale: z.number(),
  remindersDue: z.number(),
  remindersLost: z.number(),
  remindersDuplicated: z.number(),
  remindersByMode: z.record(z.string(), z.object({ due: z.number() })),
  faults: z
    .object({
      deadlines: z.number(),
      drops: z.number(),
      outages: z.number(),
      voiceResets: z.number(),
      membershipChanges: z.number(),
    })
    .passthrough(),
  health: z.object({ bridge: z.string() }),
});

describe.runIf(enabled)('10-minute day soak, every fault at once (CI)', () => {
  it(
    're-keys, deadlines, drops, an outage, parks and reminders together: 0 words lost, 0 replies doubled, every reminder exactly once',
    () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'lvb-soak-day-ci-'));
      const out = path.join(dir, 'soak-day.json');
      try {
        const run = spawnSync(process.execPath, [SOAK_DAY, '--short', '--out', out], {
          encoding: 'utf8',
          timeout: 14 * 60_000,
        });
        console.log(run.stdout);
        expect(run.status, run.stderr).toBe(0);
        const result = resultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
        // The faults happened (else the zeros below would say nothing).
        expect(result.faults.deadlines).toBeGreaterThanOrEqual(1);
        expect(result.faults.drops).toBeGreaterThanOrEqual(1);
        expect(result.faults.outages).toBe(1);
        expect(result.faults.voiceResets).toBeGreaterThanOrEqual(1);
        expect(result.faults.membershipChanges).toBeGreaterThanOrEqual(3);
        expect(Object.values(result.remindersByMode).every((mode) => mode.due >= 1)).toBe(true);
        expect(result.wordsSent).toBeGreaterThan(30);
        expect(result.wordsSent - result.wordsHeard).toBe(0);
        expect(result.repliesDoubled).toBe(0);
        expect(result.repliesStale).toBe(0);
        expect(result.remindersLost).toBe(0);
        expect(result.remindersDuplicated).toBe(0);
        expect(result.health.bridge).toBe('connected');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    15 * 60_000,
  );
});
