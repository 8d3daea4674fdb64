import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { FrameError, ManualClock } from '../../../main/core/model/index.ts';
import type { FakeGeminiConnection, JsonObject } from '../../../main/fakes/gemini/index.ts';
import { numberedChunk, startHarness, waitUntil, type Harness } from './helpers.ts';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

function solidPng(width: number, height: number, rgb: { r: number; g: number; b: number }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: rgb } })
    .png()
    .toBuffer();
}

describe('gemini live: text injection', () => {
  it('holds /say text while the model speaks and delivers it as the next turn, without interrupting', async () => {
    h = await startHarness({ autoReply: { toneMs: 200 } });
    const conn = await h.fake.connection(0);
    const rec = h.rec;
    const reply = conn.reply({ toneMs: 1200, chunkMs: 40, paceMs: 15, transcript: 'a long answer in progress' });
    await waitUntil(() => rec.audio.length >= 3, 'reply in progress');
    h.session.sendText('The build finished.');
    expect(conn.clientContents).toHaveLength(0); // not sent mid-reply
    expect(await reply).toBe('complete'); // the reply ran to its end
    await conn.waitFor(() => conn.clientContents.length === 1, 5000, 'clientContent');
    const content = conn.clientContents[0] as {
      turns: { role: string; parts: { text: string }[] }[];
      turnComplete: boolean;
    };
    expect(content.turnComplete).toBe(true);
    expect(content.turns[0]!.role).toBe('user');
    expect(content.turns[0]!.parts[0]!.text).toContain('The build finished.');
    // spoken in the next turn
    await waitUntil(() => rec.turnCompletes === 2, 'second turn');
    expect(rec.outputText.startsWith('a long answer in progress')).toBe(true);
    expect(rec.outputText).toContain('The build finished.');
    expect(rec.interrupted).toBe(0);
  });

  it('waits for the user to finish and for the reply to them before speaking queued text', async () => {
    h = await startHarness({ autoReply: { toneMs: 200, transcript: 'Answer to you.' } }, { replyWaitMs: 2000 });
    const conn = await h.fake.connection(0);
    const rec = h.rec;
    for (let i = 0; i < 10; i++) h.session.sendAudio(numberedChunk(i));
    h.session.sendText('Reminder: stand-up in five minutes.');
    h.session.endAudioInput();
    await waitUntil(() => rec.turnCompletes === 2, 'reply to the user, then the injected turn');
    expect(rec.outputTranscripts.join('').indexOf('Answer to you.')).toBe(0);
    expect(rec.outputText).toContain('Reminder: stand-up in five minutes.');
    // the injection came after the user's turn ended
    const endIndex = conn.received.findIndex(
      (m) => (m.realtimeInput as { audioStreamEnd?: boolean } | undefined)?.audioStreamEnd,
    );
    const textIndex = conn.received.findIndex((m) => m.clientContent);
    expect(endIndex).toBeGreaterThanOrEqual(0);
    expect(textIndex).toBeGreaterThan(endIndex);
    expect(rec.interrupted).toBe(0);
  });

  it('a text queued while the service was down waits for the reply to the speech sent again on the new socket', async () => {
    h = await startHarness(
      { autoReply: { toneMs: 300, transcript: 'Answer to you.' } },
      { backoff: { initialMs: 100, maxMs: 200, maxAttempts: 50 } },
    );
    const first = await h.fake.connection(0);
    const rec = h.rec;
    h.fake.setUnavailable(true);
    await waitUntil(() => first.closedBy === 'server', 'the outage cut the socket');
    // Said while no socket was up: held, with its end, and sent again once one is.
    for (let i = 0; i < 10; i++) h.session.sendAudio(numberedChunk(i));
    h.session.endAudioInput();
    await new Promise((resolve) => setTimeout(resolve, 1700)); // the wait for a reply to it (1.5 s) is over
    h.session.sendText('Reminder: stand-up in five minutes.');
    let textAt = 0;
    h.fake.on('setup', (connection: FakeGeminiConnection) =>
      connection.on('message', (message: JsonObject) => {
        if (message.clientContent && textAt === 0) textAt = Date.now();
      }),
    );
    h.fake.setUnavailable(false);
    const next = await h.fake.connection(1); // no upgrade succeeded during the outage
    await waitUntil(() => rec.turnCompletes === 2, 'the reply to the user, then the injected turn');
    // The text went out after the reply to the speech began: written with it, it would be the turn
    // the service answers while the user's question is cut off or dropped.
    const endIndex = next.received.findIndex(
      (m) => (m.realtimeInput as { audioStreamEnd?: boolean } | undefined)?.audioStreamEnd,
    );
    const textIndex = next.received.findIndex((m) => m.clientContent);
    expect(endIndex).toBeGreaterThanOrEqual(0);
    expect(textIndex).toBeGreaterThan(endIndex);
    expect(textAt).toBeGreaterThanOrEqual(next.replyTimings[0]!.startedAt);
    expect(rec.outputTranscripts.join('').indexOf('Answer to you.')).toBe(0);
    expect(rec.outputText).toContain('Reminder: stand-up in five minutes.');
    expect(rec.interrupted).toBe(0);
  });

  it('uses realtimeInput.text on gemini-3.1-flash-live-preview (mid-session clientContent was rejected there)', async () => {
    h = await startHarness({}, { model: 'gemini-3.1-flash-live-preview' });
    const conn = await h.fake.connection(0);
    h.session.sendText('hello from the sidecar');
    await conn.waitFor(() => conn.texts.length === 1, 5000, 'realtime text');
    expect(conn.texts[0]).toContain('hello from the sidecar');
    expect(conn.clientContents).toHaveLength(0);
  });
});

