// Settings saved during a call reach that call's model (#37 Build 4), through the real parts: the
// headless core, PUT /settings (what the dashboard sends), the fake Discord and the fake Gemini.
// - Gemini 3.8 takes a new persona mid-session: the fake records a `contextUpdate` carrying it, and
//   the call keeps its one socket (no reconnect).
// - Gemini 3.1 refuses `contextUpdate` (1007): none is sent, and the persona applies from the next
//   socket's setup.
// - The room's display names and the wake names go into the transcription vocabulary.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createConfSettingsStore } from '../../../main/core/settings/conf-store.ts';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { rawRequest } from '../../helpers/http.ts';
import { waitFor } from './signals.ts';

const FIRST = 'You are Ada, a calm helper. (first persona)';
const SECOND = 'You are Bartholomew, a pirate who answers in rhyme. (second persona)';

let call: CoreOnFakes | undefined;
let dir: string | undefined;

afterEach(async () => {
  await call?.close();
  call = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function startCall(
  model?: string,
  provider?: 'openai-realtime' | 'openai-live',
): Promise<{ call: CoreOnFakes; first: FakeGeminiConnection; second: string }> {
  dir = mkdtempSync(path.join(tmpdir(), 'lvb-context-live-'));
  const firstFile = path.join(dir, 'first.md');
  const secondFile = path.join(dir, 'second.md');
  writeFileSync(firstFile, FIRST);
  writeFileSync(secondFile, SECOND);
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null },
    env: () => ({
      DISCORD_VOICE_LIVE_PERSONA_FILE: firstFile,
      DISCORD_VOICE_LIVE_WAKE_NAMES: 'Gemini',
      ...(model ? { GEMINI_MODEL: model, GEMINI_LIVE_MODEL_FALLBACKS: '' } : {}),
      ...(provider ? { DISCORD_VOICE_LIVE_PROVIDER: provider } : {}),
    }),
    core: { settingsStore: createConfSettingsStore({ dir: path.join(dir, 'settings') }) },
  });
  const guest = call.discord.user('guest');
  call.discord.userJoinVoice(guest.id);
  expect((await call.post('/join')).status).toBe(200);
  if (provider) return { call, first: null as never, second: secondFile };
  const first = await call.gemini.connection(0);
  return { call, first, second: secondFile };
}

async function savePersona(c: CoreOnFakes, file: string): Promise<void> {
  const res = await rawRequest({
    port: c.t.port,
    method: 'PUT',
    path: '/settings',
    headers: { ...c.t.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ values: { personaFile: file } }),
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
}

const instructionOf = (c: FakeGeminiConnection) => JSON.stringify(c.setup?.systemInstruction ?? null);

describe('settings saved mid-call', () => {
  it('Gemini 3.8: a new persona goes out as a contextUpdate on the same socket, no reconnect', async () => {
    const { call: c, first, second } = await startCall();
    expect(instructionOf(first)).toContain('first persona');
    await savePersona(c, second);
    await first.waitFor(() => first.contextUpdates.length > 0, 10_000, 'a contextUpdate');
    expect(JSON.stringify(first.contextUpdates[0])).toContain('second persona');
    expect(JSON.stringify(first.contextUpdates[0])).not.toContain('first persona');
    expect(first.isOpen).toBe(true);
    expect(c.gemini.established).toHaveLength(1);
    expect(((await c.get('/health')).json as { bridge: { state: string } }).bridge.state).toBe('connected');
    // Saving the same settings again sends nothing more.
    await savePersona(c, second);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(first.contextUpdates).toHaveLength(1);
  }, 60_000);

  it('Gemini 3.1: no contextUpdate is sent; the next socket of the call opens with the new persona', async () => {
    const { call: c, first, second } = await startCall('gemini-3.1-flash-live-preview');
    await savePersona(c, second);
    // The service drops the socket: the call resumes on a new one, whose setup carries the change.
    first.drop();
    const next = await c.gemini.connection(1);
    expect(first.received.some((m) => 'contextUpdate' in m)).toBe(false);
    expect(first.refusedFor).toBeNull();
    expect(instructionOf(next)).toContain('second persona');
    await waitFor(
      async () => ((await c.get('/health')).json as { bridge: { state: string } }).bridge.state === 'connected',
      'the call connected again',
    );
  }, 60_000);

  it('OpenAI Realtime: a new persona goes out as a session.update on the same socket; names bias its transcription', async () => {
    const { call: c, second } = await startCall(undefined, 'openai-realtime');
    const socket = await c.openai.connection(0);
    const sessionUpdates = () => socket.received.filter((m) => m.type === 'session.update');
    await waitFor(() => JSON.stringify(socket.session).includes('first persona'), 'the first persona in the session');
    // The wake names reach the transcription model's prompt (its documented bias).
    expect(JSON.stringify(socket.session)).toMatch(/"prompt":"Names that may be said: [^"]*Gemini/);
    const before = sessionUpdates().length;
    await savePersona(c, second);
    await waitFor(
      () => JSON.stringify(sessionUpdates().slice(before)).includes('second persona'),
      'a session.update with the new persona mid-call',
    );
    // Only what changed: the update names no audio format, voice or model.
    expect(
      sessionUpdates()
        .slice(before)
        .every((m) => !JSON.stringify(m).includes('"audio"')),
    ).toBe(true);
    expect(JSON.stringify(socket.session)).toContain('second persona');
    expect(socket.errors).toEqual([]);
    expect(socket.isOpen).toBe(true);
    expect(c.openai.established).toHaveLength(1);
  }, 60_000);

  it('GPT-Live: a new persona is appended to its instructions on the same socket (it cannot replace them)', async () => {
    const { call: c, second } = await startCall(undefined, 'openai-live');
    const socket = await c.openaiLive.connection(0);
    await savePersona(c, second);
    await waitFor(
      () => socket.instructions.some((text) => text.includes('second persona')),
      'the new persona appended mid-call',
    );
    expect(socket.instructions.find((text) => text.includes('second persona'))).toMatch(
      /^From now on, follow these instructions instead/,
    );
    expect(socket.isOpen).toBe(true);
    expect(c.openaiLive.established).toHaveLength(1);
  }, 60_000);

  it("the wake names and the room's display names bias input transcription (from the socket after the join)", async () => {
    const { call: c, first } = await startCall();
    const vocabularyOf = (conn: FakeGeminiConnection) =>
      (conn.setup?.inputAudioTranscription as { customVocabulary?: string[] } | undefined)?.customVocabulary ?? [];
    // The first socket opens while the bot joins (who is in the room is not known yet): the wake names.
    expect(vocabularyOf(first)).toContain('Gemini');
    // Names are never sent mid-session; the call's next socket carries the room's names too.
    first.drop();
    const next = await c.gemini.connection(1);
    expect(vocabularyOf(next)).toEqual(expect.arrayContaining(['Gemini', 'guest', 'owner']));
  }, 60_000);
});
