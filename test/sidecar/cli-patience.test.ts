// `live-voice-bridge patience` against a running core with a settings store: it shows the setting
// and who was learnt (by name), saves a new level for the next call, resets a speaker by name (the
// row leaves the database), and a bad word or an unknown name fails with its exit code.
import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyValueSettingsStore } from '../../main/core/settings/store.ts';
import { DATABASE_FILE } from '../../main/core/store/database.ts';
import { startTestCore, type TestCore } from '../helpers/core.ts';

let t: TestCore;
const values = new Map<string, unknown>();
const settingsStore = new KeyValueSettingsStore({
  backing: { get: (k) => values.get(k), set: (k, v) => void values.set(k, v), delete: (k) => void values.delete(k) },
  env: {},
});

beforeAll(async () => {
  t = await startTestCore({}, { settingsStore });
  const db = new Database(path.join(t.config.paths.voiceUsers, DATABASE_FILE));
  db.prepare(
    "INSERT INTO speaker_patience (speaker_id, name, window_ms, cutoffs, updated_at) VALUES ('111111111111111111', 'Ann', 1400, 2, 1700000000000)",
  ).run();
  db.close();
}, 30_000);
afterAll(async () => t?.close());

function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: _f, ...base } = process.env;
  const child = spawn(process.execPath, ['main/cli.ts', ...args], {
    env: {
      ...base,
      HERMES_HOME: t.home,
      DISCORD_VOICE_LIVE_PORT: String(t.port),
      DISCORD_VOICE_LIVE_SIDECAR_TOKEN: t.core.token,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

describe('patience command', () => {
  it('shows the setting and the learnt speakers by name', async () => {
    const shown = await cli(['patience']);
    expect(shown.status).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      setting: 'natural',
      call: null,
      speakers: [{ name: 'Ann', window_ms: 1400, learnt: true, cutoffs: 2 }],
    });
  }, 30_000);

  it('saves a level (and ms) for the next call', async () => {
    expect((await cli(['patience', 'patient'])).status).toBe(0);
    expect((await settingsStore.view()).values.patience).toBe('patient');
    expect(JSON.parse((await cli(['patience'])).stdout)).toMatchObject({ setting: 'patient', base_ms: 1400 });
    expect((await cli(['patience', '1800'])).status).toBe(0);
    expect((await settingsStore.view()).values.patience).toBe(1800);
  }, 30_000);

  it('a word it does not take is a usage error (exit 2); an unknown name exit 1', async () => {
    const bad = await cli(['patience', 'slow']);
    expect([bad.status, bad.stderr.split('\n')[0]]).toEqual([
      2,
      'live-voice-bridge: patience takes quick, natural, patient or a number of ms (200–5000), or: patience reset NAME|ID',
    ]);
    const nobody = await cli(['patience', 'reset', 'Bob']);
    expect([nobody.status, nobody.stderr]).toEqual([
      1,
      "live-voice-bridge: nothing was learnt of Bob: their patience is the call's already (learnt: Ann)\n",
    ]);
  }, 30_000);

  it('resets a speaker by name: the database forgets them', async () => {
    const reset = await cli(['patience', 'reset', 'ann']);
    expect(reset.status).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ reset: { name: 'Ann', learnt: false } });
    const db = new Database(path.join(t.config.paths.voiceUsers, DATABASE_FILE), { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM speaker_patience').get()).toEqual({ n: 0 });
    db.close();
  }, 30_000);
});
