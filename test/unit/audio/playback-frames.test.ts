// The output's audio is bit for bit what it was before the 24 → 48 kHz upsample became a stage of
// its own (issue #51): the scripted reply of test/helpers/playback-scenario.ts, through the playback
// buffer pulled by the upsampler, gives the frames recorded from the code before (the buffer then
// upsampled inside: test/fixtures/playback/frames-before-upsample-stage.json), frame by frame, with
// the same counters, interrupt() results and output level.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PlaybackBuffer, type PlaybackBufferOptions } from '../../../main/core/audio/playback-buffer.ts';
import { PlaybackUpsampler } from '../../../main/core/audio/playback-upsampler.ts';
import { runPlaybackScenario, type ScenarioOutput, type ScenarioRecord } from '../../helpers/playback-scenario.ts';

const recorded = JSON.parse(
  readFileSync(new URL('../../fixtures/playback/frames-before-upsample-stage.json', import.meta.url), 'utf8'),
) as Record<string, ScenarioRecord>;

/** The recording's two runs: the defaults, and a small ring, a fast margin decay and a 5 ms fade. */
const variants: Record<string, PlaybackBufferOptions> = {
  default: {},
  small: { initialCapacityMs: 200, marginDecayFrames: 10, maxMarginMs: 60, fadeMs: 5 },
};

function outputPath(options: PlaybackBufferOptions): ScenarioOutput {
  const pb = new PlaybackBuffer(options);
  const up = new PlaybackUpsampler();
  up.pullFrom(pb);
  return {
    write: (p) => pb.write(p),
    endTurn: () => pb.endTurn(),
    startTurn: () => pb.startTurn(),
    interrupt: () => pb.interrupt(),
    hold: () => pb.hold(),
    release: () => pb.release(),
    mixEffect: (clip, gain) => up.mixEffect(clip, gain),
    readFrame: (out) => up.readFrame(out),
    reset: () => {
      pb.reset();
      up.reset();
    },
    stats: () => pb.stats() as unknown as Record<string, unknown>,
    level: () => up.meter.read(),
  };
}

describe('the output path, playback → upsample, against the recording from before the split', () => {
  for (const [name, options] of Object.entries(variants)) {
    it(`${name}: every frame bit for bit, and the same counters`, () => {
      const before = recorded[name]!;
      const now = runPlaybackScenario(outputPath(options));
      expect(now.frames.length).toBe(before.frames.length);
      const first = now.frames.findIndex((hash, i) => hash !== before.frames[i]);
      expect(first, `the first frame that differs (of ${now.frames.length})`).toBe(-1);
      expect(now.playedMs).toEqual(before.playedMs);
      expect(now.stats).toEqual(before.stats);
      expect(now.levels).toEqual(before.levels);
    });
  }
});
