// A V8 CPU profile (`node --cpu-prof`, a .cpuprofile file) split by whose code was running: ours
// (a file under main/, by module), a library (by npm package), Node's own JavaScript (node:*), and
// native functions (a codec, a system call binding: no URL; named with the nearest caller that has
// one, so `native: encode (from library: prism-media)`), and V8's own entries (GC, "(program)"). Samples are wall-clock (the sampler interrupts the
// main thread on an interval; bench/lib/cpu-tiers.ts says what that overstates), main thread only;
// idle samples are left out, and `window` keeps the samples taken between two monotonic instants.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const profileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({ functionName: z.string(), url: z.string() }),
      children: z.array(z.number()).optional(),
    }),
  ),
  startTime: z.number(),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

export interface ProfileSplit {
  /** Busy samples counted (idle left out). */
  samples: number;
  /** Share of busy samples, %, by owner: `ours`, `library`, `node`, `v8`; then by module/package. */
  byOwner: Record<'ours' | 'library' | 'node' | 'native' | 'v8', number>;
  /** The largest entries: `ours: main/core/audio/downsampler.js`, `library: @discordjs/voice`, … */
  top: { what: string; percent: number }[];
  /** The window was applied (false: no sample fell in it, the whole profile was used). */
  windowed: boolean;
}

/** What a frame's URL belongs to; null for a frame without one (native: its caller decides). */
export function ownerOf(
  url: string,
  functionName: string,
): { owner: keyof ProfileSplit['byOwner']; what: string } | null {
  if (url === '') {
    if (functionName === '(garbage collector)') return { owner: 'v8', what: 'v8: GC' };
    if (functionName === '(program)' || functionName === '(root)') return { owner: 'v8', what: 'v8: (program)' };
    return null;
  }
  if (url.startsWith('node:')) return { owner: 'node', what: `node: ${url.slice(5).split('/').slice(0, 2).join('/')}` };
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return { owner: 'library', what: `library: ${pkg[1]}` };
  const ours = /\/((?:main|bench)\/.*)$/.exec(url);
  if (ours) return { owner: 'ours', what: `ours: ${ours[1]}` };
  return { owner: 'node', what: `other: ${url}` };
}

/** `window`: [from, to] in µs of the monotonic clock (process.hrtime.bigint() / 1000n), V8's profile clock. */
export function splitProfile(file: string, window?: [number, number]): ProfileSplit {
  const profile = profileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const attribution = new Map<number, { owner: keyof ProfileSplit['byOwner']; what: string } | 'idle'>();
  const attribute = (id: number): { owner: keyof ProfileSplit['byOwner']; what: string } | 'idle' => {
    const known = attribution.get(id);
    if (known) return known;
    const node = byId.get(id)!;
    let found: ReturnType<typeof attribute> =
      node.callFrame.functionName === '(idle)'
        ? 'idle'
        : (ownerOf(node.callFrame.url, node.callFrame.functionName) ?? {
            owner: 'v8',
            what: `native: ${node.callFrame.functionName}`,
          });
    if (found !== 'idle' && found.what.startsWith('native: ')) {
      let caller = '';
      for (let up = parent.get(id); up !== undefined && !caller; up = parent.get(up)) {
        const frame = byId.get(up)!.callFrame;
        const owner = ownerOf(frame.url, frame.functionName);
        if (owner && owner.owner !== 'v8') caller = owner.what;
      }
      found = { owner: 'native', what: `${found.what}${caller ? ` (from ${caller})` : ''}` };
    }
    attribution.set(id, found);
    return found;
  };
  const collect = (inWindow: (t: number) => boolean) => {
    const counts = new Map<string, { owner: keyof ProfileSplit['byOwner']; n: number }>();
    let t = profile.startTime;
    let busy = 0;
    profile.samples.forEach((id, i) => {
      t += profile.timeDeltas[i] ?? 0;
      if (!inWindow(t)) return;
      const a = attribute(id);
      if (a === 'idle') return;
      busy++;
      const entry = counts.get(a.what) ?? { owner: a.owner, n: 0 };
      entry.n++;
      counts.set(a.what, entry);
    });
    return { counts, busy };
  };
  let { counts, busy } = collect((t) => !window || (t >= window[0] && t <= window[1]));
  const windowed = window !== undefined && busy > 0;
  if (window && busy === 0) ({ counts, busy } = collect(() => true));
  const pct = (n: number) => Math.round((1000 * n) / Math.max(1, busy)) / 10;
  const byOwner = { ours: 0, library: 0, node: 0, native: 0, v8: 0 };
  for (const { owner, n } of counts.values()) byOwner[owner] += n;
  return {
    samples: busy,
    byOwner: {
      ours: pct(byOwner.ours),
      library: pct(byOwner.library),
      node: pct(byOwner.node),
      native: pct(byOwner.native),
      v8: pct(byOwner.v8),
    },
    top: [...counts.entries()]
      .sort((a, b) => b[1].n - a[1].n)
      .slice(0, 20)
      .map(([what, { n }]) => ({ what, percent: pct(n) })),
    windowed,
  };
}
