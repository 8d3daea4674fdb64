// ContinuousPlayback's 20 ms slots, on a stub connection that records what the real one would send
// (prepareAudioPacket + dispatchAudio), with fake timers and an injected clock: one packet per slot,
// never late, never more than one slot early, never twice; wake-ups the call has anyway (a model
// chunk, a speaker's packet) carry the sends, so the player's own timer stays asleep while they flow.
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { VoiceConnectionStatus, type VoiceConnection } from '@discordjs/voice';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { FRAME_SAMPLES_48K, type PlaybackSource } from '../../../main/core/ports.ts';
import { selectOpus } from '../../../main/core/voice/opus.ts';
import { ContinuousPlayback } from '../../../main/core/voice/playback.ts';

let now = 0;
/**
 * Advance the fake timers and the injected clock together, 1 ms at a time. Immediates stay real
 * (not faked): the ones a timer queued run before the next millisecond, at the same clock, as they
 * do on Node's loop (after the wake-up's I/O, before the next wake-up).
 */
async function advance(ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) {
    now += 1;
    vi.advanceTimersByTime(1);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

interface StubConnection {
  connection: VoiceConnection;
  sentAt: number[];
  speaking: boolean[];
  setReady(ready: boolean): void;
}

function stubConnection(): StubConnection {
  const sentAt: number[] = [];
  const speaking: boolean[] = [];
  let prepared: Buffer | undefined;
  const state = { status: VoiceConnectionStatus.Ready as VoiceConnectionStatus };
  const connection = {
    get state() {
      return state;
    },
    prepareAudioPacket(packet: Buffer) {
      prepared = packet;
      return packet;
    },
    dispatchAudio() {
      if (!prepared) return false;
      prepared = undefined;
      sentAt.push(now);
      return true;
    },
    setSpeaking(on: boolean) {
      speaking.push(on);
      return true;
    },
  } as unknown as VoiceConnection;
  return {
    connection,
    sentAt,
    speaking,
    setReady: (ready) => (state.status = ready ? VoiceConnectionStatus.Ready : VoiceConnectionStatus.Connecting),
  };
}

const silence: PlaybackSource = { readFrame: (out) => out.fill(0, 0, FRAME_SAMPLES_48K) };

/** Playback of a silent source that counts its reads, on a stub connection and the test clock. */
function countedPlayback(mayPlay: boolean): {
  stub: StubConnection;
  playback: ContinuousPlayback;
  reads: () => number;
} {
  const stub = stubConnection();
  let reads = 0;
  const playback = new ContinuousPlayback(
    selectOpus(),
    silentLogger(),
    stub.connection,
    () => mayPlay,
    () => now,
  );
  playback.start({ readFrame: (out) => (reads++, silence.readFrame(out)) });
  return { stub, playback, reads: () => reads };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  now = 1000;
});
afterEach(() => vi.useRealTimers());

