// The wake-name screener against the fake Realtime transcription session: it opens a
// transcription-only session (intent=transcription, type "transcription", no turn detection),
// gets one transcript per commit in order, and a commit the service refuses is no verdict. The
// fake enforces what the guide says of such sessions: no responses, no conversation items, and a
// conversation (model) URL does not take the transcription update.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { OpenAITranscriptionScreener } from '../../../main/core/model/openai/transcription/screener.ts';
import { startFakeOpenAIRealtime } from '../../../main/fakes/openai/index.ts';

const key = ['fake', 'screen', 'key', process.pid.toString(36)].join('-');
const cleanup: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const tone16k = (ms: number, hz: number) =>
  Int16Array.from({ length: 16 * ms }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / 16_000)));

/** The first event of `type` on a raw socket, after sending `events` once the session exists. */
async function rawAnswer(url: string, events: unknown[], type: string): Promise<Record<string, unknown>> {
  const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${key}` } });
  cleanup.push(() => ws.close());
  return new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error(`no ${type}`)), 5000).unref();
    ws.on('message', (data) => {
      const event = JSON.parse(String(data)) as Record<string, unknown>;
      if (event.type === 'session.created') for (const e of events) ws.send(JSON.stringify(e));
      if (event.type === type) resolve(event);
    });
  });
}

describe('wake-name screener on the fake transcription session', () => {
  it('transcribes each commit in order; a commit under 100 ms is no verdict', async () => {
    const heard: number[] = [];
    const fake = await startFakeOpenAIRealtime({
      validKeys: [key],
      transcribe: (pcm) => (heard.push(pcm.length), `utterance ${heard.length}`),
    });
    cleanup.push(() => fake.close());
    const stream = await new OpenAITranscriptionScreener({
      apiKey: key,
      model: 'gpt-4o-mini-transcribe',
      baseUrl: fake.url,
      logger: pino({ level: 'silent' }),
    }).open();
    cleanup.push(() => stream.close());
    stream.sendAudio(tone16k(600, 440));
    const first = stream.transcribe(3000);
    stream.sendAudio(tone16k(400, 700));
    const second = stream.transcribe(3000);
    expect(await first).toBe('utterance 1');
    expect(await second).toBe('utterance 2');
    // 16 kHz in, 24 kHz at the service, each commit only its own audio.
    expect(heard[0]).toBeGreaterThanOrEqual(24 * 590);
    expect(heard[1]).toBeGreaterThanOrEqual(24 * 390);
    expect(heard[1]).toBeLessThanOrEqual(24 * 410);
    stream.sendAudio(tone16k(40, 440));
    expect(await stream.transcribe(3000)).toBeNull();
    const session = fake.transcriptions[0]!;
    expect(session.model).toBe('gpt-4o-mini-transcribe');
    expect(session.errors.map((e) => e.code)).toEqual(['input_audio_buffer_commit_empty']);
    const update = session.received.find((e) => e.type === 'session.update') as {
      session: { type: string; audio: { input: { turn_detection: unknown } } };
    };
    expect(update.session.type).toBe('transcription');
    expect(update.session.audio.input.turn_detection).toBeNull();
  });

  it('the fake refuses responses and items in a transcription session, and a transcription update on a model URL', async () => {
    const fake = await startFakeOpenAIRealtime({ validKeys: [key] });
    cleanup.push(() => fake.close());
    const base = fake.url;
    const refused = await rawAnswer(`${base}/realtime?intent=transcription`, [{ type: 'response.create' }], 'error');
    expect(String((refused.error as { message: string }).message)).toContain('transcription sessions');
    const noItems = await rawAnswer(
      `${base}/realtime?intent=transcription`,
      [
        {
          type: 'conversation.item.create',
          item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        },
      ],
      'error',
    );
    expect(noItems.type).toBe('error');
    const wrongUrl = await rawAnswer(
      `${base}/realtime?model=gpt-realtime-2.1`,
      [{ type: 'session.update', session: { type: 'transcription' } }],
      'error',
    );
    expect((wrongUrl.error as { param: string }).param).toContain('session.type');
  });
});
