// Opt-outs survive a restart (read back from the file, validated) and a damaged file is no crash.
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { CONSENT_FILE, ConsentStore } from '../../../main/core/room/consent-store.ts';

it('keeps opt-outs across restarts in a private file; opting in removes them', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-consent-'));
  const store = new ConsentStore(dir);
  expect(store.optOut('130000000000000002', 'command')).toBe(true);
  expect(store.optOut('130000000000000002', 'reaction')).toBe(false);
  expect(statSync(path.join(dir, CONSENT_FILE)).mode & 0o777).toBe(0o600);
  const again = new ConsentStore(dir);
  expect(again.optedOut('130000000000000002')).toBe(true);
  expect(again.optIn('130000000000000002')).toBe(true);
  expect(new ConsentStore(dir).list()).toEqual([]);
});

it('a damaged file counts as nobody opted out and says so', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-consent-'));
  writeFileSync(path.join(dir, CONSENT_FILE), '{"version":1,"opted_out":{"not-an-id":{}}}');
  const problems: string[] = [];
  const store = new ConsentStore(dir, (p) => problems.push(p));
  expect(store.list()).toEqual([]);
  expect(problems[0]).toContain('not a valid consent file');
});
