// The helper tools over the real sidecar (security layer, error handler, loopback socket):
// POST /tools/<name> for each tool, POST /handoff, and the 4xx answers for bad requests.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NoteEvent, NotifyRequest } from '../../../main/core/api-types.ts';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { registerToolRoutes } from '../../../main/core/sidecar/routes/tools.ts';
import { createSidecar, type Sidecar } from '../../../main/core/sidecar/server.ts';
import { registerHelperTools } from '../../../main/core/tools/helpers/index.ts';
import { ToolRegistry } from '../../../main/core/tools/registry.ts';
import { errorCode, rawRequest, type RawResponse } from '../../helpers/http.ts';
import { FakeSecrets } from './fake-secrets.ts';

const fakes = new FakeSecrets(31);
const token = fakes.fake(40);
const caller = fakes.snowflake();
const callToken = fakes.discordBotToken();
const currentNotes: NoteEvent[] = [
  {
    id: '1',
    ts: 1,
    kind: 'input_transcript',
    speaker: caller,
    text: 'The goal is to publish the nightly build to the beta channel.',
    callId: 'call-42',
  },
  {
    id: '2',
    ts: 2,
    kind: 'input_transcript',
    speaker: caller,
    text: `Dana will do it. Oh and the bot token is ${callToken} but don't share it.`,
    callId: 'call-42',
  },
  { id: '3', ts: 3, kind: 'output_transcript', text: 'Understood.', callId: 'call-42' },
];

let home: string;
let sidecar: Sidecar;
let port: number;
const notified: NotifyRequest[] = [];

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'lvb-helpers-'));
  const registry = registerHelperTools(new ToolRegistry(), {
    agentHome: home,
    currentCall: () => ({ callId: 'call-42', notes: currentNotes }),
    notify: async (req) => {
      notified.push(req);
      return { status: 'ok', channel: 'dm' };
    },
  });
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token,
    logger: silentLogger(),
    routes: [(app) => registerToolRoutes(app, { registry })],
  });
  await sidecar.listen();
  port = Number(new URL(sidecar.url).port);
});

afterAll(async () => {
  await sidecar.close();
  rmSync(home, { recursive: true, force: true });
});

