// The last line of defence for MCP server children: whatever state a server is in when the core
// ends (ready, or hung in `initialize` with its connect still pending), its process must not
// outlive us. stop() closes every child properly (stdin end, SIGTERM, a bounded wait, SIGKILL, in
// the SDK's transport); this catches the exits that skip stop() (an uncaught error, process.exit)
// by SIGKILLing every child still alive. A hung stdio server often ignores its stdin closing, so a
// parent that just exits leaves it running with parent 1.
const live = new Set<number>();
let hooked = false;

function killAll(): void {
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  live.clear();
}

/** Remembers a child until it exits; it is SIGKILLed if the core process ends first. */
export function trackChild(pid: number): void {
  live.add(pid);
  if (!hooked) {
    hooked = true;
    process.once('exit', killAll);
  }
}

/** The child exited (or was reaped by stop()). */
export function forgetChild(pid: number): void {
  live.delete(pid);
}

/** Pids still tracked (tests). */
export function trackedChildren(): number[] {
  return [...live];
}
