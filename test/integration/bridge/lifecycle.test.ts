// Bridge.start()/stop() close what they opened on every exit path: a real Bridge and the real
// Gemini provider (@google/genai) against the fake service, with a scripted voice port. The fake
// counts the sessions it accepted and whether each was closed again; every test must end with as
// many closed as opened, and the voice channel left.
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Bridge } from '../../../main/core/bridge/bridge.ts';
import { BridgeError } from '../../../main/core/bridge/types.ts';
import { EventHub } from '../../../main/core/event-hub.ts';
import { createGeminiProvider } from '../../../main/core/model/index.ts';
import type { ConnectionState } from '../../../main/core/api-types.ts';
import type { VoiceChannelEvents, VoiceChannelPort, VoiceTarget } from '../../../main/core/ports.ts';
import { ToolRegistry } from '../../../main/core/tools/registry.ts';
import { startFakeGemini, type FakeGemini, type FakeGeminiOptions } from '../../../main/fakes/gemini/index.ts';
import { openNotesDb } from '../../helpers/notes-db.ts';
import { captureLogger, fakeKey, waitUntil } from '../gemini/helpers.ts';

const TARGET: VoiceTarget = { guildId: '100000000000000001', channelId: '100000000000000002' };

/** A voice port whose join is settled by the test: reject, resolve, or only after a delay. */
class ScriptedVoice extends EventEmitter<VoiceChannelEvents> implements VoiceChannelPort {
  state: ConnectionState = 'disconnected';
  readonly opusLibrary = null;
  joins = 0;
  leaves = 0;
  #settle: { resolve: (t: VoiceTarget) => void; reject: (e: Error) => void } | null = null;

  join(): Promise<VoiceTarget> {
    this.joins++;
    return new Promise((resolve, reject) => {
      this.#settle = {
        resolve: (t) => {
          this.state = 'connected';
          resolve(t);
        },
        reject,
      };
    });
  }
  get joinPending(): boolean {
    return this.#settle !== null;
  }
  resolveJoin(): void {
    this.#settle?.resolve(TARGET);
    this.#settle = null;
  }
  rejectJoin(message: string): void {
    this.#settle?.reject(new Error(message));
    this.#settle = null;
  }
  async leave(): Promise<void> {
    this.leaves++;
    this.state = 'disconnected';
  }
  startPlayback(): void {}
  stopPlayback(): void {}
}

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setUp(fakeOptions: FakeGeminiOptions = {}, key = fakeKey('lifecycle')) {
  fake = await startFakeGemini(fakeOptions);
  const { logger } = captureLogger();
  const model = createGeminiProvider({
    apiKey: key,
    model: 'gemini-3.8-live',
    voice: 'Kore',
    baseUrl: fake.url,
    backoff: { initialMs: 20, maxMs: 100, maxAttempts: 2 },
    logger,
  });
  const voice = new ScriptedVoice();
  const notes = openNotesDb(mkdtempSync(path.join(tmpdir(), 'lvb-lifecycle-'))).log();
  const bridge = new Bridge({ voice, model, tools: new ToolRegistry(), notes, hub: new EventHub(), logger });
  const opened = () => fake!.established.length;
  const closed = () => fake!.established.filter((c) => !c.isOpen).length;
  return { fake, voice, bridge, opened, closed };
}

describe('Bridge lifecycle on the real provider and the fake Gemini', () => {
  it('a join that fails while the model is still connecting closes the session that opens later (1 opened, 1 closed)', async () => {
    const { fake, voice, bridge, opened, closed } = await setUp({ setupDelayMs: 400 });
    const starting = bridge.start();
    await waitUntil(() => voice.joinPending && fake.upgradeAttempts > 0, 'the join and the model connect to begin');
    voice.rejectJoin('the owner is not in a voice channel');
    const err = await starting.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BridgeError);
    expect((err as BridgeError).code).toBe('join_failed');
    expect(bridge.status().state).toBe('error');
    await waitUntil(() => opened() === 1 && closed() === 1, 'the late session to be closed', 15_000);
    // Nothing reopens it (no reconnect loop on a session we closed).
    await new Promise((r) => setTimeout(r, 300));
    expect([opened(), closed()]).toEqual([1, 1]);
    expect(fake.established[0]!.closedBy).toBe('client');
    expect(voice.leaves).toBeGreaterThanOrEqual(1);
  });

  it('each /join retry after a failed join leaks nothing', async () => {
    const { voice, bridge, opened, closed } = await setUp({ setupDelayMs: 100 });
    for (let i = 0; i < 3; i++) {
      const starting = bridge.start();
      await waitUntil(() => voice.joinPending, 'the join to begin');
      voice.rejectJoin('no channel');
      await expect(starting).rejects.toMatchObject({ code: 'join_failed' });
    }
    await waitUntil(() => opened() === 3 && closed() === 3, 'every session closed', 15_000);
  });

  it('a model that fails while the join is pending leaves the channel once the join lands', async () => {
    const { voice, bridge, opened } = await setUp({ validKeys: ['another-key'] });
    const starting = bridge.start();
    await waitUntil(() => voice.joinPending, 'the join to begin');
    // The model is refused (bad key) while the join is still pending; the join then succeeds.
    const early = await Promise.race([
      starting.then(
        () => 'settled',
        () => 'settled',
      ),
      new Promise((r) => setTimeout(() => r('pending'), 300)),
    ]);
    expect(early).toBe('pending');
    voice.resolveJoin();
    await expect(starting).rejects.toMatchObject({ code: 'model_failed' });
    expect(voice.state).toBe('disconnected');
    expect(voice.leaves).toBeGreaterThanOrEqual(1);
    expect(opened()).toBe(0);
  });

  it('stop() while connecting cancels the call and closes the session and the channel', async () => {
    const { fake, voice, bridge, opened, closed } = await setUp({ setupDelayMs: 200 });
    const starting = bridge.start();
    await waitUntil(() => voice.joinPending && fake.upgradeAttempts > 0, 'the call to be connecting');
    const stopping = bridge.stop('user pressed stop');
    voice.resolveJoin();
    const stopped = await stopping;
    expect(stopped.stopped).toBe(true);
    expect(stopped.status.state).toBe('stopped');
    await expect(starting).rejects.toMatchObject({ code: 'cancelled' });
    expect(bridge.status().state).toBe('stopped');
    expect(voice.state).toBe('disconnected');
    await waitUntil(() => opened() === 1 && closed() === 1, 'the session to be closed', 15_000);
  });

  it('a normal call then stop() closes its one session', async () => {
    const { voice, bridge, opened, closed } = await setUp();
    const starting = bridge.start();
    await waitUntil(() => voice.joinPending, 'the join to begin');
    voice.resolveJoin();
    expect((await starting).state).toBe('connected');
    await bridge.stop();
    await waitUntil(() => opened() === 1 && closed() === 1, 'the session to be closed');
    expect(voice.state).toBe('disconnected');
  });
});
