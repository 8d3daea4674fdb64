// The CLI a newcomer types, against a real call on the fakes: `join`, `ask` (a message the model
// answers), `announce` (words the model says), `status`, `leave`. What the model receives has the
// announce wording only around an announcement, never around a message; the transcript shows what
// was said and sent, never the wording; `leave` records who ended the call.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NoteEvent } from '../../../main/core/api-types.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { waitFor } from './signals.ts';

let call: CoreOnFakes;
const ANSWER = 'Why did the scarecrow win an award? He was outstanding in his field.';

beforeAll(async () => {
  call = await startCoreOnFakes({ gemini: { autoReply: { transcript: ANSWER }, bargeInRms: null } });
}, 60_000);
afterAll(async () => call?.close());

function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: _f, ...base } = process.env;
  const child = spawn(process.execPath, ['bin/live-voice-bridge.js', ...args], {
    env: {
      ...base,
      NO_COLOR: '1',
      HERMES_HOME: call.t.home,
      DISCORD_VOICE_LIVE_PORT: String(call.t.port),
      DISCORD_VOICE_LIVE_SIDECAR_TOKEN: call.t.core.token,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

async function notes(): Promise<NoteEvent[]> {
  return ((await call.get('/notes?limit=100')).json as { notes: NoteEvent[] }).notes;
}

describe('join, ask, announce, status, leave', () => {
  it('each verb reaches the model as what it is, and the transcript never shows our wording', async () => {
    const joined = await cli(['join', '--json']);
    expect([joined.status, joined.stderr]).toEqual([0, '']);
    expect(JSON.parse(joined.stdout)).toMatchObject({ state: 'connected' });
    const model = await call.gemini.connection(0);

    const asked = await cli(['ask', 'Tell me a one-line joke']);
    expect(asked.status).toBe(0);
    // The CLI waits for the outcome: piped, it prints the record (GET /say/{id}); the model's answer was heard.
    expect(JSON.parse(asked.stdout)).toMatchObject({
      verb: 'ask',
      outcome: 'spoken',
      text: 'Tell me a one-line joke',
      spoken_text: ANSWER,
      source: 'cli',
    });
    await waitFor(
      async () => (await notes()).some((n) => n.kind === 'output_transcript' && n.text === ANSWER),
      'the answer to the message',
    );

    const announced = await cli(['announce', 'The build is green']);
    expect(announced.status).toBe(0);
    await waitFor(
      async () => (await notes()).some((n) => n.kind === 'output_transcript' && n.text === 'The build is green'),
      'the announcement said',
    );

    // What the model received: the message as it is; the announcement inside the wording.
    const parts = model.clientContents.flatMap((c) =>
      ((c.turns as { parts: { text: string }[] }[]) ?? []).flatMap((t) => t.parts.map((p) => p.text)),
    );
    expect(parts).toContain('Tell me a one-line joke');
    expect(parts.find((p) => p.endsWith('The build is green'))).toMatch(/^Say the following to the user now/);

    // The transcript: one line per request with what was sent and its verb; nothing shows the wording.
    const all = await notes();
    expect(all.filter((n) => n.kind === 'say').map((n) => [n.text, n.speaker])).toEqual([
      ['Tell me a one-line joke', 'cli · message'],
      ['The build is green', 'cli · announce'],
    ]);
    expect(all.some((n) => n.text.includes('Say the following'))).toBe(false);

    const status = await cli(['status', '--json']);
    expect(status.status).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      health: { bridge: { state: 'connected' } },
      reminders: { pending: 0 },
    });

    const left = await cli(['leave']);
    expect(left.status).toBe(0);
    expect(JSON.parse(left.stdout)).toMatchObject({ stopped: true });
    expect((await notes()).some((n) => n.kind === 'state' && n.text.includes('stopped from the command line'))).toBe(
      true,
    );
    const again = await cli(['leave']);
    expect(JSON.parse(again.stdout)).toMatchObject({ stopped: false });
  }, 120_000);
});
