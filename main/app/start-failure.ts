// A start that fails (the sidecar's port is taken, a bad setting) is shown in a small dialog with
// the cause and what to do, not only as a line in the tray's status. Pure: the words are tested.

export interface StartFailure {
  title: string;
  /** What went wrong, in words. */
  cause: string;
  /** What the user can do about it. */
  fix: string;
  /** Short form for the tray's status line. */
  short: string;
}

export function describeStartFailure(err: unknown, context: { port: number; logsFolder: string }): StartFailure {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'EADDRINUSE') {
    return {
      title: 'The sidecar port is in use',
      cause: `Port ${context.port} on this computer is already taken, so Live Voice Bridge could not start its sidecar. Usually another copy of Live Voice Bridge (the desktop app or \`npm run headless\`) is running.`,
      fix: `Quit the other copy and choose Retry. Or give this one another port: set DISCORD_VOICE_LIVE_PORT (or the “Sidecar port” setting) to a free port such as ${context.port + 1}, then restart.`,
      short: `port ${context.port} is in use`,
    };
  }
  if (code === 'EACCES') {
    return {
      title: 'The sidecar port is not allowed',
      cause: `This account may not listen on port ${context.port}.`,
      fix: 'Set DISCORD_VOICE_LIVE_PORT (or the “Sidecar port” setting) to a port of 1024 or above, then restart.',
      short: `port ${context.port} is not allowed`,
    };
  }
  if (code === 'EADDRNOTAVAIL') {
    return {
      title: 'The sidecar address does not exist here',
      cause: 'The configured sidecar host is not an address of this computer.',
      fix: 'Unset DISCORD_VOICE_LIVE_HOST (the default 127.0.0.1 always works), then restart.',
      short: 'the sidecar address does not exist here',
    };
  }
  return {
    title: 'Live Voice Bridge could not start',
    cause: message,
    fix: `The log has the details: ${context.logsFolder}. Choose Retry after fixing the cause, or report it with the log attached.`,
    short: 'see the log',
  };
}
