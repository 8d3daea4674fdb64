// The day soak's split of the core's RSS by who keeps it (bench/lib/smaps-split.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readMemorySplit, splitSmaps } from '../../../bench/lib/smaps-split.ts';

const mapping = (start: string, perms: string, name: string, rssKb: number) =>
  `${start}-ffffffffffff ${perms} 00000000 00:00 0 ${name}\nSize: 1 kB\nRss: ${rssKb} kB\nPss: ${rssKb} kB\n`;

describe('splitSmaps', () => {
  it("sums Rss by glibc's main arena, its 64 MiB-aligned thread heaps, other anonymous memory, and files", () => {
    const text = [
      mapping('55d0c0000000', 'rw-p', '[heap]', 2048),
      mapping('7f3c08000000', 'rw-p', '', 1024), // a thread heap: begins on a 64 MiB boundary
      mapping('7f3c08100000', '---p', '', 0), // its reserved rest
      mapping('7f3c0a123000', 'rw-p', '', 3072), // V8 or another mmap
      mapping('7ffd12340000', 'rw-p', '[stack]', 512),
      mapping('55d0a0000000', 'r-xp', '/usr/bin/node', 4096),
    ].join('');
    expect(splitSmaps(text)).toEqual({ mallocMainMb: 2, mallocThreadsMb: 1, anonOtherMb: 3.5, fileMb: 4 });
  });

  it('reads a live process: the parts add up to its RSS', () => {
    const split = readMemorySplit(process.pid)!;
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
    const total = split.mallocMainMb + split.mallocThreadsMb + split.anonOtherMb + split.fileMb;
    // Read a moment apart, and each part is rounded: within a few MB of each other.
    expect(Math.abs(total - rssKb / 1024)).toBeLessThan(8);
    expect(split.fileMb).toBeGreaterThan(0);
    expect(readMemorySplit(2 ** 22 + 12345)).toBeNull();
  });
});
