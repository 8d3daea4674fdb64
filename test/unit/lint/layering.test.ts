// The layering rules must actually fire: lint known-bad fixtures as if they lived in core / renderer.
import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function lintAs(fixture: string, filePath: string) {
  const [result] = await eslint.lintText(readFileSync(`test/fixtures/lint/${fixture}`, 'utf8'), { filePath });
  return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports');
}

async function lintCode(code: string, filePath: string) {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports');
}

describe('import layering', () => {
  it('fails when main/core imports electron', async () => {
    const messages = await lintAs('core-imports-electron.ts', 'main/core/bridge/fixture.ts');
    expect(messages).toHaveLength(1);
    expect(messages[0]!.message).toContain('main/core runs in plain Node');
  });

  it('allows the Electron shell to import electron', async () => {
    expect(await lintAs('core-imports-electron.ts', 'main/app/fixture.ts')).toHaveLength(0);
  });

  it('fails when the renderer imports main/** at run time but allows type-only imports', async () => {
    const messages = await lintAs('renderer-imports-main.ts', 'renderer/fixture.ts');
    expect(messages).toHaveLength(1);
    expect(messages[0]!.line).toBe(1);
  });

  it("fails when the renderer takes a wire type from a route module, not from api-types or the client's wire-types", async () => {
    const messages = await lintAs('renderer-imports-route-type.ts', 'renderer/fixture.ts');
    expect(messages.map((m) => m.line)).toEqual([1]);
    expect(messages[0]!.message).toContain('main/core/sidecar-client/wire-types.ts');
  });

  it.each([
    ['main/core/bridge/fixture.ts', "import { main } from '../../cli.ts';", 'must not depend on the CLI'],
    ['main/core/bridge/fixture.ts', "import { x } from '../../cli/output.ts';", 'must not depend on the CLI'],
    [
      'main/core/bridge/fixture.ts',
      "import { x } from '../../../renderer/app.ts';",
      'must not depend on the dashboard',
    ],
    [
      'main/core/bridge/fixture.ts',
      "import { x } from '../../../bench/lib/stats.ts';",
      'must not depend on the dashboard, the benchmarks',
    ],
    [
      'main/core/bridge/fixture.ts',
      "import { x } from '../../../scripts/lib/core-floors.ts';",
      'the repository scripts',
    ],
    ['main/app/fixture.ts', "import { x } from '../fakes/discord.ts';", 'does not import the fakes or the demo'],
    ['main/app/fixture.ts', "import { x } from '../demo/run.ts';", 'does not import the fakes or the demo'],
    ['preload/fixture.ts', "import type { x } from '../main/core/api-types.ts';", 'imports nothing from main/'],
  ])('fails when %s crosses a border: %s', async (filePath, code, message) => {
    const messages = await lintCode(`${code}\nexport const y = x;\n`.replace('{ main }', '{ x }'), filePath);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.message).toContain(message);
  });

  it('lets the core import its own floors and the CLI import the core', async () => {
    expect(
      await lintCode(
        "import { x } from '../contracts/clock.ts';\nexport const y = x;\n",
        'main/core/bridge/fixture.ts',
      ),
    ).toHaveLength(0);
    expect(
      await lintCode(
        "import { x } from '../core/sidecar-client/client.ts';\nexport const y = x;\n",
        'main/cli/fixture.ts',
      ),
    ).toHaveLength(0);
  });
});
