// Adaptive patience in a real call on the fakes (issue #52 item 3): the owner is answered, and
// starts talking again right after the reply's first audio (they were not done): the learner
// lengthens their patience one step, the room shows it by name, the call's session is told
// (OpenAI Realtime: a session.update on the live socket), and the database keeps it: the next
// call's first session opens with it. Ordered by events (the reply's packets at the fake Discord), not by clock time; the ~1 s
// cut-off window is the learner's, tested on a manual clock in test/unit/bridge/patience-learner.test.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { PatienceView, RoomView } from '../../../main/core/api-types.ts';
import { speechLikeSignal } from '../../../main/demo/fake-services.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { chirpMono, waitFor } from './signals.ts';

let call: CoreOnFakes | null = null;
afterEach(async () => {
  await call?.close();
  call = null;
});

type Provider = 'gemini' | 'openai-realtime';

describe.each<Provider>(['gemini', 'openai-realtime'])('adaptive patience on %s', (provider) => {
  it('a speaker who resumes right after a reply starts gets one step more, shown by name and kept', async () => {
    const c = await startCoreOnFakes({
      openai: { autoReply: false, vadRms: 2000 },
      env: () => ({ DISCORD_VOICE_LIVE_PROVIDER: provider }),
    });
    call = c;
    expect((await c.post('/join')).status).toBe(200);
    const model = provider === 'gemini' ? await c.gemini.connection(0) : await c.openai.connection(0);
    const owner = c.discord.owner.id;
    await c.discord.speak(owner, new Int16Array(1920 * 3)); // the client announces its SSRC
    const before = ((await c.get('/room/patience')).json as PatienceView).base_ms;
    expect(before).toBe(800);

    // The owner says half a sentence; the model answers it; the owner goes on as its first audio plays.
    await c.discord.speak(owner, speechLikeSignal(0.6, 9000));
    await sleep(300);
    c.discord.recorder.clear();
    const updatesBefore = provider === 'openai-realtime' ? c.openai.connections[0]!.sessionUpdates : 0;
    const reply = model.reply({ pcm: chirpMono(2, 300, 600, 24_000, 12_000), chunkMs: 20, paceMs: 10 });
    await waitFor(() => c.discord.recorder.packets.length >= 1, 'the reply to start playing');
    await c.discord.speak(owner, speechLikeSignal(0.6, 9000));
    await reply;

    const view = (await c.get('/room/patience')).json as PatienceView;
    expect(view.speakers).toEqual([
      expect.objectContaining({ speaker_id: owner, window_ms: 1100, learnt: true, cutoffs: 1 }),
    ]);
    const room = (await c.get('/room')).json as RoomView;
    const shown = room.people.find((p) => p.id === owner)!;
    expect(shown.patience).toMatchObject({ name: shown.name, window_ms: 1100, learnt: true });
    expect(shown.name).not.toBe(owner);
    // The live socket is told where the service takes it mid-session.
    if (provider === 'openai-realtime')
      await waitFor(
        () => c.openai.connections[0]!.sessionUpdates > updatesBefore,
        'a session.update with the longer patience',
      );

    // The next call starts from what was learnt: its first session opens with the owner's window
    // (Gemini takes patience only at setup: realtimeInputConfig.automaticActivityDetection).
    expect((await c.get('/leave')).status).toBe(200);
    expect(((await c.get('/room/patience')).json as PatienceView).speakers[0]).toMatchObject({
      speaker_id: owner,
      window_ms: 1100,
    });
    expect((await c.post('/join')).status).toBe(200);
    expect(((await c.get('/room/patience')).json as PatienceView).base_ms).toBe(800);
    if (provider === 'gemini') {
      const next = await c.gemini.connection(c.gemini.established.length - 1);
      expect(JSON.stringify(next.setup)).toContain('"silenceDurationMs":1100');
    }
  }, 60_000);
});
