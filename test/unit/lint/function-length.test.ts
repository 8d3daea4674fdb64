// The function-length limit (eslint.config.js) must fire on product code only, and count code only.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

/** A function of `statements` code lines between its two braces, with `padding` blank and comment lines. */
function functionOf(statements: number, padding = 0): string {
  const body = Array.from({ length: statements }, (_, i) => `  total += ${i};`);
  const extra = Array.from({ length: padding }, (_, i) => (i % 2 ? '' : `  // why ${i}`));
  return ['export function long(): number {', '  let total = 0;', ...body, ...extra, '  return total;', '}', ''].join(
    '\n',
  );
}

async function lengthErrors(code: string, filePath: string) {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'max-lines-per-function');
}

describe('function length (≤ 80 lines in product code)', () => {
  // 4 lines around the statements: the signature, `let`, `return` and the closing brace.
  it.each(['main/core/bridge/fixture.ts', 'main/cli/fixture.ts', 'renderer/fixture.ts', 'preload/fixture.ts'])(
    'fails a function of 81 lines in %s and passes one of 80',
    async (filePath) => {
      expect(await lengthErrors(functionOf(77), filePath)).toHaveLength(1);
      expect(await lengthErrors(functionOf(76), filePath)).toHaveLength(0);
    },
  );

  it('does not count blank lines or comments', async () => {
    expect(await lengthErrors(functionOf(76, 40), 'main/core/bridge/fixture.ts')).toHaveLength(0);
  });

  it.each(['main/fakes/fixture.ts', 'test/unit/fixture.test.ts', 'bench/fixture.ts', 'scripts/fixture.ts'])(
    'does not limit %s (not product code)',
    async (filePath) => {
      expect(await lengthErrors(functionOf(200), filePath)).toHaveLength(0);
    },
  );
});