function post(route: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest({
    port,
    method: 'POST',
    path: route,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('POST /tools/:name', () => {
  it('sora_redact returns the redacted text and spans', async () => {
    const hook = fakes.discordWebhook();
    const res = await post('/tools/sora_redact', { text: `send to ${hook} please`, max_chars: 500 });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json).toEqual({
      text: 'send to [REDACTED:discord_webhook] please',
      redactions: [{ kind: 'discord_webhook', start: 8, end: 8 + hook.length }],
      truncated: false,
    });
  });

  it('sora_live_grill works on given notes, and on the current call when given none', async () => {
    const given = await post('/tools/sora_live_grill', {
      text: 'Objective: rotate the webhook secret today\nOwner: Sam',
      max_questions: 2,
    });
    expect(given.status).toBe(200);
    expect(given.json).toMatchObject({
      fields: { objective: 'rotate the webhook secret today', owner: 'Sam' },
      complete: false,
    });
    expect((given.json as { questions: string[] }).questions).toHaveLength(2);

    const current = await post('/tools/sora_live_grill', {});
    expect(current.status).toBe(200);
    const body = current.json as {
      fields: { objective: string; owner: string; constraints: string[] };
      markdown: string;
    };
    expect(body.fields.objective).toBe('publish the nightly build to the beta channel');
    expect(body.fields.owner).toBe('Dana');
    expect(current.text).not.toContain(callToken);
  });

  it('sora_goal_synth returns a /goal block, from notes or from a grill result', async () => {
    const res = await post('/tools/sora_goal_synth', {
      notes: ['Goal: ship the tray icon fix', 'Next command: `npm run dist`'],
    });
    expect(res.status).toBe(200);
    expect((res.json as { text: string }).text).toBe(
      '/goal ship the tray icon fix\n/subgoal Run `npm run dist`\n' +
        (res.json as { subgoals: string[] }).subgoals
          .slice(1)
          .map((s) => `/subgoal ${s}`)
          .join('\n'),
    );
    const fromGrill = await post('/tools/sora_goal_synth', {
      grill_result: { fields: { objective: 'say hi to <@123456789012345678>' } },
    });
    expect(fromGrill.status).toBe(200);
    expect((fromGrill.json as { text: string }).text).toBe('/goal say hi to [user 123456789012345678]');
  });

  it('sora_handoff writes the hand-off files for the current call', async () => {
    const res = await post('/tools/sora_handoff', { title: 'Nightly build' });
    expect(res.status).toBe(200);
    const body = res.json as { markdown_path: string; json_path: string; goal_text: string; redactions: number };
    expect(path.dirname(body.markdown_path)).toBe(path.join(home, 'voice-users', 'handoffs'));
    const doc = JSON.parse(readFileSync(body.json_path, 'utf8')) as {
      call_id: string;
      title: string;
      goal: { text: string };
    };
    expect(doc).toMatchObject({ call_id: 'call-42', title: 'Nightly build' });
    expect(doc.goal.text).toBe(body.goal_text);
    expect(readFileSync(body.markdown_path, 'utf8')).toContain('# Hand-off: Nightly build');
    expect(readFileSync(body.markdown_path, 'utf8')).not.toContain(callToken);
    expect(body.redactions).toBe(1);
  });

  it('answers 404 unknown_tool, 400 invalid_args and 400 invalid_json', async () => {
    const unknown = await post('/tools/no_such_tool', {});
    expect(unknown.status).toBe(404);
    expect(errorCode(unknown)).toBe('unknown_tool');
    const badArgs = await post('/tools/sora_redact', { text: 42 });
    expect(badArgs.status).toBe(400);
    expect(errorCode(badArgs)).toBe('invalid_args');
    expect((badArgs.json as { error: { message: string } }).error.message).toContain('text');
    const badMax = await post('/tools/sora_goal_synth', { text: 'x', max_chars: 5 });
    expect(errorCode(badMax)).toBe('invalid_args');
    // A misspelled argument is refused, not silently ignored (max_chars would have applied).
    for (const [tool, body] of [
      ['sora_redact', { text: 'x', maxchars: 3 }],
      ['sora_live_grill', { text: 'x', maxQuestions: 1 }],
      ['sora_goal_synth', { text: 'x', maxChars: 500 }],
      ['sora_handoff', { text: 'x', callId: 'a' }],
    ] as const) {
      const misspelled = await post(`/tools/${tool}`, body);
      expect([misspelled.status, errorCode(misspelled)]).toEqual([400, 'invalid_args']);
      expect((misspelled.json as { error: { message: string } }).error.message).toContain(Object.keys(body)[1]!);
    }
    const badJson = await post('/tools/sora_redact', '{"text":');
    expect(badJson.status).toBe(400);
    expect(errorCode(badJson)).toBe('invalid_json');
  });

  it('is behind the sidecar token like every route', async () => {
    const res = await rawRequest({
      port,
      method: 'POST',
      path: '/tools/sora_redact',
      headers: { 'content-type': 'application/json' },
      body: '{"text":"hi"}',
    });
    expect(res.status).toBe(401);
  });
});

describe('POST /handoff', () => {
  it('hands off given notes and delivers through notify when asked', async () => {
    const before = readdirSync(path.join(home, 'voice-users', 'handoffs')).length;
    notified.length = 0;
    const res = await post('/handoff', {
      notes: ['Objective: migrate the schedule file', '@everyone Owner: Priya'],
      notify: true,
      notify_mode: 'dm',
    });
    expect(res.status).toBe(200);
    const body = res.json as { notified: unknown; goal_text: string };
    expect(body.notified).toEqual({ status: 'ok', channel: 'dm' });
    expect(notified).toEqual([{ text: body.goal_text, title: 'Call hand-off', mode: 'dm', source: 'sora_handoff' }]);
    expect(body.goal_text.startsWith('/goal migrate the schedule file')).toBe(true);
    expect(readdirSync(path.join(home, 'voice-users', 'handoffs')).length).toBe(before + 2);
  });

  it('rejects a bad notify mode', async () => {
    const res = await post('/handoff', { text: 'Objective: x y z', notify: true, notify_mode: 'carrier-pigeon' });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('invalid_args');
  });
});
