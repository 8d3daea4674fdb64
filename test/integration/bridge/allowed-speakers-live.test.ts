// Allowed speakers saved in Settings apply at once, mid-call, with no restart: judged by the fake
// Gemini's record (a guest's speech reaches the model only while the guest is allowed) and by
// GET /room (the guest's role). Removing the guest again stops their audio at their next utterance.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoomView } from '../../../main/core/api-types.ts';
import { createConfSettingsStore } from '../../../main/core/settings/conf-store.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { rawRequest } from '../../helpers/http.ts';
import { chirpStereo, waitFor } from './signals.ts';

let call: CoreOnFakes;
let settingsDir: string;
let guestId: string;

const SPEECH_S = 1;
/** The voice gate's 500 ms hangover plus margin: speech let through has reached the model by then. */
const SETTLE_MS = 800;
const speech = chirpStereo(SPEECH_S, 300, 3000, 48_000);
const modelSamples = () => call.gemini.connections.reduce((n, c) => n + c.inputSamples, 0);

async function saveAllowed(ids: string[]): Promise<void> {
  const res = await rawRequest({
    port: call.t.port,
    method: 'PUT',
    path: '/settings',
    headers: { ...call.t.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ values: { allowedSpeakers: ids } }),
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
}

/**
 * The previous turn is over: the model's audio stops growing. A turn the model hears stays open
 * through its pause (paced silence) until the service ends it or the bridge's silence cap (issue #52).
 */
async function previousTurnEnded(): Promise<void> {
  let last = -1;
  await waitFor(async () => {
    const now = modelSamples();
    if (now === last) return true;
    last = now;
    await sleep(300);
    return false;
  }, 'the previous turn to end');
}

const guestRole = async () => ((await call.get('/room')).json as RoomView).people.find((p) => p.id === guestId)?.role;

beforeAll(async () => {
  settingsDir = mkdtempSync(path.join(tmpdir(), 'lvb-allowed-live-'));
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null, autoReply: { transcript: 'Heard you.' } },
    core: { settingsStore: createConfSettingsStore({ dir: settingsDir }) },
  });
  guestId = call.discord.user('guest').id;
  call.discord.userJoinVoice(guestId);
  expect((await call.post('/join')).status).toBe(200);
  await call.gemini.connection(0);
}, 60_000);

afterAll(async () => {
  await call?.close();
  rmSync(settingsDir, { recursive: true, force: true });
});

describe('allowed speakers saved mid-call', () => {
  it('a guest who is not allowed is not heard by the model', async () => {
    expect(await guestRole()).toBe('listener');
    const before = modelSamples();
    await call.discord.speak(guestId, speech);
    await sleep(SETTLE_MS);
    expect(modelSamples()).toBe(before);
  });

  it('allowed in Settings: the same guest is heard at their next utterance, no restart', async () => {
    await saveAllowed([call.discord.owner.id, guestId]);
    expect(await guestRole()).toBe('speaker');
    const before = modelSamples();
    await call.discord.speak(guestId, speech);
    await waitFor(() => modelSamples() - before >= 0.9 * SPEECH_S * 16_000, "the model to hear the guest's speech");
  });

  it('removed while speaking: once they stop, the room no longer shows them speaking', async () => {
    const speaking = async () =>
      ((await call.get('/room')).json as RoomView).people.find((p) => p.id === guestId)?.speaking;
    const talking = call.discord.speak(guestId, speech);
    await waitFor(async () => (await speaking()) === true, 'the guest to be seen speaking');
    await saveAllowed([call.discord.owner.id]);
    await talking;
    await waitFor(async () => (await speaking()) === false, 'the guest to be seen silent after they stop');
    await saveAllowed([call.discord.owner.id, guestId]);
  });

  it('removed again: the guest is no longer heard', async () => {
    await saveAllowed([call.discord.owner.id]);
    expect(await guestRole()).toBe('listener');
    await previousTurnEnded();
    const before = modelSamples();
    await call.discord.speak(guestId, speech);
    await sleep(SETTLE_MS);
    expect(modelSamples()).toBe(before);
  });
});