describe('ContinuousPlayback slots', () => {
  it('an emptied room (gate "discard") reads the source and drops it, also while reconnecting; only silence leaves', async () => {
    const stub = stubConnection();
    const packets: Buffer[] = [];
    const prepare = stub.connection.prepareAudioPacket.bind(stub.connection);
    (stub.connection as unknown as { prepareAudioPacket: (p: Buffer) => Buffer | undefined }).prepareAudioPacket = (
      p,
    ) => (packets.push(p), prepare(p));
    let reads = 0;
    let gate: boolean | 'discard' = 'discard';
    const playback = new ContinuousPlayback(
      selectOpus(),
      silentLogger(),
      stub.connection,
      () => gate,
      () => now,
    );
    playback.start({ readFrame: (out) => (reads++, out.fill(3000)) });
    await advance(100);
    stub.setReady(false);
    await advance(100);
    expect(reads).toBe(11); // one frame per slot, whether or not a packet could go out
    expect(packets.every((p) => p.equals(Buffer.from([0xf8, 0xff, 0xfe])))).toBe(true);
    stub.setReady(true);
    gate = true;
    await advance(40);
    expect(packets.at(-1)!.equals(Buffer.from([0xf8, 0xff, 0xfe]))).toBe(false); // playing again
    playback.stop();
  });

  it('sends the first packet at once, then one per 20 ms on its own timer', async () => {
    const stub = stubConnection();
    const playback = new ContinuousPlayback(
      selectOpus(),
      silentLogger(),
      stub.connection,
      () => true,
      () => now,
    );
    playback.start(silence);
    await advance(200);
    playback.stop();
    expect(stub.sentAt[0]).toBe(1000);
    expect(stub.sentAt).toHaveLength(11);
    // Each on its slot's due time (the timer fires at it, never before).
    stub.sentAt.forEach((at, k) => expect(at).toBe(1000 + 20 * k));
    expect(stub.speaking.at(-1)).toBe(false);
  });

  it('wake-ups that come anyway carry the sends: every slot once, at most 20 ms early, and the timer never fires', async () => {
    const stub = stubConnection();
    const playback = new ContinuousPlayback(
      selectOpus(),
      silentLogger(),
      stub.connection,
      () => true,
      () => now,
    );
    const timerCallbacks = vi.spyOn(globalThis, 'setTimeout');
    playback.start(silence); // slot 0 at 1000; slot k due at 1000 + 20k
    const armedAtStart = timerCallbacks.mock.calls.length;
    // Model chunks (or a speaker's packets) arrive every 20 ms, 7 ms before each slot is due; a
    // second poke in the same wake-up (two chunks at once) must not send a second packet.
    for (let k = 1; k <= 50; k++) {
      await advance(13);
      playback.poke();
      playback.poke();
      await advance(7);
    }
    const fired = stub.sentAt.length;
    playback.stop();
    expect(fired).toBe(51);
    stub.sentAt.slice(1).forEach((at, i) => {
      const due = 1000 + 20 * (i + 1);
      expect(at).toBeLessThanOrEqual(due);
      expect(at).toBeGreaterThan(due - 20);
    });
    // Re-armed after every send, but no send came from the timer: each was carried by a poke.
    expect(stub.sentAt.slice(1).every((at) => (at - 1000) % 20 === 13)).toBe(true);
    expect(timerCallbacks.mock.calls.length - armedAtStart).toBe(50);
    timerCallbacks.mockRestore();
  });

  it('a timer wake-up with the next frame already buffered sends it too: one wake-up per 40 ms, no packet late or more than one slot early', async () => {
    const stub = stubConnection();
    const playback = new ContinuousPlayback(
      selectOpus(),
      silentLogger(),
      stub.connection,
      () => true,
      () => now,
    );
    // The end of a reply: 20 frames buffered (the model sent them faster than real time), then nothing.
    let buffered = 20;
    const source = {
      readFrame: (out: Int16Array) => ((buffered = Math.max(0, buffered - 1)), silence.readFrame(out)),
      framesAhead: () => buffered,
    };
    playback.start(source); // slot 0 at 1000; slot k due at 1000 + 20k
    await advance(600);
    playback.stop();
    // Every slot up to 1600 went out once, in order, never after its due time and at most 20 ms before.
    expect(stub.sentAt).toHaveLength(31);
    stub.sentAt.forEach((at, k) => {
      expect(at).toBeLessThanOrEqual(1000 + 20 * k);
      expect(at).toBeGreaterThanOrEqual(1000 + 20 * k - 20);
    });
    // The first packet at start; then, while a frame was buffered beyond the one read, two packets
    // per timer wake-up (slots 1+2 at 1020, 3+4 at 1060, …: 19 buffered after the start, two read
    // per wake-up); once none is, one per slot again.
    const pairs = Array.from({ length: 9 }, (_, p) => [1020 + 40 * p, 1020 + 40 * p]).flat();
    const singles = Array.from({ length: 12 }, (_, k) => 1380 + 20 * k);
    expect(stub.sentAt).toEqual([1000, ...pairs, ...singles]);
    expect(new Set(stub.sentAt).size).toBe(22); // wake-ups that sent: 22 for 31 packets
  });

  it("a barge-in read in the timer's wake-up fades the slot the timer would have sent early: the reply's frame never leaves first", async () => {
    const stub = stubConnection();
    const playback = new ContinuousPlayback(
      selectOpus(),
      silentLogger(),
      stub.connection,
      () => true,
      () => now,
    );
    // A reply buffered ahead; `held` is what call-audio's hold does to the source (its next frames fade).
    let held = false;
    const readsHeld: boolean[] = [];
    const source = {
      readFrame: (out: Int16Array) => (readsHeld.push(held), silence.readFrame(out)),
      framesAhead: () => 10,
    };
    playback.start(source); // slot 0 at 1000
    await advance(19);
    // The timer for slot 1 fires at 1020; a speaker's packet that came while the process was busy is
    // read in the same wake-up, after the timer (Node runs expired timers before it polls sockets).
    now = 1020;
    vi.advanceTimersToNextTimer();
    held = true;
    playback.poke(true); // the barge-in's fade, slot 2
    await new Promise((resolve) => setImmediate(resolve)); // the wake-up's immediates: slot 2 is gone already, nothing more goes early
    expect(stub.sentAt).toEqual([1000, 1020, 1020]);
    // Slot 2 was read after the hold (the fade), not before it (the reply).
    expect(readsHeld).toEqual([false, false, true]);
    playback.stop();
  });

  it('a poke before its slot has begun sends nothing (never more than one slot ahead)', async () => {
    const stub = stubConnection();
    const playback = new ContinuousPlayback(
      selectOpus(),
      silentLogger(),
      stub.connection,
      () => true,
      () => now,
    );
    playback.start(silence); // slot 0 now; slot 1 due at 1020, may go from 1000 (exclusive)
    playback.poke();
    playback.poke();
    expect(stub.sentAt).toEqual([1000]);
    await advance(1);
    playback.poke(); // slot 1 (1001 > 1000)
    playback.poke(); // slot 2 is due at 1040: not begun
    expect(stub.sentAt).toEqual([1000, 1001]);
    playback.stop();
  });

  it('a barge-in (urgent) sends the fade at once even when the current slot already went early', async () => {
    const stub = stubConnection();
    const playback = new ContinuousPlayback(
      selectOpus(),
      silentLogger(),
      stub.connection,
      () => true,
      () => now,
    );
    playback.start(silence); // slot 0 at 1000
    await advance(5);
    playback.poke(); // slot 1 (due 1020) goes early, on a chunk's wake-up
    await advance(2);
    playback.poke(); // slot 2 (due 1040) has not begun: nothing
    expect(stub.sentAt).toEqual([1000, 1005]);
    playback.poke(true); // the interruption: slot 2's fade goes now, 33 ms early
    playback.poke(true); // slot 3 is more than two slots ahead: nothing
    expect(stub.sentAt).toEqual([1000, 1005, 1007]);
    await advance(53);
    expect(stub.sentAt).toEqual([1000, 1005, 1007, 1060]); // back on the slot clock (slot 3 due at 1060)
    playback.stop();
  });

  it('while the connection is not ready the source is not read; playback resumes when it is', async () => {
    const { stub, playback, reads } = countedPlayback(true);
    stub.setReady(false);
    await advance(100);
    expect(reads()).toBe(1);
    stub.setReady(true);
    await advance(40);
    expect(reads()).toBe(3);
    playback.stop();
  });

  it('while E2EE is not ready the Opus silence frame goes out and the source is kept', async () => {
    const { stub, playback, reads } = countedPlayback(false);
    await advance(100);
    expect(stub.sentAt).toHaveLength(6);
    expect(reads()).toBe(0);
    playback.stop();
  });
});

