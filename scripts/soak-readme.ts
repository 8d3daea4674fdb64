// npm run soak:readme — writes the soak table into README.md between the soak markers, from the
// soak result of each provider that has one (bench/results/soak.json for gemini,
// soak-<provider>.json for the others): one column per provider, the targets beside them. README
// figures come from the benchmark's JSON, never typed by hand.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LIVE_PROVIDERS } from '../main/core/config/index.ts';
import { soakResultFile, soakResultSchema, soakRows } from '../bench/lib/soak-report.ts';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const RESULTS = fileURLToPath(new URL('../bench/results/', import.meta.url));
const BEGIN = '<!-- soak:begin (npm run soak:readme) -->';
const END = '<!-- soak:end -->';

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
const table = [header, header.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
const readme = readFileSync(README, 'utf8');
const from = readme.indexOf(BEGIN);
const to = readme.indexOf(END);
if (from < 0 || to < from) throw new Error(`README.md has no ${BEGIN} … ${END} block`);
writeFileSync(README, `${readme.slice(0, from + BEGIN.length)}\n${table}\n${readme.slice(to)}`);
console.log(`README.md soak table updated from ${runs.map((r) => r.file).join(', ')}`);
