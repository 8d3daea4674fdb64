// Start at login: opt-in, off by default. macOS and Windows use Electron's login items; Linux has
// none, so we write an XDG autostart entry. For an AppImage the entry must run `$APPIMAGE`, because
// process.execPath points into a temporary mount that is gone after reboot.
import path from 'node:path';

export const HIDDEN_ARG = '--hidden';
export const AUTOSTART_FILE = 'live-voice-bridge.desktop';

export type AutostartMethod =
  { kind: 'login-item' } | { kind: 'xdg'; file: string; contents: string } | { kind: 'unsupported'; reason: string };

export interface AutostartEnv {
  platform: NodeJS.Platform;
  execPath: string;
  /** Set by the AppImage runtime. */
  appImage?: string;
  /** `$XDG_CONFIG_HOME`, else `~/.config`. */
  configHome: string;
  isPackaged: boolean;
}

/** Desktop Entry `Exec` quoting: reserved characters inside double quotes get a backslash. */
function quoteExec(arg: string): string {
  return /[\s"'\\$`]/.test(arg) ? `"${arg.replace(/(["`$\\])/g, '\\$1')}"` : arg;
}

export function linuxAutostartEntry(executable: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Live Voice Bridge',
    `Exec=${quoteExec(executable)} ${HIDDEN_ARG}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

export function autostartMethod(env: AutostartEnv): AutostartMethod {
  if (!env.isPackaged) return { kind: 'unsupported', reason: 'start at login is only offered for the installed app' };
  if (env.platform === 'darwin' || env.platform === 'win32') return { kind: 'login-item' };
  if (env.platform === 'linux') {
    return {
      kind: 'xdg',
      file: path.join(env.configHome, 'autostart', AUTOSTART_FILE),
      contents: linuxAutostartEntry(env.appImage ?? env.execPath),
    };
  }
  return { kind: 'unsupported', reason: `start at login is not supported on ${env.platform}` };
}
