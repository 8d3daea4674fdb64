// A start-up error about a value says which file the value came from: the saved settings file or
// the .env file (a value from the environment is not in a file, so nothing is added there).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../main/core/config/index.ts';

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

it('names the settings file or the .env file a bad value came from', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-config-file-'));
  try {
    const envFile = path.join(dir, '.env');
    writeFileSync(envFile, 'DISCORD_VOICE_LIVE_LOG_LEVEL=loud\n');
    const settingsFile = path.join(dir, 'voice-users', 'settings.json');
    const problems = problemsOf(() =>
      loadConfig({
        env: { HERMES_HOME: dir, DISCORD_VOICE_LIVE_PROVIDER: 'nope' },
        envFile,
        settings: { DISCORD_VOICE_LIVE_PORT: 'eighty' },
        settingsFile,
      }),
    );
    expect(problems.find((p) => p.startsWith('DISCORD_VOICE_LIVE_LOG_LEVEL:'))).toContain(`(set in ${envFile})`);
    expect(problems.find((p) => p.startsWith('DISCORD_VOICE_LIVE_PORT:'))).toContain(`(set in ${settingsFile})`);
    expect(problems.find((p) => p.startsWith('DISCORD_VOICE_LIVE_PROVIDER:'))).not.toContain('set in');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
