// One SIGINT/SIGTERM/SIGHUP runs OUR shutdown to the end. Libraries hook these signals too and then
// re-raise them: when-exit (conf → atomically) runs its hooks and sends SIGTERM to its own pid;
// signal-exit (proper-lockfile) re-raises once it believes it is the last listener, and with no
// handler left the default action kills the process mid-shutdown (exit 143, an entry left
// `delivering`). So our listener stays installed for the whole shutdown (never `once`), and on the
// first signal every other listener of these signals is removed: their hooks have already run in
// this emit (Node calls a copy of the listener list), and a re-raised signal then lands only here,
// where it is ignored while the shutdown runs.
const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export type ShutdownSignal = (typeof SHUTDOWN_SIGNALS)[number];

/** Calls `onSignal` once, on the first shutdown signal; later ones (ours or re-raised) are ignored. Returns an uninstaller. */
export function handleShutdownSignals(onSignal: (signal: ShutdownSignal) => void): () => void {
  let fired = false;
  const ours = (signal: NodeJS.Signals): void => {
    for (const s of SHUTDOWN_SIGNALS) {
      for (const listener of process.listeners(s))
        if (listener !== ours) process.removeListener(s, listener as (...args: unknown[]) => void);
    }
    if (fired) return;
    fired = true;
    onSignal(signal as ShutdownSignal);
  };
  for (const s of SHUTDOWN_SIGNALS) process.on(s, ours);
  return () => {
    for (const s of SHUTDOWN_SIGNALS) process.removeListener(s, ours);
  };
}