describe('gemini live: frames', () => {
  it('converts a PNG to a JPEG whose long side is 768 px', async () => {
    h = await startHarness();
    const conn = await h.fake.connection(0);
    const result = await h.session.sendFrame(await solidPng(2000, 1000, { r: 10, g: 200, b: 30 }));
    expect(result).toMatchObject({ status: 'sent', width: 768, height: 384 });
    await conn.waitFor(() => conn.frames.length === 1, 5000, 'frame');
    const frame = conn.frames[0]!;
    expect(frame.mimeType).toBe('image/jpeg');
    expect([...frame.data.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const meta = await sharp(frame.data).metadata();
    expect(meta.format).toBe('jpeg');
    expect(Math.max(meta.width, meta.height)).toBe(768);
    expect(result.bytes).toBe(frame.data.length);
  });

  it('sends at most one frame per second: a burst of 10 yields 2 sent, the newest wins', async () => {
    const clock = new ManualClock();
    h = await startHarness({}, { clock });
    const conn = await h.fake.connection(0);
    const colors = Array.from({ length: 10 }, (_, i) => ({ r: 250 - i * 25, g: 0, b: i * 25 }));
    const images = await Promise.all(colors.map((c) => solidPng(64, 48, c)));
    const results = [];
    for (const image of images) {
      results.push(h.session.sendFrame(image));
      clock.advance(100); // ten frames inside one second
    }
    const settled = await Promise.all(results);
    expect(settled.filter((r) => r.status === 'sent')).toHaveLength(2);
    expect(settled.filter((r) => r.status === 'dropped' && r.reason === 'rate_limited')).toHaveLength(8);
    expect(settled[0]!.status).toBe('sent');
    expect(settled[9]!.status).toBe('sent'); // the newest of the burst, not a stale one
    await conn.waitFor(() => conn.frames.length === 2, 5000, 'two frames');
    const last = await sharp(conn.frames[1]!.data).stats();
    expect(last.channels[2]!.mean).toBeGreaterThan(last.channels[0]!.mean); // blue-ish: frame #9
    expect(h.session.stats.frames).toEqual({ sent: 2, dropped: 8 });
  });

  it('rejects bytes that are not an image', async () => {
    h = await startHarness();
    await expect(h.session.sendFrame(Buffer.from('definitely not an image'))).rejects.toBeInstanceOf(FrameError);
  });
});
