// The soak's summary rows (metric, measured, target), for the console table (bench/soak.ts) and the
// README table (scripts/soak-readme.ts), both from the same result JSON.
import { z } from 'zod';
import { LIVE_PROVIDERS, type LiveProviderName } from '../../main/core/config/index.ts';

/** One result file per provider: soak.json is Gemini's (the file older runs wrote), soak-<provider>.json the others'. */
export function soakResultFile(provider: LiveProviderName): string {
  return provider === 'gemini' ? 'soak.json' : `soak-${provider}.json`;
}

export const SOAK_TARGETS = {
  lost: 0,
  doubled: 0,
  rotationGapMs: 300,
  dropGapMs: 1000,
  deadlineGapMs: 1500,
  rssGrowthMb: 10,
} as const;

const gap = z.object({ exchanges: z.number(), maxGapMs: z.number().nullable() });
export const soakResultSchema = z.object({
  /** Absent in runs from before the OpenAI providers: those were Gemini's. */
  provider: z.enum(LIVE_PROVIDERS).default('gemini'),
  model: z.string().optional(),
  minutes: z.number(),
  rotations: z.number(),
  drops: z.number(),
  stalls: z.number(),
  voiceResets: z.number(),
  utterancesSent: z.number(),
  utterancesHeard: z.number(),
  repliesDoubled: z.number(),
  maxGapMs: z.number().nullable(),
  p95GapMs: z.number().nullable(),
  /** Absent in runs from before the session-deadline rules (late 2026). */
  deadlines: z.number().nullable().default(null),
  freshSessions: z.number().nullable().default(null),
  replayedMs: z.number().nullable().default(null),
  gapsByEvent: z.object({
    rotation: gap,
    drop: gap,
    stall: gap,
    voiceReset: gap,
    deadline: gap.default({ exchanges: 0, maxGapMs: null }),
  }),
  rssStartMb: z.number(),
  rssEndMb: z.number(),
  cpuPercent: z.number(),
  machine: z.object({ cores: z.number(), loadAverage1m: z.number(), loadAverage1mAtEnd: z.number() }).passthrough(),
});
export type SoakResult = z.infer<typeof soakResultSchema>;

const ms = (value: number | null): string => (value === null ? '—' : `${value} ms`);
const check = (ok: boolean): string => (ok ? ' ✓' : ' ✗');

export function soakRows(r: SoakResult): [metric: string, measured: string, target: string][] {
  const lost = r.utterancesSent - r.utterancesHeard;
  const growth = r.rssEndMb - r.rssStartMb;
  const rotation = r.gapsByEvent.rotation.maxGapMs;
  const drop = r.gapsByEvent.drop.maxGapMs;
  const deadline = r.gapsByEvent.deadline.maxGapMs;
  return [
    ['live model', `${r.provider}${r.model ? ` ${r.model}` : ''}`, ''],
    ['length (real time)', `${r.minutes} min`, ''],
    ['rotations / drops / stalls / voice resets', `${r.rotations} / ${r.drops} / ${r.stalls} / ${r.voiceResets}`, ''],
    [
      'utterances sent / heard by the model (lost)',
      `${r.utterancesSent} / ${r.utterancesHeard} (${lost})${check(lost === 0)}`,
      `lost ${SOAK_TARGETS.lost}`,
    ],
    ['replies doubled', `${r.repliesDoubled}${check(r.repliesDoubled === 0)}`, String(SOAK_TARGETS.doubled)],
    [
      'max gap at a planned rotation',
      `${ms(rotation)} (${r.gapsByEvent.rotation.exchanges} exchanges)${rotation === null ? '' : check(rotation <= SOAK_TARGETS.rotationGapMs)}`,
      `≤ ${SOAK_TARGETS.rotationGapMs} ms`,
    ],
    [
      'max gap after a drop',
      `${ms(drop)} (${r.gapsByEvent.drop.exchanges} exchanges)${drop === null ? '' : check(drop <= SOAK_TARGETS.dropGapMs)}`,
      `≤ ${SOAK_TARGETS.dropGapMs} ms`,
    ],
    ['deadlines', r.deadlines === null ? '—' : String(r.deadlines), '(--deadline-s: hard session deadlines met)'],
    [
      'freshSessions',
      r.freshSessions === null ? '—' : String(r.freshSessions),
      '(fresh seeded sessions after a refused resume or a renewal)',
    ],
    [
      'replayedMs',
      r.replayedMs === null ? '—' : `${r.replayedMs} ms`,
      '(user audio sent again after a transparent resume)',
    ],
    [
      'max gap at a hard session deadline',
      `${ms(deadline)} (${r.gapsByEvent.deadline.exchanges} exchanges)${deadline === null ? '' : check(deadline <= SOAK_TARGETS.deadlineGapMs)}`,
      `≤ ${SOAK_TARGETS.deadlineGapMs} ms`,
    ],
    [
      'max gap after a stall / a voice reset',
      `${ms(r.gapsByEvent.stall.maxGapMs)} / ${ms(r.gapsByEvent.voiceReset.maxGapMs)}`,
      '(stall, gemini only: detected after 5 s of silence)',
    ],
    ['gap p95 / max, all exchanges', `${ms(r.p95GapMs)} / ${ms(r.maxGapMs)}`, ''],
    [
      'core RSS start → end (growth)',
      `${r.rssStartMb} → ${r.rssEndMb} MB (${growth >= 0 ? '+' : ''}${growth.toFixed(1)})${check(growth <= SOAK_TARGETS.rssGrowthMb)}`,
      `≤ +${SOAK_TARGETS.rssGrowthMb} MB`,
    ],
    ['core CPU', `${r.cpuPercent} % of one core`, ''],
    [
      'machine load (1 min avg, start → end)',
      `${r.machine.loadAverage1m} → ${r.machine.loadAverage1mAtEnd} on ${r.machine.cores} cores`,
      '(shared with other work)',
    ],
  ];
}
