// DaveRecovery: the ladder after DAVE decrypt failures (rebuild the session, then rejoin, at most 3
// rejoins a minute), the playback gate, and the dashboard's one-line E2EE summary. A stand-in
// connection exposes the same state shape @discordjs/voice 0.19.2 does.
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { VoiceConnection } from '@discordjs/voice';
import type { DaveStatus } from '../../../main/core/api-types.ts';
import { DaveRecovery, isDaveDecryptError, mayPlayAudio } from '../../../main/core/voice/dave.ts';
import { describeDave } from '../../../renderer/format.ts';

class StubDave {
  protocolVersion = 1;
  lastTransitionId: number | undefined = 0;
  reinitializing = false;
  voicePrivacyCode: string | null = '123451234512345123451234512345';
  session: { ready: boolean } | undefined = { ready: true };
  invalidated: number[] = [];
  recoverFromInvalidTransition(id: number): void {
    this.invalidated.push(id);
    this.reinitializing = true;
    if (this.session) this.session.ready = false;
  }
}

function stubConnection(dave: StubDave | undefined) {
  const emitter = new EventEmitter();
  const connection = Object.assign(emitter, { state: { status: 'ready', networking: { state: { code: 4, dave } } } });
  return connection as unknown as VoiceConnection & EventEmitter;
}

/** The group re-adds us after op 31: the library's session is ready again and the connection says so. */
function reAdded(dave: StubDave, connection: EventEmitter): void {
  dave.reinitializing = false;
  dave.session!.ready = true;
  connection.emit('transitioned', 0);
}

/** A recovery ladder on a stand-in connection, on fake timers (restored after each test). */
function ladder() {
  vi.useFakeTimers();
  const dave = new StubDave();
  const connection = stubConnection(dave);
  const rejoin = vi.fn();
  const recovery = new DaveRecovery({ rejoin, log: () => {} });
  recovery.attach(connection);
  return { dave, connection, rejoin, recovery };
}

const decryptError = () => new Error('DecryptionFailed(UnencryptedWhenPassthroughDisabled)');

