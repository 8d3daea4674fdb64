// bench/lib/cpu-profile-split.ts: a CPU profile's busy samples by owner, native time named with its caller, a window.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ownerOf, splitProfile } from '../../../bench/lib/cpu-profile-split.ts';

it('tells our modules, packages, Node and V8 apart by URL', () => {
  expect(ownerOf('file:///x/dist/main/core/voice/opus.js', 'encode')).toEqual({
    owner: 'ours',
    what: 'ours: main/core/voice/opus.js',
  });
  expect(ownerOf('file:///x/node_modules/@discordjs/voice/dist/index.js', 'f')).toEqual({
    owner: 'library',
    what: 'library: @discordjs/voice',
  });
  expect(ownerOf('node:internal/streams/readable', 'read')).toEqual({ owner: 'node', what: 'node: internal/streams' });
  expect(ownerOf('', '(garbage collector)')).toEqual({ owner: 'v8', what: 'v8: GC' });
  expect(ownerOf('', 'doSend')).toBeNull();
});

it('counts busy samples in the window, native time under its own name with its caller', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-prof-'));
  try {
    const file = path.join(dir, 'p.cpuprofile');
    const frame = (functionName: string, url: string) => ({
      functionName,
      url,
      scriptId: '0',
      lineNumber: 0,
      columnNumber: 0,
    });
    writeFileSync(
      file,
      JSON.stringify({
        nodes: [
          { id: 1, callFrame: frame('(root)', ''), children: [2, 4, 5] },
          { id: 2, callFrame: frame('send', 'file:///x/node_modules/prism-media/src/opus.js'), children: [3] },
          { id: 3, callFrame: frame('encode', ''), children: [] },
          { id: 4, callFrame: frame('mix', 'file:///x/dist/main/core/bridge/mixer.js'), children: [] },
          { id: 5, callFrame: frame('(idle)', ''), children: [] },
        ],
        startTime: 1000,
        endTime: 1600,
        // at 1100: encode, 1200: encode, 1300: mix, 1400: idle, 1500: mix (outside the window)
        samples: [3, 3, 4, 5, 4],
        timeDeltas: [100, 100, 100, 100, 100],
      }),
    );
    const split = splitProfile(file, [1050, 1450]);
    expect(split.windowed).toBe(true);
    expect(split.samples).toBe(3);
    expect(split.byOwner).toEqual({ ours: 33.3, library: 0, node: 0, native: 66.7, v8: 0 });
    expect(split.top[0]).toEqual({ what: 'native: encode (from library: prism-media)', percent: 66.7 });
    expect(splitProfile(file, [5000, 6000])).toMatchObject({ windowed: false, samples: 4 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
