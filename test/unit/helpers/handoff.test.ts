// The hand-off pipeline: redact → grill → goal synth into markdown + JSON, files written
// atomically with owner-only permissions, the current call's notes, and notify outcomes.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { NoteEvent } from '../../../main/core/api-types.ts';
import {
  buildHandoff,
  handoffDir,
  registerHelperTools,
  writeHandoffFiles,
} from '../../../main/core/tools/helpers/index.ts';
import { ToolRegistry } from '../../../main/core/tools/registry.ts';
import { FakeSecrets } from './fake-secrets.ts';

const fakes = new FakeSecrets(5);
const home = mkdtempSync(path.join(tmpdir(), 'lvb-handoff-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const now = new Date('2025-03-04T05:06:07.089Z');

describe('buildHandoff', () => {
  it('produces a redacted markdown and JSON document', () => {
    const hook = fakes.slackWebhook();
    const jwt = fakes.jwt();
    const notes: NoteEvent[] = [
      { id: 'a', ts: 1, kind: 'state', text: 'connected' },
      {
        id: 'b',
        ts: 2,
        kind: 'input_transcript',
        speaker: '123456789012345678',
        text: `Objective: point alerts at ${hook}`,
      },
      {
        id: 'c',
        ts: 3,
        kind: 'note',
        text:
          'Owner: Ana\nVerification: `npx vitest run test/unit/notify`\nsession ' +
          jwt +
          '\n```js\nconsole.log("unclosed fence")',
      },
    ];
    const { markdown, json } = buildHandoff({ notes, title: 'Alerts @everyone', callId: 'call-7', now });
    expect(json).toMatchObject({
      version: 1,
      title: 'Alerts [everyone]',
      created_at: '2025-03-04T05:06:07.089Z',
      call_id: 'call-7',
      source: { utterances: 2 },
      redactions: { total: 2, by_kind: { slack_webhook: 1, jwt: 1 } },
      brief: {
        fields: {
          objective: 'point alerts at [REDACTED:slack_webhook]',
          owner: 'Ana',
          verification_test: '`npx vitest run test/unit/notify`',
        },
      },
    });
    expect(json.goal.text.startsWith('/goal point alerts at [REDACTED:slack_webhook]\n')).toBe(true);
    expect(json.notes_excerpt).toContain(
      'caller 123456789012345678: Objective: point alerts at [REDACTED:slack_webhook]',
    );
    const serialized = JSON.stringify(json) + markdown;
    expect(serialized).not.toContain(hook);
    expect(serialized).not.toContain(jwt);
    expect(markdown).toContain('# Hand-off: Alerts [everyone]');
    expect(markdown).toContain('```text\n/goal point alerts at');
    // The notes' own fences cannot close the excerpt's fence early.
    expect(markdown).toContain('````text\n');
    expect(markdown.trimEnd().endsWith('````')).toBe(true);
  });

  it('handles empty notes', () => {
    const { json, markdown } = buildHandoff({ notes: [], now });
    expect(json.brief.complete).toBe(false);
    expect(json.brief.missing).toHaveLength(6);
    expect(markdown).toContain('_no notes_');
  });
});

describe('writeHandoffFiles', () => {
  it('writes <timestamp>.md and .json atomically, 0600, never overwriting', async () => {
    const dir = handoffDir(path.join(home, 'a'));
    const handoff = buildHandoff({ notes: 'Objective: check the writer works fine', now });
    const first = await writeHandoffFiles(dir, handoff, now);
    const second = await writeHandoffFiles(dir, handoff, now);
    expect(path.basename(first.markdown_path)).toBe('2025-03-04T05-06-07-089Z.md');
    expect(path.basename(second.json_path)).toBe('2025-03-04T05-06-07-089Z-2.json');
    expect(readdirSync(dir).sort()).toEqual([
      '2025-03-04T05-06-07-089Z-2.json',
      '2025-03-04T05-06-07-089Z-2.md',
      '2025-03-04T05-06-07-089Z.json',
      '2025-03-04T05-06-07-089Z.md',
    ]);
    expect(JSON.parse(readFileSync(first.json_path, 'utf8'))).toEqual(handoff.json);
    expect(readFileSync(first.markdown_path, 'utf8')).toBe(handoff.markdown);
    expect(statSync(first.json_path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });
});

describe('sora_handoff tool', () => {
  const currentNotes: NoteEvent[] = [
    {
      id: '1',
      ts: 1,
      kind: 'input_transcript',
      text: 'The goal is to renew the TLS certificate before Friday.',
      callId: 'live-1',
    },
  ];

  it('reads the current call, and reports a failing notify without failing the hand-off', async () => {
    const registry = registerHelperTools(new ToolRegistry(), {
      agentHome: path.join(home, 'b'),
      currentCall: () => ({ callId: 'live-1', notes: currentNotes }),
      now: () => now,
      notify: async () => {
        throw new Error('dm channel closed');
      },
    });
    const outcome = await registry.invoke('sora_handoff', { notify: true }, { caller: 'test' });
    expect(outcome.ok).toBe(true);
    const result = (outcome as { result: { json_path: string; notified: unknown; goal_text: string } }).result;
    expect(result.notified).toEqual({ status: 'error', detail: 'dm channel closed' });
    expect(result.goal_text.split('\n')[0]).toBe('/goal renew the TLS certificate before Friday');
    expect(JSON.parse(readFileSync(result.json_path, 'utf8'))).toMatchObject({ call_id: 'live-1' });
  });

  it('says notify is unavailable without a dispatcher, and needs notes without a running call', async () => {
    const registry = registerHelperTools(new ToolRegistry(), { agentHome: path.join(home, 'c'), now: () => now });
    const ok = await registry.invoke('sora_handoff', { text: 'Objective: a b c', notify: true }, { caller: 'test' });
    expect((ok as { result: { notified: unknown } }).result.notified).toEqual({
      status: 'unavailable',
      detail: 'no notification dispatcher in this process',
    });
    const empty = await registry.invoke('sora_handoff', {}, { caller: 'test' });
    expect(empty).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
  });

  it('declares JSON Schemas for the live model', () => {
    const registry = registerHelperTools(new ToolRegistry(), { agentHome: home });
    const decls = registry.declarations();
    expect(decls.map((d) => d.name)).toEqual(['sora_redact', 'sora_live_grill', 'sora_goal_synth', 'sora_handoff']);
    expect(decls[0]!.parameters).toMatchObject({
      type: 'object',
      required: ['text'],
      properties: { text: { type: 'string' }, max_chars: { type: 'integer' } },
    });
  });
});
