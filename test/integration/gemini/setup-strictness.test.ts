// The fake refuses a `setup` the real service refuses, per model (main/fakes/gemini/strictness.ts
// SETUP_FIELDS / MODEL_RULES, each rule citing research/protocols.md), and the 3.1 flash-live
// preview refuses mid-session `clientContent`. Raw `ws` clients show the refusals; the real
// provider shows that our own setup and text injection pass for every model the project supports.
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeGemini, KNOWN_LIVE_MODELS, SETUP_FIELDS, type FakeGemini } from '../../../main/fakes/gemini/index.ts';
import { fakeKey, startHarness, waitUntil, type Harness } from './helpers.ts';

let fake: FakeGemini | null = null;
let h: Harness | null = null;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await fake?.close();
  fake = null;
  await h?.close();
  h = null;
});

interface RawClient {
  ws: WebSocket;
  messages: Record<string, unknown>[];
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a raw socket, sends `setup`, waits for setupComplete or the close. */
async function rawSetup(setup: Record<string, unknown>): Promise<RawClient> {
  const url = `${fake!.url.replace('http:', 'ws:')}//ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=${fakeKey()}`;
  const ws = new WebSocket(url);
  sockets.push(ws);
  const messages: Record<string, unknown>[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString()) as Record<string, unknown>));
  let isClosed = false;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      isClosed = true;
      resolve({ code, reason: reason.toString() });
    });
    ws.on('error', () => resolve({ code: -1, reason: 'error' }));
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ setup }));
  await waitUntil(() => isClosed || messages.some((m) => 'setupComplete' in m), 'setupComplete or close');
  return { ws, messages, closed };
}

const accepted = (client: RawClient): boolean =>
  client.messages.some((m) => 'setupComplete' in m) && client.ws.readyState === WebSocket.OPEN;

/** Roughly what our client sends (protocols.md §1.3): the base every case below adds one field to. */
function baseSetup(model: string): Record<string, unknown> {
  return {
    model: `models/${model}`,
    generationConfig: {
      responseModalities: ['AUDIO'],
      speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } },
    },
    systemInstruction: { parts: [{ text: 'You are a bot' }], role: 'user' },
    sessionResumption: {},
    inputAudioTranscription: {},
    outputAudioTranscription: {},
    contextWindowCompression: { slidingWindow: {} },
  };
}

type Patch = (setup: Record<string, unknown>) => Record<string, unknown>;
const withGeneration =
  (extra: Record<string, unknown>): Patch =>
  (s) => ({ ...s, generationConfig: { ...(s.generationConfig as object), ...extra } });
const withTop =
  (extra: Record<string, unknown>): Patch =>
  (s) => ({ ...s, ...extra });

/** [what, model, patch, rule the fake must name]: every field/model combination the research says is refused. */
const REJECTED: [string, string, Patch, RegExp][] = [
  ...KNOWN_LIVE_MODELS.map((model): [string, string, Patch, RegExp] => [
    'an unknown top-level field (voice)',
    model,
    withTop({ voice: 'Kore' }),
    /unknown setup field "voice"/,
  ]),
  ...KNOWN_LIVE_MODELS.map((model): [string, string, Patch, RegExp] => [
    'explicitVadSignal (Vertex-only)',
    model,
    withTop({ explicitVadSignal: true }),
    /unknown setup field "explicitVadSignal"/,
  ]),
  [
    'generationConfig.thinkingConfig',
    'gemini-3.8-live',
    withGeneration({ thinkingConfig: { thinkingLevel: 'LOW' } }),
    /gemini-3\.8-live rejects setup generationConfig\.thinkingConfig/,
  ],
  [
    'generation_config.thinking_config (proto names)',
    'gemini-3.8-live',
    (s) => ({
      ...withTop({ generation_config: { thinking_config: { thinking_budget: 0 } } })(s),
      generationConfig: undefined,
    }),
    /thinkingConfig/,
  ],
  [
    'generationConfig.enableAffectiveDialog: true',
    'gemini-3.8-live',
    withGeneration({ enableAffectiveDialog: true }),
    /gemini-3\.8-live rejects setup generationConfig\.enableAffectiveDialog/,
  ],
  [
    'generationConfig.enableAffectiveDialog: false',
    'gemini-3.8-live',
    withGeneration({ enableAffectiveDialog: false }),
    /enableAffectiveDialog/,
  ],
  [
    'proactivity.proactiveAudio: false',
    'gemini-3.8-live',
    withTop({ proactivity: { proactiveAudio: false } }),
    /gemini-3\.8-live rejects setup proactivity\.proactiveAudio=false/,
  ],
];

