// npm run soak:readme — writes the soak table into README.md between the soak markers, from the
// soak result of each provider that has one (bench/results/soak.json for gemini,
// soak-<provider>.json for the others): one column per provider, the targets beside them; and the
// day soak's table (bench/results/soak-day.json, npm run soak:day) between the soak-day markers,
// totals then one row per window. README figures come from the benchmark's JSON, never typed by hand.
// --check: write nothing, exit 1 when README.md differs from what the results make.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LIVE_PROVIDERS } from '../main/core/config/index.ts';
import { soakResultFile, soakResultSchema, soakRows } from '../bench/lib/soak-report.ts';
import { soakDayResultSchema, soakDayRows, type SoakDayResult } from '../bench/lib/soak-day-report.ts';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const RESULTS = fileURLToPath(new URL('../bench/results/', import.meta.url));
const BEGIN = '<!-- soak:begin (npm run soak:readme) -->';
const END = '<!-- soak:end -->';
const DAY_BEGIN = '<!-- soak-day:begin (npm run soak:readme) -->';
const DAY_END = '<!-- soak-day:end -->';
const DAY_FILE = `${RESULTS}soak-day.json`;

const markdown = (rows: string[][]): string => rows.map((cells) => `| ${cells.join(' | ')} |`).join('\n');

function between(text: string, begin: string, end: string, body: string): string {
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md has no ${begin} … ${end} block`);
  return `${text.slice(0, from + begin.length)}\n${body}\n${text.slice(to)}`;
}

/** The day soak: totals with their targets, then one row per window. */
function dayTables(r: SoakDayResult): string {
  const totals = markdown([['metric', 'measured (soak-day.json)', 'target'], ['---', '---', '---'], ...soakDayRows(r)]);
  const header = [
    'window (min)',
    'words sent / heard',
    'replies doubled',
    'reminders due / delivered',
    'RSS MB (last)',
    'heap MB (max)',
    'fds (max)',
    'active resources (max)',
    'CPU %',
    '/health p99 ms',
    'model sockets (max)',
  ];
  const rows = r.windows.map((w) => [
    `${w.fromMin}–${Math.round(w.toMin * 10) / 10}`,
    `${w.wordsSent} / ${w.wordsHeard}`,
    String(w.repliesDoubled),
    `${w.remindersDue} / ${w.remindersDelivered}`,
    String(w.rssMb.last),
    String(w.heapMbMax ?? '—'),
    String(w.fdsMax),
    String(w.activeResourcesMax ?? '—'),
    String(w.cpuPercent),
    String(w.healthRoundTripP99Ms ?? '—'),
    String(w.modelSocketsOpenMax),
  ]);
  return `${totals}\n\n${markdown([header, header.map(() => '---'), ...rows])}`;
}

const runs = LIVE_PROVIDERS.flatMap((provider) => {
  const file = `${RESULTS}${soakResultFile(provider)}`;
  if (!existsSync(file)) return [];
  const result = soakResultSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  if (result.provider !== provider) throw new Error(`${file} holds a ${result.provider} soak, not ${provider}`);
  return [{ provider, file: soakResultFile(provider), rows: soakRows(result) }];
});
if (runs.length === 0) throw new Error(`no soak results in ${RESULTS}: run npm run soak first`);

// Every provider's rows are the same metrics in the same order; the target column is the first's.
const header = ['metric', ...runs.map((r) => `${r.provider} (${r.file})`), 'target'];
const lines = runs[0]!.rows.map((row, i) => [row[0], ...runs.map((r) => r.rows[i]![1]), row[2]]);
let readme = between(readFileSync(README, 'utf8'), BEGIN, END, markdown([header, header.map(() => '---'), ...lines]));
const day = existsSync(DAY_FILE) ? soakDayResultSchema.parse(JSON.parse(readFileSync(DAY_FILE, 'utf8'))) : null;
readme = between(readme, DAY_BEGIN, DAY_END, day ? dayTables(day) : '(no day soak yet: npm run soak:day)');
const sources = [...runs.map((r) => r.file), ...(day ? ['soak-day.json'] : [])].join(', ');
if (process.argv.includes('--check')) {
  // A hand edit inside the soak markers, or a result re-run without regenerating README, fails CI.
  if (readme !== readFileSync(README, 'utf8')) {
    console.error(`README.md's soak tables are not what ${sources} make: run npm run soak:readme`);
    process.exit(1);
  }
} else {
  writeFileSync(README, readme);
  console.log(`README.md soak tables updated from ${sources}`);
}
