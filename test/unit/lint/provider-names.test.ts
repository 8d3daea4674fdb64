// Providers are plug-ins (issue #51): no file outside a provider's own places branches on its name.
// A provider's places are its declaration (main/core/providers/<file>.ts), its adapter folder
// (main/core/model/<adapter>/) and its fakes (main/fakes/<first folder of the adapter>/). Anywhere else
// in main/ and renderer/, a comparison with a provider's name (`=== 'gemini'`, `case 'openai-live':`)
// is an error; in main/core and renderer/ so is the name as a literal at all (a table keyed by name
// would silently leave a new provider out). The checker is shown to fire on such code first.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../../main/core/providers/index.ts';

const DECLARATION_FILES: Record<string, string> = Object.fromEntries(
  readdirSync('main/core/providers')
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => {
      const text = readFileSync(path.join('main/core/providers', f), 'utf8');
      return PROVIDERS.filter((p) => new RegExp(`name: '${p.name}'`).test(text)).map((p) => [
        p.name,
        `main/core/providers/${f}`,
      ]);
    }),
);

function ownPlaces(name: string): string[] {
  const provider = PROVIDERS.find((p) => p.name === name)!;
  return [
    DECLARATION_FILES[name] ?? '',
    `main/core/model/${provider.adapter}/`,
    `main/fakes/${provider.adapter.split('/')[0]}/`,
  ].filter(Boolean);
}

const quoted = (name: string) => `['"\`]${name.replace(/[-/]/g, '\\$&')}['"\`]`;

/** Problems in one file's text, for the provider names given (plus any 'openai-…' literal, the example). */
export function providerNameProblems(file: string, text: string, names: readonly string[]): string[] {
  const problems: string[] = [];
  const strict = file.startsWith('main/core/') || file.startsWith('renderer/');
  for (const name of [...names, 'openai-[a-z-]+']) {
    const own = names.includes(name)
      ? ownPlaces(name)
      : PROVIDERS.filter((p) => p.name.startsWith('openai-')).flatMap((p) => ownPlaces(p.name));
    if (own.some((place) => file === place || file.startsWith(place))) continue;
    const q = quoted(name);
    const comparison = new RegExp(`(?:[=!]==?\\s*${q}|${q}\\s*[=!]==?|case\\s+${q}\\s*:)`, 'g');
    const literal = new RegExp(q, 'g');
    for (const [i, line] of text.split('\n').entries()) {
      if (/^\s*(?:\/\/|\/?\*)/.test(line)) continue; // comments name things, they do not branch
      if (comparison.test(line))
        problems.push(`${file}:${i + 1}: compares with the provider name ${name}: ${line.trim()}`);
      else if (strict && literal.test(line))
        problems.push(`${file}:${i + 1}: names the provider ${name}: ${line.trim()}`);
      comparison.lastIndex = 0;
      literal.lastIndex = 0;
    }
  }
  return problems;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const file = path.join(dir, entry);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return /\.(ts|html|js)$/.test(entry) ? [file.split(path.sep).join('/')] : [];
  });
}

const NAMES = PROVIDERS.map((p) => p.name);

describe('provider names outside their plug-in', () => {
  it('the checker fires on a comparison, a case and a keyed table outside the provider, not inside it', () => {
    const sample = [
      `if (provider === '${NAMES[0]}') x();`,
      `switch (p) { case '${NAMES[1]}': break; }`,
      `const T = { '${NAMES[2]}': 1 };`,
    ].join('\n');
    expect(providerNameProblems('main/core/bridge/sample.ts', sample, NAMES)).toHaveLength(3);
    expect(providerNameProblems('main/demo/sample.ts', sample, NAMES)).toHaveLength(2);
    expect(
      providerNameProblems(`${ownPlaces(NAMES[0]!)[1]}sample.ts`, `if (provider === '${NAMES[0]}') x();`, NAMES),
    ).toHaveLength(0);
  });

  it('main/ and renderer/ have none', () => {
    const problems = [...sourceFiles('main'), ...sourceFiles('renderer')].flatMap((file) =>
      providerNameProblems(file, readFileSync(file, 'utf8'), NAMES),
    );
    expect(problems).toEqual([]);
  });
});
