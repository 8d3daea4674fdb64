// The OpenAI fakes take silent context the way the services do and refuse what they refuse: on
// Realtime a `system` message item must carry `input_text` parts only; on GPT-Live
// `session.thinking.append` needs non-empty content and an explicit `delegation_id` (null). Raw
// client events over a socket, so the fakes' strictness is tested, not our client's habits.
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import {
  FakeRealtimeConnection,
  startFakeOpenAILive,
  startFakeOpenAIRealtime,
} from '../../../main/fakes/openai/index.ts';

const key = ['fake', 'context', 'key', process.pid.toString(36)].join('-');
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => undefined);
});

/** Open a raw socket; `next(type)` resolves with the next server event of that type. */
async function rawClient(
  url: string,
): Promise<{ send: (e: unknown) => void; next: (type: string) => Promise<Record<string, unknown>> }> {
  const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${key}` } });
  const events: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data) => {
    events.push(JSON.parse(String(data)) as Record<string, unknown>);
    for (const w of waiters.splice(0)) w();
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  cleanup.push(async () => ws.close());
  let seen = 0;
  const next = async (type: string): Promise<Record<string, unknown>> => {
    const deadline = Date.now() + 5000;
    for (;;) {
      while (seen < events.length) {
        const event = events[seen++]!;
        if (event.type === type) return event;
      }
      if (Date.now() > deadline) throw new Error(`no ${type} event`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 100);
      });
    }
  };
  return { send: (e) => ws.send(JSON.stringify(e)), next };
}

describe('silent context on the OpenAI fakes', () => {
  it('realtime: a system input_text item is recorded without a response; other system content is refused', async () => {
    const fake = await startFakeOpenAIRealtime({ validKeys: [key], autoReply: false });
    cleanup.push(() => fake.close());
    const client = await rawClient(`${fake.url.replace(/^http/, 'ws')}/realtime?model=gpt-realtime-2.1`);
    await client.next('session.created');
    client.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'system', content: [{ type: 'output_text', text: '[Speaking now: Olga]' }] },
    });
    expect(((await client.next('error')).error as { code: string }).code).toBe('invalid_value');
    client.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'system', content: [{ type: 'input_text', text: '[Speaking now: Olga]' }] },
    });
    await client.next('conversation.item.added');
    const c = await fake.connection(0);
    expect(c.items.map((i) => `${i.role}: ${i.text}`)).toEqual(['system: [Speaking now: Olga]']);
    expect(c.responses).toBe(0);
  });

  it('live: thinking context is recorded apart from speakable commentary; empty or delegation-less thinking is refused', async () => {
    const fake = await startFakeOpenAILive({ validKeys: [key], autoReply: false });
    cleanup.push(() => fake.close());
    const client = await rawClient(`${fake.url.replace(/^http/, 'ws')}/live/sessions`);
    client.send({ type: 'session.start', session: { model: 'gpt-live-1.1' } });
    await client.next('session.started');
    client.send({ type: 'session.thinking.append', content: '', delegation_id: null });
    await client.next('error');
    client.send({ type: 'session.thinking.append', content: '[Speaking now: Gus]' });
    await client.next('error');
    client.send({ type: 'session.thinking.append', content: '[Speaking now: Gus]', delegation_id: null });
    await client.next('session.thinking.appended');
    const c = await fake.connection(0);
    expect(c.thinking).toEqual(['[Speaking now: Gus]']);
    expect(c.commentary).toEqual([]);
  });

  it('live (GPT-Live 1.1): input PCM at 16 000 Hz is accepted and timed at that rate; other rates are refused', async () => {
    const fake = await startFakeOpenAILive({ validKeys: [key], autoReply: false });
    cleanup.push(() => fake.close());
    const client = await rawClient(`${fake.url.replace(/^http/, 'ws')}/live/sessions`);
    client.send({
      type: 'session.start',
      session: { model: 'gpt-live-1.1', audio: { format: { type: 'audio/pcm', rate: 16000 } } },
    });
    await client.next('session.started');
    const c = await fake.connection(0);
    expect(c.rate).toBe(16000);
    // 100 ms at 16 kHz.
    client.send({ type: 'session.input_audio.append', audio: Buffer.alloc(3200).toString('base64') });
    await vi.waitFor(() => expect(c.usageSeconds).toBe(0.1));
    const other = await rawClient(`${fake.url.replace(/^http/, 'ws')}/live/sessions`);
    other.send({
      type: 'session.start',
      session: { model: 'gpt-live-1.1', audio: { format: { type: 'audio/pcm', rate: 22050 } } },
    });
    await other.next('error');
  });

  it("realtime: a session ends at the service's 60 minutes by default (session_expired, close 1001); sooner or never when asked", async () => {
    const expiries = vi.spyOn(FakeRealtimeConnection.prototype, 'expireAfter');
    cleanup.push(async () => expiries.mockRestore());
    for (const [options, expected] of [
      [{}, 60 * 60_000],
      [{ sessionLifetimeMs: 150 }, 150],
      [{ sessionLifetimeMs: null }, undefined],
    ] as const) {
      expiries.mockClear();
      const fake = await startFakeOpenAIRealtime({ validKeys: [key], autoReply: false, ...options });
      cleanup.push(() => fake.close());
      const client = await rawClient(`${fake.url.replace(/^http/, 'ws')}/realtime?model=gpt-realtime-2.1`);
      await client.next('session.created');
      expect(expiries.mock.calls.map((call) => call[0])).toEqual(expected === undefined ? [] : [expected]);
      if (expected === 150)
        expect(((await client.next('error')).error as { code: string }).code).toBe('session_expired');
    }
  });
});
