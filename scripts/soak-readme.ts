// npm run soak:readme — writes the soak table into README.md between the soak markers, from
// bench/results/soak.json (README figures come from the benchmark's JSON, never typed by hand).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { soakResultSchema, soakRows } from '../bench/lib/soak-report.ts';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const RESULT = fileURLToPath(new URL('../bench/results/soak.json', import.meta.url));
const BEGIN = '<!-- soak:begin (npm run soak:readme) -->';
const END = '<!-- soak:end -->';

const result = soakResultSchema.parse(JSON.parse(readFileSync(RESULT, 'utf8')));
const table = ['| metric | measured | target |', '| --- | --- | --- |', ...soakRows(result).map((row) => `| ${row.join(' | ')} |`)].join('\n');
const readme = readFileSync(README, 'utf8');
const from = readme.indexOf(BEGIN);
const to = readme.indexOf(END);
if (from < 0 || to < from) throw new Error(`README.md has no ${BEGIN} … ${END} block`);
writeFileSync(README, `${readme.slice(0, from + BEGIN.length)}\n${table}\n${readme.slice(to)}`);
console.log(`README.md soak table updated from ${RESULT}`);
