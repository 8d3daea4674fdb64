// How the log reads at a terminal: pretty and coloured on a TTY, JSON when piped or asked for. Both
// shells that print to a terminal (the headless CLI and the demo) choose with it.

export interface TerminalLogFormat {
  format: 'json' | 'pretty';
  colorize: boolean;
}

/** `setting` is DISCORD_VOICE_LIVE_LOG_FORMAT (Config['logFormat']). */
export function terminalLogFormat(
  setting: 'auto' | 'pretty' | 'json',
  stderr: { isTTY?: boolean },
  env: NodeJS.ProcessEnv,
): TerminalLogFormat {
  const tty = stderr.isTTY === true;
  const format = setting === 'auto' ? (tty ? 'pretty' : 'json') : setting;
  // https://no-color.org: NO_COLOR set to a non-empty value turns colour off.
  return { format, colorize: format === 'pretty' && tty && !env.NO_COLOR };
}
