// The receive path's speaking timers: @discordjs/voice's SpeakingMap makes a new 100 ms end timer
// for every packet; the receiver re-arms the pending one instead, with the same start and end.
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { SpeakingMap, type VoiceReceiver } from '@discordjs/voice';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { OpusFactory } from '../../../main/core/voice/opus.ts';
import { SpeakerReceiver } from '../../../main/core/voice/receive.ts';

describe('SpeakerReceiver speaking timers', () => {
  it('one end timer per burst, not one per packet; speech still ends 100 ms after the last packet', async () => {
    const speaking = new SpeakingMap();
    const streams: EventEmitter[] = [];
    const receiver = {
      speaking,
      subscribe: () => {
        const stream = Object.assign(new EventEmitter(), { destroy: () => undefined });
        streams.push(stream);
        return stream;
      },
    } as unknown as VoiceReceiver;
    const opus = { create: () => ({ decode: () => 0, destroy: () => undefined }) } as unknown as OpusFactory;
    const events: string[] = [];
    const sink = { pcm: () => undefined, speakingStart: (id: string) => events.push(`start ${id}`), speakingEnd: (id: string) => events.push(`end ${id}`) };
    const rx = new SpeakerReceiver(receiver, { isAllowed: () => true, opus, sink, logger: pino({ level: 'silent' }) });
    const timers = (speaking as unknown as { speakingTimeouts: Map<string, NodeJS.Timeout> }).speakingTimeouts;

    speaking.onPacket('u1');
    const first = timers.get('u1');
    expect(first).toBeDefined();
    for (let i = 0; i < 5; i++) {
      await sleep(20);
      speaking.onPacket('u1');
      expect(timers.get('u1')).toBe(first); // re-armed, not replaced
    }
    expect(events).toEqual(['start u1']);
    await sleep(60);
    expect(events).toEqual(['start u1']); // 60 ms after the last packet: still speaking
    await sleep(150);
    expect(events).toEqual(['start u1', 'end u1']);
    expect(timers.has('u1')).toBe(false);
    speaking.onPacket('u1'); // the next burst starts again
    expect(events.at(-1)).toBe('start u1');
    expect(streams.length).toBeGreaterThanOrEqual(1);
    rx.close();
  });
});
