// The per-speaker deafness ladder on a fake clock: packets arriving with nothing heard → resubscribe →
// rebuild the DAVE session → rejoin, each counted and each given time; heard again ends it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpeakerHealth, type SpeakerHealthActions } from '../../../main/core/voice/speaker-health.ts';

function actions(overrides: Partial<SpeakerHealthActions> = {}) {
  const calls: string[] = [];
  const a: SpeakerHealthActions = {
    resubscribe: (id) => void calls.push(`resubscribe:${id}`),
    rebuild: (_reason, decryptFailing) => (calls.push(decryptFailing ? 'rebuild:failing' : 'rebuild'), true),
    rejoin: () => (calls.push('rejoin'), true),
    daveReady: () => true,
    epoch: () => 7,
    log: () => undefined,
    ...overrides,
  };
  return { a, calls };
}

describe('SpeakerHealth', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /**
   * `ms` of 20 ms packets from `id`; `heard` says whether each reaches the decoder, `failing` whether
   * each fails to decrypt (the library's debug line, inside that packet's handling).
   */
  function talk(health: SpeakerHealth, id: string, ms: number, heard: boolean, failing = false) {
    for (let t = 0; t < ms; t += 20) {
      health.onPacket(id);
      if (failing) health.onDecryptFailure();
      if (heard) health.onHeard(id);
      vi.advanceTimersByTime(20);
    }
  }

  it('climbs resubscribe → rebuild → rejoin while packets arrive and nothing is heard, and counts each step', () => {
    const { a, calls } = actions();
    const health = new SpeakerHealth(a);
    talk(health, 'guest', 1000, true);
    expect(calls).toEqual([]);
    talk(health, 'owner', 300, false);
    talk(health, 'owner', 100, false);
    expect(calls).toEqual(['resubscribe:owner']);
    expect(health.speakers().find((s) => s.user_id === 'owner')?.deaf).toBe(true);
    expect(health.anyDeaf).toBe(true);
    talk(health, 'owner', 400, false);
    expect(calls).toEqual(['resubscribe:owner', 'rebuild']);
    talk(health, 'owner', 1900, false);
    expect(calls).toEqual(['resubscribe:owner', 'rebuild', 'rejoin']);
    talk(health, 'owner', 100, true);
    const owner = health.speakers().find((s) => s.user_id === 'owner')!;
    expect(owner).toMatchObject({
      deaf: false,
      deaf_ms: 0,
      epoch: 7,
      recoveries: { resubscribe: 1, rebuild: 1, rejoin: 1 },
    });
    expect(owner.last_transition).toMatchObject({ to: 'heard', step: 'rejoin' });
    expect(owner.max_deaf_ms).toBeGreaterThanOrEqual(2700);
    expect(owner.decrypt_ratio).toBeLessThan(0.1);
    expect(health.speakers().find((s) => s.user_id === 'guest')?.decrypt_ratio).toBe(1);
    health.close();
  });

  it('stops as soon as a frame is heard: a resubscribe that works is the only step', () => {
    const { a, calls } = actions();
    const health = new SpeakerHealth(a);
    talk(health, 'owner', 420, false);
    expect(calls).toEqual(['resubscribe:owner']);
    talk(health, 'owner', 2000, true);
    expect(calls).toEqual(['resubscribe:owner']);
    expect(health.speakers()[0]?.last_transition).toMatchObject({ to: 'heard', step: 'resubscribe' });
  });

  it('a DAVE transition (someone else re-keying) restarts the wait before the next step', () => {
    const { a, calls } = actions();
    const health = new SpeakerHealth(a);
    talk(health, 'owner', 420, false);
    talk(health, 'owner', 300, false);
    health.onTransition();
    talk(health, 'owner', 300, false);
    expect(calls).toEqual(['resubscribe:owner']);
    talk(health, 'owner', 200, false);
    expect(calls).toEqual(['resubscribe:owner', 'rebuild']);
  });

  it('when no rebuild is possible (a re-key already under way), rejoins once it has waited the rebuild and rejoin times', () => {
    const { a, calls } = actions({ rebuild: () => false });
    const health = new SpeakerHealth(a);
    talk(health, 'owner', 420, false);
    talk(health, 'owner', 1500, false);
    expect(calls).toEqual(['resubscribe:owner']);
    talk(health, 'owner', 1000, false);
    expect(calls).toEqual(['resubscribe:owner', 'rejoin']);
    expect(health.speakers()[0]?.recoveries).toEqual({ resubscribe: 1, rebuild: 0, rejoin: 1 });
  });

  it('runs no timer without audio, and a speaker who stops talking is not deaf', () => {
    const { a, calls } = actions();
    const health = new SpeakerHealth(a);
    expect(vi.getTimerCount()).toBe(0);
    talk(health, 'owner', 200, false); // a short unheard stretch, then they stop
    vi.advanceTimersByTime(5000);
    expect(vi.getTimerCount()).toBe(0);
    expect(calls).toEqual([]);
    expect(health.anyDeaf).toBe(false);
    talk(health, 'owner', 2000, true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a speaker whose own packets fail to decrypt skips the resubscribe: the DAVE session is rebuilt after 8 of them', () => {
    const { a, calls } = actions();
    const health = new SpeakerHealth(a);
    talk(health, 'guest', 1000, true); // someone else heard all along (the library's per-session counter keeps resetting)
    talk(health, 'owner', 140, false, true);
    expect(calls).toEqual([]);
    talk(health, 'owner', 40, false, true); // the 8th failure; looked at on the next turn of the loop
    expect(calls).toEqual(['rebuild:failing']);
    talk(health, 'owner', 200, true);
    const owner = health.speakers().find((s) => s.user_id === 'owner')!;
    expect(owner.recoveries).toEqual({ resubscribe: 0, rebuild: 1, rejoin: 0 });
    expect(owner.last_transition).toMatchObject({ to: 'heard', step: 'rebuild' });
    health.close();
  });

  it("a failure while an unwatched member's packet is handled is nobody's; an unheard speaker without failures is resubscribed first", () => {
    const { a, calls } = actions();
    const health = new SpeakerHealth(a);
    for (let t = 0; t < 420; t += 20) {
      health.onPacket('owner');
      health.onUnwatchedPacket();
      health.onDecryptFailure();
      vi.advanceTimersByTime(20);
    }
    expect(calls).toEqual(['resubscribe:owner']);
    health.close();
  });

  it('failures while no rebuild is possible fall back to the resubscribe, and a heard frame clears the count', () => {
    const refused = actions({ rebuild: () => false });
    const health = new SpeakerHealth(refused.a);
    talk(health, 'owner', 200, false, true);
    expect(refused.calls).toEqual(['resubscribe:owner']);
    health.close();
    const { a, calls } = actions();
    const other = new SpeakerHealth(a);
    talk(other, 'owner', 120, false, true);
    talk(other, 'owner', 20, true);
    talk(other, 'owner', 120, false, true); // 6 + 6 failures, a heard frame between: never 8 in a row
    expect(calls).toEqual([]);
    other.close();
  });
});
