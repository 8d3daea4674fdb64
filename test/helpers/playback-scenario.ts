// A scripted reply through the output path, frame by frame, for the test that the output's audio
// is bit for bit what it was before the 24 → 48 kHz upsample became a stage of its own
// (test/unit/audio/playback-frames.test.ts). The script runs every path the playback buffer and the
// upsampler have: the start, bursty writes that grow and wrap the ring, a turn running dry and an
// underrun, a turn's end while the next begins, sound effects (the limiter too), the hold, its
// release and its fade-in, cuts from the ring, from a short remainder and from the filter's tail,
// late audio dropped, startTurn, reset. Its frames are hashed one by one (so a difference names its
// frame); the recorded hashes came from the code before the change.
import { voicedReply } from '../../bench/lib/speech-like.ts';
import { generateNotificationChime } from '../../main/core/audio/sound-effects.ts';

/** The output path as the script drives it: model audio and turns in, 20 ms frames at 48 kHz out. */
export interface ScenarioOutput {
  write(pcm24k: Int16Array): void;
  endTurn(): void;
  startTurn(): void;
  interrupt(): { playedMs: number };
  hold(): void;
  release(): void;
  mixEffect(clip48k: Int16Array, gain: number): void;
  readFrame(out48k: Int16Array): void;
  reset(): void;
  /** The buffer's counters at the end (the ones that are not the effects'). */
  stats(): Record<string, unknown>;
  /** The output meter's reading (and reset of its peak hold). */
  level(): { rmsDbfs: number; peakDbfs: number };
}

export interface ScenarioRecord {
  /** FNV-1a (32 bit, hex) of each frame's 960 samples, in order. */
  frames: string[];
  /** What each interrupt() returned. */
  playedMs: number[];
  stats: Record<string, unknown>;
  levels: { rmsDbfs: number; peakDbfs: number }[];
}

function fnv1a(frame: Int16Array): string {
  let h = 0x811c9dc5;
  for (const v of frame) {
    h = Math.imul(h ^ (v & 0xff), 0x01000193);
    h = Math.imul(h ^ ((v >> 8) & 0xff), 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

function sine24k(ms: number, hz: number, amplitude: number): Int16Array {
  return Int16Array.from({ length: (ms * 24) | 0 }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / 24_000)),
  );
}

/** Runs the script on `o`; returns what came out. */
export function runPlaybackScenario(o: ScenarioOutput): ScenarioRecord {
  const record: ScenarioRecord = { frames: [], playedMs: [], stats: {}, levels: [] };
  const out = new Int16Array(960);
  const read = (n: number): void => {
    for (let i = 0; i < n; i++) {
      o.readFrame(out);
      record.frames.push(fnv1a(out));
    }
  };
  const cut = (): void => void record.playedMs.push(o.interrupt().playedMs);
  const reply = voicedReply(6000);
  let at = 0;
  /** The reply's next `samples` (24 kHz). */
  const next = (samples: number): Int16Array => reply.subarray(at, (at += samples));
  const ms = (n: number): number => n * 24;
  const chime = generateNotificationChime();

  read(2); // idle
  o.write(next(479)); // not yet a frame
  read(1);
  o.write(next(ms(180)));
  read(3);
  for (let k = 0; k < 20; k++) {
    o.write(next(ms(100))); // bursty, faster than real time: the ring grows and wraps
    read(2);
  }
  read(80); // the rest, a short last frame, then the filter's tail into silence (the turn still open)
  o.write(next(ms(30))); // more of the same turn: an underrun, a larger start margin
  read(4);
  o.write(next(ms(200)));
  read(6);
  o.mixEffect(chime, 0.5);
  read(10);
  o.hold();
  read(3);
  o.release();
  read(4);
  o.hold();
  read(1);
  cut(); // while held: no second fade
  read(3);
  o.write(next(ms(100))); // late audio of the cut turn: dropped
  read(2);
  o.endTurn();
  o.write(next(ms(300)));
  read(3);
  o.endTurn();
  o.write(next(ms(200))); // the next turn while the last one's end still plays
  read(20);
  o.write(next(ms(500)));
  read(5);
  cut(); // from the ring
  read(3);
  o.endTurn();
  o.write(next(700)); // a frame and a half
  read(2); // ran dry, the turn open
  cut(); // from the filter's tail
  read(2);
  o.endTurn();
  o.write(next(600));
  read(1); // 120 samples left
  cut(); // from a remainder shorter than the fade
  read(2);
  o.endTurn();
  o.write(next(ms(500)));
  read(3);
  o.hold();
  o.release(); // before the fade went out
  read(4);
  o.hold();
  cut(); // with the fade still to go out
  read(3);
  o.endTurn();
  o.write(sine24k(200, 1000, 30_000)); // loud, with a loud effect: the limiter
  o.mixEffect(chime, 2);
  read(12);
  o.endTurn();
  read(10);
  o.mixEffect(chime, 1); // an effect alone
  read(12);
  o.write(next(ms(300)));
  read(2);
  o.reset();
  read(2);
  o.write(next(ms(100)));
  read(6);
  o.endTurn();
  o.write(next(ms(200)));
  read(2);
  cut();
  read(1);
  o.startTurn();
  o.write(next(ms(100)));
  read(6);
  o.endTurn();
  o.write(next(ms(210)));
  o.endTurn();
  read(10);
  o.hold(); // the held turn runs out: the release owes the next reply no fade-in
  read(2);
  o.release();
  read(2);
  o.write(next(ms(200)));
  o.endTurn();
  read(12);
  record.levels.push(o.level());
  record.stats = o.stats();
  return record;
}
