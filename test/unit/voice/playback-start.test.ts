// Starting playback runs no program: @discordjs/voice's createAudioResource() builds its transcoding
// graph once per process and probes for FFmpeg with spawnSync on the way (`ffmpeg -h`, then avconv
// and more), which stood the event loop still for 90 ms at the first join. A fake `ffmpeg` (and
// `avconv`) first on PATH records every run; none may happen. Own file: the graph is cached per
// process, so any earlier createAudioResource() in the same worker would hide the probe.
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { FRAME_SAMPLES_48K } from '../../../main/core/ports.ts';
import { selectOpus } from '../../../main/core/voice/opus.ts';
import { ContinuousPlayback } from '../../../main/core/voice/playback.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'lvb-ffmpeg-probe-'));
const marker = path.join(dir, 'ran');
const savedPath = process.env.PATH;

afterEach(() => {
  process.env.PATH = savedPath;
  rmSync(dir, { recursive: true, force: true });
});

it('starting playback spawns no FFmpeg probe, and the stream yields Opus packets', async () => {
  for (const name of ['ffmpeg', 'avconv']) {
    writeFileSync(path.join(dir, name), `#!/bin/sh\necho "$0 $*" >> "${marker}"\necho "--enable-libopus"\n`);
    chmodSync(path.join(dir, name), 0o755);
  }
  process.env.PATH = `${dir}:${savedPath}`;
  const playback = new ContinuousPlayback(selectOpus(), silentLogger());
  let frames = 0;
  playback.start({ readFrame: (out: Int16Array) => (frames += 1, out.fill(0, 0, FRAME_SAMPLES_48K * 2)) });
  await new Promise((resolve) => setTimeout(resolve, 100));
  playback.stop();
  expect(existsSync(marker)).toBe(false);
  expect(frames).toBeGreaterThan(0);
});
