// Dashboard sessions expire; our folders are private (0700) even when another library created them first.
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensurePrivateDir } from '../../../main/core/private-dir.ts';
import { createConfSettingsStore } from '../../../main/core/settings/conf-store.ts';
import { DashboardSessions, SESSION_TTL_MS } from '../../../main/core/sidecar/sessions.ts';
import { startTestCore } from '../../helpers/core.ts';

describe('dashboard sessions', () => {
  it('a session is valid until its TTL passes, then refused', () => {
    let now = 1_000_000;
    const sessions = new DashboardSessions(() => now);
    const session = sessions.redeem(sessions.createNonce())!;
    expect(sessions.isValidSession(session)).toBe(true);
    now += SESSION_TTL_MS - 1;
    expect(sessions.isValidSession(session)).toBe(true);
    now += 1;
    expect(sessions.isValidSession(session)).toBe(false);
  });
});

describe.runIf(process.platform !== 'win32')('private folders', () => {
  const mode = (p: string) => statSync(p).mode & 0o777;

  it('tightens a folder that already exists with 0755', () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'lvb-private-')), 'voice-users');
    mkdirSync(dir, { mode: 0o755 });
    ensurePrivateDir(dir);
    expect(mode(dir)).toBe(0o700);
  });

  it('voice-users/ is 0700 after the headless start-up order (settings store first, then the core)', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'lvb-private-home-'));
    try {
      const voiceUsers = path.join(home, 'voice-users');
      const store = createConfSettingsStore({ dir: voiceUsers });
      await store.configValues();
      expect(mode(voiceUsers)).toBe(0o700);
      const t = await startTestCore({ HERMES_HOME: home });
      try {
        expect(mode(t.config.paths.voiceUsers)).toBe(0o700);
      } finally {
        await t.core.stop();
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
