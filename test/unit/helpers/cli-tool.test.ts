// `live-voice-bridge tool <name>`: runToolCommand with in-memory streams for every tool and every
// error path, plus real round-trips through `node main/cli.ts tool …` (the wired CLI).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliToolRegistry, runToolCommand } from '../../../main/core/tools/cli-tool.ts';
import { FakeSecrets } from './fake-secrets.ts';

const fakes = new FakeSecrets(77);
const home = mkdtempSync(path.join(tmpdir(), 'lvb-cli-tool-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

async function runInMemory(argv: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const code = await runToolCommand(
    argv,
    { stdin: Readable.from([Buffer.from(stdin)]), stdout, stderr },
    createCliToolRegistry({ HERMES_HOME: home }),
  );
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

describe('runToolCommand (in memory)', () => {
  it('sora_redact: JSON in, JSON out, exit 0', async () => {
    const key = fakes.googleApiKey();
    const { code, stdout, stderr } = await runInMemory(['sora_redact'], JSON.stringify({ text: `GEMINI key ${key}` }));
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual({
      text: 'GEMINI key [REDACTED:google_api_key]',
      redactions: [{ kind: 'google_api_key', start: 11, end: 11 + key.length }],
      truncated: false,
    });
  });

  it('sora_live_grill and sora_goal_synth', async () => {
    const notes = {
      notes: [
        'Objective: archive old call notes after 30 days',
        'Owner: Lee',
        'Next command: `node scripts/archive.ts --days 30`',
      ],
    };
    const grill = await runInMemory(['sora_live_grill'], JSON.stringify(notes));
    expect(grill.code).toBe(0);
    expect(JSON.parse(grill.stdout)).toMatchObject({
      fields: {
        objective: 'archive old call notes after 30 days',
        owner: 'Lee',
        next_command: 'node scripts/archive.ts --days 30',
      },
      missing: ['constraints', 'risk', 'verification_test'],
    });
    const synth = await runInMemory(['sora_goal_synth'], JSON.stringify(notes));
    expect(synth.code).toBe(0);
    expect((JSON.parse(synth.stdout) as { text: string }).text.split('\n').slice(0, 2)).toEqual([
      '/goal archive old call notes after 30 days',
      '/subgoal Run `node scripts/archive.ts --days 30`',
    ]);
  });

  it('sora_handoff writes under HERMES_HOME/voice-users/handoffs', async () => {
    const { code, stdout } = await runInMemory(
      ['sora_handoff'],
      JSON.stringify({ text: 'Objective: write the release notes for v0.3.5\nOwner: Kim' }),
    );
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { markdown_path: string; json_path: string };
    expect(path.dirname(result.json_path)).toBe(path.join(home, 'voice-users', 'handoffs'));
    expect(readFileSync(result.markdown_path, 'utf8')).toContain('/goal write the release notes for v0.3.5');
  });

  it('accepts the leading "tool" word and lists declarations', async () => {
    expect((await runInMemory(['tool', 'sora_redact'], '{"text":"plain"}')).code).toBe(0);
    const list = await runInMemory(['--list'], '');
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { name: string }[]).map((d) => d.name)).toEqual([
      'sora_redact',
      'sora_live_grill',
      'sora_goal_synth',
      'sora_handoff',
    ]);
  });

  it('exits 2 with a message on bad JSON, invalid arguments, unknown tools and missing names', async () => {
    const badJson = await runInMemory(['sora_redact'], '{"text": ');
    expect(badJson).toMatchObject({ code: 2, stdout: '' });
    expect(badJson.stderr).toMatch(/^error: stdin is not valid JSON/);
    const badArgs = await runInMemory(['sora_redact'], '{"text": 5}');
    expect(badArgs).toMatchObject({ code: 2, stdout: '' });
    expect(badArgs.stderr).toMatch(/^error: invalid_args: /);
    const noNotes = await runInMemory(['sora_live_grill'], '');
    expect(noNotes.code).toBe(2);
    expect(noNotes.stderr).toContain('give `text` or `notes`');
    const unknown = await runInMemory(['nope'], '{}');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown tool "nope"');
    expect((await runInMemory([], '')).code).toBe(2);
  });
});

function runCli(
  args: string[],
  stdin: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['main/cli.ts', ...args], {
      cwd: path.resolve(import.meta.dirname, '../../..'),
      env: { ...process.env, ...env },
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('node main/cli.ts tool … (spawned)', () => {
  it('round-trips sora_redact', async () => {
    const pat = fakes.githubToken();
    const { code, stdout } = await runCli(
      ['tool', 'sora_redact'],
      JSON.stringify({ text: `token ${pat} and v1.2.3` }),
      { HERMES_HOME: home },
    );
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { text: string }).text).toBe('token [REDACTED:github_token] and v1.2.3');
  });

  it('round-trips sora_handoff with owner-only files', async () => {
    const { code, stdout } = await runCli(
      ['tool', 'sora_handoff'],
      JSON.stringify({ text: 'Objective: tidy the sfx folder' }),
      { HERMES_HOME: home },
    );
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { json_path: string };
    expect(statSync(result.json_path).mode & 0o777).toBe(0o600);
  });

  it('exits 2 on bad JSON', async () => {
    const { code, stderr } = await runCli(['tool', 'sora_goal_synth'], 'not json', { HERMES_HOME: home });
    expect(code).toBe(2);
    expect(stderr).toContain('not valid JSON');
  });
});