describe('DAVE recovery ladder', () => {
  afterEach(() => vi.useRealTimers());

  it('rebuilds the session after 3 failed streams, counts the recovery when a transition makes it ready', () => {
    const { dave, connection, rejoin, recovery } = ladder();
    recovery.onStreamError(new Error('socket closed')); // not a DAVE error: ignored
    recovery.onStreamError(decryptError());
    recovery.onStreamError(decryptError());
    expect(dave.invalidated).toEqual([]);
    recovery.onStreamError(decryptError());
    expect(dave.invalidated).toEqual([0]); // op 31 for transition 0 + a new key package
    expect(mayPlayAudio(connection)).toBe(false); // re-initialising: our audio is held
    for (let i = 0; i < 37; i++)
      connection.emit('debug', '[NW] [DAVE] Failed to decrypt a packet (n consecutive fails)');
    dave.reinitializing = false;
    dave.session!.ready = true;
    dave.lastTransitionId = 4;
    connection.emit('transitioned', 4);
    expect(recovery.status()).toMatchObject({
      rebuilds: 1,
      recoveries: 1,
      rejoins: 0,
      decrypt_failures: 37,
      transitions: 1,
      last_transition_id: 4,
    });
    expect(rejoin).not.toHaveBeenCalled();
  });

  it('rejoins when failures go on after a rebuild, at most 3 times a minute', () => {
    const { dave, connection, rejoin, recovery } = ladder();
    // A sender whose frames never decrypt: every burst of failures climbs the ladder again.
    for (let second = 0; second < 60; second++) {
      reAdded(dave, connection);
      for (let i = 0; i < 10; i++) {
        recovery.onStreamError(decryptError());
        vi.advanceTimersByTime(100);
      }
    }
    expect(dave.invalidated.length).toBeGreaterThanOrEqual(1);
    expect(rejoin).toHaveBeenCalledTimes(3);
    expect(recovery.status().rejoins).toBe(3);
    vi.advanceTimersByTime(61_000); // a minute later the budget is back
    for (let i = 0; i < 20; i++) {
      reAdded(dave, connection);
      recovery.onStreamError(decryptError());
      vi.advanceTimersByTime(100);
    }
    expect(rejoin.mock.calls.length).toBeGreaterThan(3);
    expect(rejoin.mock.calls.length).toBeLessThanOrEqual(6);
  });

  it('judges a rebuild by the failures after it, however slowly they come (a busy machine): it rejoins, never rebuilds in a loop', () => {
    const { dave, connection, rejoin, recovery } = ladder();
    for (let i = 0; i < 3; i++) recovery.onStreamError(decryptError());
    expect(dave.invalidated).toEqual([0]);
    // While the group has not re-added us nothing decrypts; a stray error then is not the rebuild's.
    recovery.onStreamError(decryptError());
    vi.advanceTimersByTime(1_500); // a slow re-add
    reAdded(dave, connection);
    // The library's 36 tolerated packets, then streams that die at most 5 times a second, late.
    vi.advanceTimersByTime(900);
    for (let i = 0; i < 5; i++) {
      recovery.onStreamError(decryptError());
      vi.advanceTimersByTime(600);
    }
    expect(dave.invalidated).toEqual([0]); // the old ladder rebuilt again here, racing its own clock
    expect(rejoin).not.toHaveBeenCalled();
    recovery.onStreamError(decryptError());
    expect(rejoin).toHaveBeenCalledTimes(1);
    expect(recovery.status()).toMatchObject({ rebuilds: 1, rejoins: 1 });
  });

  it('a rebuild that held: failures long after it start the ladder again with a rebuild, not a rejoin', () => {
    const { dave, connection, rejoin, recovery } = ladder();
    for (let i = 0; i < 3; i++) recovery.onStreamError(decryptError());
    reAdded(dave, connection);
    recovery.onStreamError(decryptError()); // one late straggler: not enough to call the rebuild failed
    vi.advanceTimersByTime(recovery.policy.rebuildTrialMs + 1);
    for (let i = 0; i < 6; i++) recovery.onStreamError(decryptError());
    expect(dave.invalidated).toEqual([0, 0]);
    expect(rejoin).not.toHaveBeenCalled();
  });

  it("reports each of a ready session's failed packets to the deafness watch, and rebuilds at once for a speaker's own failures", () => {
    vi.useFakeTimers();
    const dave = Object.assign(new StubDave(), { lastTransitionId: 4, consecutiveFailures: 8 });
    const connection = stubConnection(dave);
    const decryptFailed = vi.fn();
    const recovery = new DaveRecovery({ rejoin: vi.fn(), decryptFailed, log: () => {} });
    recovery.attach(connection);
    connection.emit('debug', '[NW] [DAVE] Failed to decrypt a packet (8 consecutive fails)');
    connection.emit('debug', '[NW] [DAVE] Failed to decrypt a packet (1 pending transition[s])');
    connection.emit('debug', '[NW] [DAVE] Failed to decrypt a packet (reinitializing session)');
    expect(decryptFailed).toHaveBeenCalledTimes(1); // the other two are a re-key's expected gap
    expect(recovery.status().decrypt_failures).toBe(3);
    // 8 in a row at a non-zero transition: left to the library's own re-key at 36, unless they are one speaker's, counted.
    expect(recovery.rebuildNow('deaf for 700 ms')).toBe(false);
    expect(recovery.rebuildNow('8 packets failed to decrypt', true)).toBe(true);
    expect(dave.invalidated).toEqual([4]);
  });

  it('gates audio: without DAVE or after a downgrade always, at v1 only while the group is ready', () => {
    expect(mayPlayAudio(stubConnection(undefined))).toBe(true);
    const dave = new StubDave();
    expect(mayPlayAudio(stubConnection(dave))).toBe(true);
    dave.session!.ready = false;
    expect(mayPlayAudio(stubConnection(dave))).toBe(false);
    dave.protocolVersion = 0;
    expect(mayPlayAudio(stubConnection(dave))).toBe(true);
    expect(isDaveDecryptError(decryptError())).toBe(true);
    expect(isDaveDecryptError(new Error('ECONNRESET'))).toBe(false);
  });

  it('summarises the state for the dashboard', () => {
    const base: DaveStatus = {
      protocol_version: 1,
      e2ee: true,
      ready: true,
      epoch: 3,
      privacy_code: '123451234512345123451234512345',
      last_transition_id: 2,
      transitions: 3,
      decrypt_failures: 0,
      undecrypted_frames: 0,
      rebuilds: 0,
      recoveries: 0,
      rejoins: 0,
    };
    expect(describeDave(null)).toBe('—');
    expect(describeDave(base)).toBe('on · epoch 3 · code 12345 12345 12345 12345 12345 12345');
    expect(describeDave({ ...base, decrypt_failures: 40, recoveries: 1 })).toContain(
      '40 decrypt failures, 1 recovered',
    );
    expect(describeDave({ ...base, e2ee: false, ready: false })).toMatch(/^setting up/);
    expect(describeDave({ ...base, protocol_version: 0, e2ee: false })).toBe('off (DAVE v0)');
  });
});
