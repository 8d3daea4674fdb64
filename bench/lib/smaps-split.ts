// Where a process's resident memory is, from /proc/<pid>/smaps, summed by who keeps it: glibc's
// main arena (`[heap]`), glibc's per-thread heaps (anonymous read-write mappings that begin on a
// 64 MiB boundary: glibc's HEAP_MAX_SIZE on 64-bit, each thread heap aligned to it), the rest of
// the anonymous memory (V8's heap, thread stacks, other mmaps) and file-backed pages (the node
// binary, libraries). The day soak reads it once a minute (docs/performance.md, "Where the RSS
// goes"): V8's heap figures do not show memory glibc keeps after a free.
import { readFileSync } from 'node:fs';

export interface MemorySplit {
  mallocMainMb: number;
  mallocThreadsMb: number;
  anonOtherMb: number;
  fileMb: number;
}

const THREAD_HEAP_ALIGN = 64n * 1024n * 1024n;
const MAPPING = /^([0-9a-f]+)-[0-9a-f]+ (\S+) \S+ \S+ \d+\s*(.*)$/;

type Kind = keyof MemorySplit;

function kindOf(start: bigint, perms: string, name: string): Kind {
  if (name === '[heap]') return 'mallocMainMb';
  if (name === '' && perms.startsWith('rw') && start % THREAD_HEAP_ALIGN === 0n) return 'mallocThreadsMb';
  if (name === '' || name.startsWith('[')) return 'anonOtherMb';
  return 'fileMb';
}

/** The split of one smaps text (MB, one decimal). */
export function splitSmaps(text: string): MemorySplit {
  const kb: Record<Kind, number> = { mallocMainMb: 0, mallocThreadsMb: 0, anonOtherMb: 0, fileMb: 0 };
  let current: Kind | null = null;
  for (const line of text.split('\n')) {
    const mapping = MAPPING.exec(line);
    if (mapping) {
      current = kindOf(BigInt(`0x${mapping[1]!}`), mapping[2]!, mapping[3]!.trim());
      continue;
    }
    if (current && line.startsWith('Rss:')) kb[current] += Number(line.split(/\s+/)[1] ?? 0);
  }
  const mb = (n: number) => Math.round(n / 102.4) / 10;
  return {
    mallocMainMb: mb(kb.mallocMainMb),
    mallocThreadsMb: mb(kb.mallocThreadsMb),
    anonOtherMb: mb(kb.anonOtherMb),
    fileMb: mb(kb.fileMb),
  };
}

/** The split of a live process, or null once it is gone. */
export function readMemorySplit(pid: number): MemorySplit | null {
  try {
    return splitSmaps(readFileSync(`/proc/${pid}/smaps`, 'utf8'));
  } catch {
    return null;
  }
}