// Starting playback runs no program: @discordjs/voice's createAudioResource() builds its transcoding
// graph once per process and probes for FFmpeg with spawnSync on the way (`ffmpeg -h`, then avconv
// and more), which stood the event loop still for 90 ms at the first join. A fake `ffmpeg` (and
// `avconv`) first on PATH records every run; none may happen.
describe('ContinuousPlayback start-up', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-ffmpeg-probe-'));
  const marker = path.join(dir, 'ran');
  const savedPath = process.env.PATH;
  afterEach(() => {
    process.env.PATH = savedPath;
    rmSync(dir, { recursive: true, force: true });
  });

  it('spawns no FFmpeg probe, and the source is read', async () => {
    for (const name of ['ffmpeg', 'avconv']) {
      writeFileSync(path.join(dir, name), `#!/bin/sh\necho "$0 $*" >> "${marker}"\necho "--enable-libopus"\n`);
      chmodSync(path.join(dir, name), 0o755);
    }
    process.env.PATH = `${dir}:${savedPath}`;
    const stub = stubConnection();
    let frames = 0;
    const playback = new ContinuousPlayback(
      selectOpus(),
      silentLogger(),
      stub.connection,
      () => true,
      () => now,
    );
    playback.start({ readFrame: (out: Int16Array) => ((frames += 1), out.fill(0, 0, FRAME_SAMPLES_48K)) });
    await advance(100);
    playback.stop();
    expect(existsSync(marker)).toBe(false);
    expect(frames).toBeGreaterThan(0);
  });
});

describe('ContinuousPlayback encoder', () => {
  /** A tone that differs frame to frame, so an encoder's memory of earlier frames shows in its packets. */
  const tone = (): PlaybackSource => {
    let t = 0;
    return { readFrame: (out) => out.forEach((_, i) => (out[i] = Math.round(8000 * Math.sin(t++ / 9)))) };
  };

  it('one encoder per connection: each reply starts as a fresh encoder would, and no reply makes one', async () => {
    const opus = selectOpus();
    let made = 0;
    const counting = { ...opus, createMonoEncoder: () => (made++, opus.createMonoEncoder()) };
    const stub = stubConnection();
    const packets: string[] = [];
    const prepare = stub.connection.prepareAudioPacket.bind(stub.connection);
    (stub.connection as unknown as { prepareAudioPacket: (p: Buffer) => Buffer | undefined }).prepareAudioPacket = (
      p,
    ) => (packets.push(p.toString('hex')), prepare(p));
    const playback = new ContinuousPlayback(
      counting,
      silentLogger(),
      stub.connection,
      () => true,
      () => now,
    );
    const replies: string[][] = [];
    for (let reply = 0; reply < 5; reply++) {
      packets.length = 0;
      playback.start(tone());
      await advance(100);
      playback.stop();
      replies.push([...packets]);
    }
    expect(made).toBe(1);
    expect(replies[0]!.length).toBeGreaterThan(3);
    // The same audio, the same packets: nothing of the reply before reaches the next one.
    for (const reply of replies.slice(1)) expect(reply).toEqual(replies[0]);
    playback.close();
  });
});
