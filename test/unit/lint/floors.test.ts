// main/core's floors (scripts/lib/core-floors.ts): the lint rule fires on an import up a floor, a
// type-only one included, and on a folder importing its neighbour on the same floor; and the real
// tree has no import up a floor and no import cycle (type-only imports counted), measured by
// dependency-cruiser over main/, independently of the lint rule.
import { readFileSync } from 'node:fs';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { CORE_FLOORS, floorOf } from '../../../scripts/lib/core-floors.ts';

const eslint = new ESLint({ cwd: process.cwd() });

async function floorErrors(fixture: string, filePath: string) {
  const [result] = await eslint.lintText(readFileSync(`test/fixtures/lint/${fixture}`, 'utf8'), { filePath });
  return result!.messages.filter((m) => m.ruleId === 'boundaries/dependencies');
}

describe('the floors rule', () => {
  it('fails on a value import up a floor (usage → config)', async () => {
    const errors = await floorErrors('core-imports-up.ts', 'main/core/usage/fixture.ts');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain('floor 2 usage may not import floor 3 config');
  });

  it('fails on a type-only import up a floor (setup → core.ts)', async () => {
    const errors = await floorErrors('core-imports-type-up.ts', 'main/core/setup/fixture.ts');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain('may not import floor 10 core.ts');
  });

  it('fails on an import of a neighbour on the same floor (model → notify, both floor 4)', async () => {
    const source = "import type { NotifyResult } from '../notify/types.ts';\nexport type R = NotifyResult;\n";
    const [result] = await eslint.lintText(source, { filePath: 'main/core/model/fixture.ts' });
    expect(result!.messages.filter((m) => m.ruleId === 'boundaries/dependencies')).toHaveLength(1);
  });

  it('allows imports down the floors, type-only and value', async () => {
    expect(await floorErrors('core-imports-down.ts', 'main/core/bridge/fixture.ts')).toHaveLength(0);
  });

  it('fails on a file in main/core that no floor names', async () => {
    const [result] = await eslint.lintText('export const x = 1;\n', { filePath: 'main/core/unplaced/fixture.ts' });
    expect(result!.messages.map((m) => m.ruleId)).toContain('boundaries/no-unknown-files');
  });
});

describe('the tree as it is', () => {
  let cruised: ICruiseResult;
  beforeAll(async () => {
    // tsPreCompilationDeps: imports TypeScript erases (import type) are dependencies too.
    const result = await cruise(['main'], {
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      validate: true,
      ruleSet: { forbidden: [{ name: 'no-cycle', severity: 'error', from: {}, to: { circular: true } }] },
    });
    cruised = result.output as ICruiseResult;
  }, 120_000);

  it('has every main/core file on a floor', () => {
    const core = cruised.modules.filter((m) => m.source.startsWith('main/core/'));
    expect(core.length).toBeGreaterThan(150);
    expect(core.filter((m) => floorOf(m.source) === undefined).map((m) => m.source)).toEqual([]);
  });

  it('has 0 imports up or across a floor in main/core, type-only imports included', () => {
    const up: string[] = [];
    let typeOnly = 0;
    for (const module of cruised.modules) {
      const from = floorOf(module.source);
      if (!from) continue;
      for (const dependency of module.dependencies) {
        if (dependency.dependencyTypes.includes('type-only')) typeOnly++;
        const to = floorOf(dependency.resolved);
        if (!to || to.entry === from.entry) continue;
        if (to.floor >= from.floor) up.push(`${module.source} → ${dependency.resolved}`);
      }
    }
    // The measurement saw type-only imports (so it would count one that goes up).
    expect(typeOnly).toBeGreaterThan(50);
    expect(up).toEqual([]);
  });

  it('has 0 import cycles in main/', () => {
    const cycles = cruised.summary.violations
      .filter((v) => v.rule.name === 'no-cycle')
      .map((v) => (v.cycle ?? []).map((step) => step.name).join(' → '));
    expect(cycles).toEqual([]);
  });

  it('names each floor entry once', () => {
    const entries = CORE_FLOORS.flat();
    expect(new Set(entries).size).toBe(entries.length);
  });
});
