// The fakes' shared "wait until this holds" (main/fakes/shared/ws-server.ts): it re-checks on the
// watched events only, settles once, and leaves no listener behind on the emitter either way.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { nthEstablished, waitUntil, watchEvents } from '../../../main/fakes/shared/ws-server.ts';

interface Events {
  message: [text: string];
  close: [code: number, reason: string];
  other: [];
}

describe('waitUntil on watched events', () => {
  it('resolves at the watched event that makes the predicate hold, then removes its listeners', async () => {
    const emitter = new EventEmitter<Events>();
    let count = 0;
    const waiting = waitUntil(
      watchEvents<Events>(emitter, ['message', 'close']),
      () => count >= 2,
      10_000,
      () => 'never',
    );
    expect(emitter.listenerCount('message')).toBe(1);
    count = 2;
    emitter.emit('other'); // not watched: nothing re-checks yet
    expect(emitter.listenerCount('message')).toBe(1);
    emitter.emit('close', 1000, 'bye');
    await waiting;
    expect(emitter.listenerCount('message') + emitter.listenerCount('close')).toBe(0);
  });

  it('rejects with the description after the timeout and removes its listeners', async () => {
    const emitter = new EventEmitter<Events>();
    await expect(
      waitUntil(
        watchEvents<Events>(emitter, ['message']),
        () => false,
        20,
        () => 'nothing came',
      ),
    ).rejects.toThrow('nothing came');
    expect(emitter.listenerCount('message')).toBe(0);
  });

  it('nthEstablished resolves with the n-th connection once the ready event reports it', async () => {
    const server = Object.assign(new EventEmitter<{ ready: [] }>(), { established: [] as string[] });
    const second = nthEstablished(server, watchEvents<{ ready: [] }>(server, ['ready']), 1, 10_000, 'fake');
    server.established.push('first');
    server.emit('ready');
    server.established.push('second');
    server.emit('ready');
    await expect(second).resolves.toBe('second');
    expect(server.listenerCount('ready')).toBe(0);
  });
});
