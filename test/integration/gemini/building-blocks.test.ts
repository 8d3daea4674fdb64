// The provider's building blocks on their own, with a manual clock: rate limiting, text gating,
// schema translation and failure classification.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  classifyFailure,
  FrameLimiter,
  jsonSchemaToGeminiSchema,
  ManualClock,
  TextInjectionQueue,
} from '../../../main/core/model/index.ts';
import type { FrameSendResult } from '../../../main/core/ports.ts';

describe('FrameLimiter', () => {
  it('sends immediately when the slot is free, keeps only the newest waiting frame, and sends it when the slot opens', async () => {
    const clock = new ManualClock();
    const sentAt: number[] = [];
    const sentImages: Buffer[] = [];
    const limiter = new FrameLimiter({
      clock,
      send: async (image): Promise<FrameSendResult> => {
        sentAt.push(clock.now());
        sentImages.push(image);
        return { status: 'sent' };
      },
    });
    const img = (n: number): Promise<Buffer> =>
      sharp({ create: { width: 4, height: 4, channels: 3, background: { r: n, g: 0, b: 0 } } })
        .png()
        .toBuffer();
    const [a, b, c, d] = await Promise.all([img(1), img(2), img(3), img(4)]);
    const ra = limiter.submit(a!);
    clock.advance(500);
    const rb = limiter.submit(b!);
    clock.advance(200);
    const rc = limiter.submit(c!);
    expect(await rb).toEqual({ status: 'dropped', reason: 'rate_limited' });
    clock.advance(300); // t = 1000: the slot opens
    expect(await ra).toEqual({ status: 'sent' });
    expect(await rc).toEqual({ status: 'sent' });
    clock.advance(2000); // a frame after a quiet period goes straight out
    expect(await limiter.submit(d!)).toEqual({ status: 'sent' });
    expect(sentAt).toEqual([0, 1000, 3000]);
    expect(sentImages).toEqual([a, c, d]);
    expect(limiter.stats).toEqual({ sent: 3, dropped: 1 });
    const waiting = limiter.submit(a!);
    limiter.close();
    expect(await waiting).toEqual({ status: 'dropped', reason: 'closed' });
  });
});

describe('TextInjectionQueue', () => {
  it('delivers nothing while the model speaks or the user talks, then everything waiting as one turn', () => {
    const clock = new ManualClock();
    const turns: string[][] = [];
    const queue = new TextInjectionQueue({ clock, replyWaitMs: 1000, deliver: (t) => (turns.push([...t]), true) });
    queue.modelActivity();
    queue.enqueue('one');
    queue.enqueue('two');
    expect(turns).toEqual([]);
    queue.userAudio();
    queue.modelTurnEnded();
    expect(turns).toEqual([]); // the user is talking
    queue.userAudioEnded();
    clock.advance(999);
    expect(turns).toEqual([]); // a reply to the user may be about to start
    clock.advance(1);
    expect(turns).toEqual([['one', 'two']]);
  });

  it('keeps texts while there is no connection and sends them once one is back', () => {
    const clock = new ManualClock();
    let online = false;
    const turns: string[][] = [];
    const queue = new TextInjectionQueue({ clock, deliver: (t) => (online ? (turns.push([...t]), true) : false) });
    queue.enqueue('hello');
    expect(queue.size).toBe(1);
    online = true;
    queue.tryFlush();
    expect(turns).toEqual([['hello']]);
    expect(queue.size).toBe(0);
  });
});

describe('jsonSchemaToGeminiSchema', () => {
  it('turns zod JSON Schema into the OpenAPI subset Live accepts', () => {
    const schema = z.toJSONSchema(
      z.object({
        mode: z.enum(['voice', 'dm']),
        count: z.number().int().max(5).nullable(),
        tags: z.array(z.string()).optional(),
        nested: z.object({ on: z.boolean() }),
      }),
      { io: 'input' },
    );
    expect(jsonSchemaToGeminiSchema(schema)).toEqual({
      type: 'OBJECT',
      properties: {
        mode: { type: 'STRING', enum: ['voice', 'dm'] },
        count: { type: 'INTEGER', maximum: 5, nullable: true },
        tags: { type: 'ARRAY', items: { type: 'STRING' } },
        nested: { type: 'OBJECT', properties: { on: { type: 'BOOLEAN' } }, required: ['on'] },
      },
      required: ['mode', 'count', 'nested'],
    });
  });
});

describe('classifyFailure', () => {
  it.each([
    [1007, 'API key not valid. Please pass a valid API key.', 'auth'],
    [1006, 'Unexpected server response: 403', 'auth'],
    [1008, 'models/x is not found for API version v1beta, or is not supported for bidiGenerateContent.', 'model'],
    [1007, 'Request contains an invalid argument.', 'model'],
    [1008, 'Invalid session resumption handle.', 'handle'],
    [1011, 'Internal error occurred.', 'transient'],
    [1006, 'connect ECONNREFUSED 127.0.0.1:9', 'transient'],
  ] as const)('%i %s → %s', (code, reason, kind) => {
    expect(classifyFailure(code, reason)).toBe(kind);
  });
});
