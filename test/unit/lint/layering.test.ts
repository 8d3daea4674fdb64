// The layering rules must actually fire: lint known-bad fixtures as if they lived in core / renderer.
import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function lintAs(fixture: string, filePath: string) {
  const [result] = await eslint.lintText(readFileSync(`test/fixtures/lint/${fixture}`, 'utf8'), { filePath });
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

  it('fails when the renderer takes a wire type from a route module, not from api-types or the client\'s wire-types', async () => {
    const messages = await lintAs('renderer-imports-route-type.ts', 'renderer/fixture.ts');
    expect(messages.map((m) => m.line)).toEqual([1]);
    expect(messages[0]!.message).toContain('main/core/sidecar-client/wire-types.ts');
  });
});