/** Fields the research states nothing against for these models: accepted. */
const ACCEPTED: [string, string, Patch][] = [
  ['proactivity.proactiveAudio: true', 'gemini-3.8-live', withTop({ proactivity: { proactiveAudio: true } })],
  [
    'generationConfig.thinkingConfig',
    'gemini-3.1-flash-live-preview',
    withGeneration({ thinkingConfig: { thinkingLevel: 'LOW' } }),
  ],
  [
    'generationConfig.thinkingConfig',
    'gemini-2.5-flash-native-audio-preview-12-2025',
    withGeneration({ thinkingConfig: { thinkingBudget: 0 } }),
  ],
  [
    'generationConfig.enableAffectiveDialog',
    'gemini-2.5-flash-native-audio-preview-12-2025',
    withGeneration({ enableAffectiveDialog: true }),
  ],
  [
    'proactivity.proactiveAudio: false',
    'gemini-2.5-flash-native-audio-preview-12-2025',
    withTop({ proactivity: { proactiveAudio: false } }),
  ],
  [
    'every documented top-level field',
    'gemini-3.8-live',
    withTop({ tools: [], realtimeInputConfig: {}, historyConfig: {}, safetySettings: [], labels: { a: 'b' } }),
  ],
  [
    'proto (snake_case) field names',
    'gemini-3.8-live',
    (s) => ({
      model: s.model,
      generation_config: s.generationConfig,
      session_resumption: {},
      context_window_compression: { sliding_window: {} },
    }),
  ],
];

describe('fake gemini: setup is strict per model (default)', () => {
  it.each(REJECTED)('closes 1007 on %s for %s', async (_what, model, patch, rule) => {
    fake = await startFakeGemini({ setupDelayMs: 0 });
    const refused: [number, string][] = [];
    fake.on('refused', (_c, code, reason) => refused.push([code, reason]));
    const client = await rawSetup(patch(baseSetup(model)));
    const closed = await client.closed;
    expect(closed).toEqual({ code: 1007, reason: 'Request contains an invalid argument.' });
    expect(client.messages).toEqual([]); // no setupComplete first
    expect(refused).toEqual([[1007, 'Request contains an invalid argument.']]);
    expect(fake.connections[0]!.refusedFor).toMatch(rule);
    expect(fake.established).toHaveLength(0);
  });

  it.each(ACCEPTED)('accepts %s on %s', async (_what, model, patch) => {
    fake = await startFakeGemini({ setupDelayMs: 0 });
    const client = await rawSetup(patch(baseSetup(model)));
    expect(accepted(client)).toBe(true);
    expect(fake.connections[0]!.refusedFor).toBeNull();
  });

  it('checks the key first: a bad key with an unknown field still reports the key', async () => {
    fake = await startFakeGemini({ setupDelayMs: 0, validKeys: ['another-key'] });
    const client = await rawSetup({ ...baseSetup('gemini-3.8-live'), voice: 'Kore' });
    expect((await client.closed).reason).toMatch(/API key not valid/);
  });

  it('accepts every refused setup with validateSetup and modelRules off (the old, lax fake)', async () => {
    fake = await startFakeGemini({ setupDelayMs: 0, strict: { validateSetup: false, modelRules: false } });
    for (const [, model, patch] of REJECTED) {
      const client = await rawSetup(patch(baseSetup(model)));
      expect(accepted(client)).toBe(true);
      client.ws.close();
    }
    expect(fake.connections.every((c) => c.refusedFor === null)).toBe(true);
  });

  it('relaxes the two checks separately', async () => {
    fake = await startFakeGemini({ setupDelayMs: 0, strict: { validateSetup: false } });
    expect(accepted(await rawSetup({ ...baseSetup('gemini-3.8-live'), voice: 'Kore' }))).toBe(true);
    expect(
      (await (await rawSetup(withTop({ proactivity: { proactiveAudio: false } })(baseSetup('gemini-3.8-live')))).closed)
        .code,
    ).toBe(1007);
    await fake.close();
    fake = await startFakeGemini({ setupDelayMs: 0, strict: { modelRules: false } });
    expect(
      accepted(await rawSetup(withTop({ proactivity: { proactiveAudio: false } })(baseSetup('gemini-3.8-live')))),
    ).toBe(true);
    expect((await (await rawSetup({ ...baseSetup('gemini-3.8-live'), voice: 'Kore' })).closed).code).toBe(1007);
  });
});

