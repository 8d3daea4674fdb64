// UiTicker: the call's 10 Hz UI updates ride on the audio frames while they flow (no timer of its
// own wakes the core), a timer takes over when frames stop, and everything stops after the quiet
// update. Fake timers; the clock is the fake one.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UiTicker } from '../../../main/core/bridge/ui-ticker.ts';

let now: number;
let ticks: number[];
let quietAfter: number;
let ticker: UiTicker;

function advance(ms: number): void {
  now += ms;
  vi.advanceTimersByTime(ms);
}

beforeEach(() => {
  vi.useFakeTimers();
  now = 0;
  ticks = [];
  quietAfter = Infinity;
  ticker = new UiTicker({ periodMs: 100, now: () => now, updates: { tick: () => ticks.push(now) >= quietAfter } });
});

afterEach(() => {
  ticker.stop();
  vi.useRealTimers();
});

describe('UiTicker', () => {
  it('frames every 20 ms: an update every 100 ms, run by the frames, with no interval timer', () => {
    const intervals = vi.spyOn(globalThis, 'setInterval');
    for (let frame = 0; frame < 100; frame++) {
      ticker.frame(now);
      advance(20);
    }
    expect(intervals).not.toHaveBeenCalled();
    expect(ticks).toHaveLength(19);
    expect(ticks.every((t, i) => i === 0 || t - ticks[i - 1]! === 100)).toBe(true);
    intervals.mockRestore();
  });

  it('frames stop: an interval carries on at the same rate until the update says quiet, then nothing runs', () => {
    for (let frame = 0; frame < 10; frame++) {
      ticker.frame(now);
      advance(20);
    }
    const byFrames = ticks.length;
    quietAfter = byFrames + 5;
    advance(2000);
    expect(ticks).toHaveLength(quietAfter);
    expect(ticker.running).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    // The next frame starts it again, frame-driven.
    ticker.frame(now);
    expect(ticker.running).toBe(true);
  });

  it('start() without frames runs on the interval; the first frame takes over from it', () => {
    ticker.start();
    advance(350);
    expect(ticks).toHaveLength(3);
    const intervals = vi.spyOn(globalThis, 'setInterval');
    for (let frame = 0; frame < 25; frame++) {
      ticker.frame(now);
      advance(20);
    }
    expect(intervals).not.toHaveBeenCalled();
    expect(ticks).toHaveLength(3 + 5);
    // Only the frames' watchdog is pending while frames flow.
    expect(vi.getTimerCount()).toBe(1);
    intervals.mockRestore();
  });

  it('stop() clears every timer', () => {
    ticker.start();
    ticker.frame(now);
    ticker.stop();
    expect(vi.getTimerCount()).toBe(0);
    advance(1000);
    expect(ticks).toHaveLength(0);
  });
});
