// The core's descriptors as /proc shows them, from outside the process: how many, which TCP sockets
// (ports and state, from its socket inodes and /proc/<pid>/net/tcp{,6}), the other fds by kind, its
// child processes, and a quiet point's snapshot of them (the day soak, issue #55).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return -1;
  }
}

const TCP_STATES: Record<string, string> = {
  '01': 'established',
  '06': 'time-wait',
  '08': 'close-wait',
  '0A': 'listen',
};

/** The targets of the core's fds (socket:[inode], pipe:[inode], anon_inode:[eventfd], a path); [] when gone. */
function fdTargets(pid: number): string[] {
  const targets: string[] = [];
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        targets.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return [];
  }
  return targets;
}

interface TcpEntry {
  local: number;
  remote: number;
  state: string;
  inode: string;
}

/** The rows of /proc/<pid>/net/tcp{,6} (the network namespace's sockets, not only the core's). */
function tcpTable(pid: number): TcpEntry[] {
  const rows: TcpEntry[] = [];
  const port = (address: string) => parseInt(address.split(':')[1]!, 16);
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      rows.push({
        local: port(cols[1]!),
        remote: port(cols[2]!),
        state: TCP_STATES[cols[3]!] ?? cols[3]!,
        inode: cols[9]!,
      });
    }
  }
  return rows;
}

const socketInode = (target: string): string | undefined => /^socket:\[(\d+)\]$/.exec(target)?.[1];

/**
 * The core's TCP sockets, each as "local port → remote port (state)", sorted: read from its fds'
 * socket inodes and /proc/<pid>/net/tcp{,6}. At a quiet point it names the socket that differs.
 */
export function coreTcpSockets(pid: number, targets: readonly string[] = fdTargets(pid)): string[] {
  const inodes = new Set(targets.map(socketInode));
  return tcpTable(pid)
    .filter((row) => inodes.has(row.inode))
    .map((row) => `${row.local} → ${row.remote} (${row.state})`)
    .sort();
}

/** The core's fds that are not TCP sockets, grouped by target without inode numbers: "pipe × 6", "/…/notes.db". */
export function coreOtherFds(targets: readonly string[], tcpInodes: ReadonlySet<string>): string[] {
  const counts = new Map<string, number>();
  for (const target of targets) {
    const inode = socketInode(target);
    if (inode && tcpInodes.has(inode)) continue;
    const kind = target.replace(/^(socket|pipe):\[\d+\]$/, '$1');
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].map(([kind, n]) => (n > 1 ? `${kind} × ${n}` : kind)).sort();
}

/** The core's fds at a quiet point, read at one instant: what it holds of its own, and what its clients hold open. */
export interface QuietSnapshot {
  fds: number;
  /**
   * The soak's own clients' connections into the sidecar (local port = the sidecar's): the /events
   * stream, the MCP agent's session, a CLI's /ask still waiting. The client decides when they
   * close, not the core, so they are reported beside the core's own fds and not in them.
   */
  sidecarClients: number;
  sockets: string[];
  /**
   * The core's sockets to the model service (remote port = the fake's), in any state: the fds its
   * model connection holds, read in the same instant as `fds` (the fake's own count may be a
   * close ahead or behind).
   */
  modelSockets: number;
  /** The other fds (files, pipes, event fds), by kind: which one differs when the counts do. */
  otherFds: string[];
}

export function quietSnapshot(pid: number, sidecarPort: number, modelPort: number): QuietSnapshot {
  const targets = fdTargets(pid);
  const sockets = coreTcpSockets(pid, targets);
  const sidecarClients = sockets.filter((s) => s.startsWith(`${sidecarPort} → `) && !s.endsWith('(listen)')).length;
  return {
    fds: targets.length,
    sidecarClients,
    sockets,
    modelSockets: sockets.filter((s) => s.includes(` → ${modelPort} (`)).length,
    otherFds: coreOtherFds(targets, new Set(tcpTable(pid).map((row) => row.inode))),
  };
}

/** The model fake's port, from the core's environment for it (its …_BASE_URL). */
export function modelPortOf(env: Readonly<Record<string, string>>): number {
  const url = Object.entries(env).find(([key]) => key.endsWith('_BASE_URL'))?.[1];
  if (!url) throw new Error('the model fake gave the core no base URL');
  return Number(new URL(url).port);
}

/** Two snapshots describe the same fds (the same sockets and the same other fds). */
export function sameSnapshot(a: QuietSnapshot, b: QuietSnapshot): boolean {
  return (
    a.fds === b.fds && a.sockets.join('\n') === b.sockets.join('\n') && a.otherFds.join('\n') === b.otherFds.join('\n')
  );
}

/** Processes whose parent is `pid` (the core's children: none expected). */
export function childProcesses(pid: number): number {
  let n = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}