describe('fake gemini: mid-session clientContent per model', () => {
  const turn = (text: string, turnComplete: boolean) => ({
    clientContent: { turns: [{ role: 'user', parts: [{ text }] }], turnComplete },
  });

  it.each([true, false])('closes 1007 on gemini-3.1-flash-live-preview (turnComplete %s)', async (turnComplete) => {
    fake = await startFakeGemini({ setupDelayMs: 0 });
    const client = await rawSetup(baseSetup('gemini-3.1-flash-live-preview'));
    expect(accepted(client)).toBe(true);
    client.ws.send(JSON.stringify(turn('hello', turnComplete)));
    expect(await client.closed).toEqual({ code: 1007, reason: 'Request contains an invalid argument.' });
    expect(fake.connections[0]!.refusedFor).toMatch(/gemini-3\.1-flash-live-preview rejects mid-session clientContent/);
    expect(fake.connections[0]!.clientContents).toHaveLength(0);
  });

  it('takes realtimeInput.text on gemini-3.1-flash-live-preview', async () => {
    fake = await startFakeGemini({ setupDelayMs: 0 });
    const client = await rawSetup(baseSetup('gemini-3.1-flash-live-preview'));
    client.ws.send(JSON.stringify({ realtimeInput: { text: 'hello' } }));
    const conn = await fake.connection(0);
    await conn.waitFor(() => conn.texts.length === 1, 5000, 'realtime text');
    expect(conn.isOpen).toBe(true);
  });

  it('takes the initial history a 3.1 setup announced, up to its turnComplete, and nothing after', async () => {
    fake = await startFakeGemini({ setupDelayMs: 0 });
    const client = await rawSetup({
      ...baseSetup('gemini-3.1-flash-live-preview'),
      historyConfig: { initialHistoryInClientContent: true },
    });
    client.ws.send(JSON.stringify(turn('earlier', false)));
    client.ws.send(JSON.stringify(turn('last of the history', true)));
    const conn = await fake.connection(0);
    await conn.waitFor(() => conn.clientContents.length === 2, 5000, 'the initial history');
    expect(conn.isOpen).toBe(true);
    client.ws.send(JSON.stringify(turn('mid-session', true)));
    expect((await client.closed).code).toBe(1007);
  });

  it.each(KNOWN_LIVE_MODELS.filter((m) => !m.includes('3.1')))('takes clientContent on %s', async (model) => {
    fake = await startFakeGemini({ setupDelayMs: 0 });
    const client = await rawSetup(baseSetup(model));
    client.ws.send(JSON.stringify(turn('context', false)));
    client.ws.send(JSON.stringify(turn('hello', true)));
    const conn = await fake.connection(0);
    await conn.waitFor(() => conn.clientContents.length === 2, 5000, 'clientContent');
    expect(conn.isOpen).toBe(true);
  });

  it('takes mid-session clientContent on 3.1 with modelRules off', async () => {
    fake = await startFakeGemini({ setupDelayMs: 0, strict: { modelRules: false } });
    const client = await rawSetup(baseSetup('gemini-3.1-flash-live-preview'));
    client.ws.send(JSON.stringify(turn('hello', true)));
    const conn = await fake.connection(0);
    await conn.waitFor(() => conn.clientContents.length === 1, 5000, 'clientContent');
    expect(conn.isOpen).toBe(true);
  });
});

describe('our client against the strict setup', () => {
  const tools = [
    {
      name: 'lookup',
      description: 'Look something up.',
      parameters: {
        type: 'object',
        properties: { q: { type: 'string' }, n: { type: ['integer', 'null'] } },
        required: ['q'],
      },
    },
    { name: 'now', description: 'The time.', parameters: { type: 'object', properties: {} } },
  ];

  it.each(KNOWN_LIVE_MODELS)('its own setup (buildLiveConfig, with tools) is accepted on %s', async (model) => {
    h = await startHarness({}, { model }, { tools, systemInstruction: 'You are a test persona.' });
    const conn = await h.fake.connection(0);
    expect(conn.model).toBe(model);
    expect(Object.keys(conn.setup!).every((key) => SETUP_FIELDS.includes(key))).toBe(true);
    expect(h.fake.connections.map((c) => c.refusedFor)).toEqual([null]);
    expect(conn.isOpen).toBe(true);
  });

  it('injects text on gemini-3.1-flash-live-preview as realtimeInput.text, which is accepted and answered', async () => {
    h = await startHarness({ autoReply: { toneMs: 100 } }, { model: 'gemini-3.1-flash-live-preview' });
    const conn = await h.fake.connection(0);
    const rec = h.rec;
    expect(h.session.addContext('a note')).toBe(false); // nothing sent: 3.1 has no silent clientContent
    h.session.sendText('The build finished.');
    await conn.waitFor(() => conn.texts.length === 1, 5000, 'realtime text');
    expect(conn.texts[0]).toContain('The build finished.');
    await waitUntil(() => rec.turnCompletes === 1, 'the injected text answered');
    expect(rec.outputText).toContain('The build finished.');
    expect(conn.clientContents).toHaveLength(0);
    expect(h.fake.connections.map((c) => c.refusedFor)).toEqual([null]);
    expect(h.fake.established).toHaveLength(1);
    expect(conn.isOpen).toBe(true);
  });
});
