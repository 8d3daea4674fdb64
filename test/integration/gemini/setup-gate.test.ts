// The close-then-resume rotation dials the next socket while the old one is still closing, and
// holds its `setup` until the gate opens (the old socket has closed). What the service sees: a
// WebSocket that is open but silent, then the setup once the gate settles.
import { setTimeout as sleep } from 'node:timers/promises';
import { GoogleGenAI } from '@google/genai';
import { afterEach, expect, it } from 'vitest';
import { guardLiveSockets } from '../../../main/core/model/gemini/guarded-socket.ts';
import { startFakeGemini, type FakeGemini } from '../../../main/fakes/gemini/index.ts';
import { fakeKey, waitUntil } from './helpers.ts';

let fake: FakeGemini | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

it('a gated socket is dialled at once but sends setup only when its gate settles', async () => {
  fake = await startFakeGemini();
  const ai = new GoogleGenAI({ apiKey: fakeKey(), httpOptions: { baseUrl: fake.url, apiVersion: 'v1beta' } });
  const claim = guardLiveSockets(ai);
  let openGate: () => void = () => undefined;
  const setupGate = new Promise<void>((resolve) => (openGate = resolve));
  claim({ onBadMessage: () => undefined, setupGate });
  let connected = false;
  const session = ai.live.connect({ model: 'gemini-3.8-live', callbacks: { onmessage: () => undefined } }).then((s) => {
    connected = true;
    return s;
  });

  const server = fake;
  await waitUntil(() => server.connections.length === 1, 'the socket dialled before the gate opens');
  await sleep(300); // room for a setup that should not come
  expect(server.connections[0]!.setup).toBeNull();
  expect(connected).toBe(false);

  openGate();
  const live = await session;
  expect(server.connections[0]!.setup).toMatchObject({ model: 'models/gemini-3.8-live' });
  live.close();
});
