// The tray's menu and icon as plain data derived from app state, so the rules ("Leave is only
// offered during a call") are unit-tested in Node; tray.ts turns the model into Electron menus.
import type { BridgeState } from '../core/api-types.ts';

export type TrayAction = 'join' | 'leave' | 'push-screenshot' | 'open-dashboard' | 'toggle-notifications' | 'toggle-start-at-login' | 'quit';
export type TrayIconVariant = 'idle' | 'connected' | 'error';

export interface TrayState {
  /** `unknown` until the first state event from the sidecar. */
  bridge: BridgeState | 'unknown';
  sidecar: 'starting' | 'listening' | 'failed';
  /** A short reason shown when something failed (never a secret). */
  problem?: string;
  notificationsPaused: boolean;
  startAtLogin: boolean;
  /** False where start-at-login cannot be offered (unsigned macOS dev run, unknown platform). */
  startAtLoginSupported: boolean;
  /** The screenshot accelerator that is registered, or null when none could be. */
  shortcut: string | null;
  port?: number;
}

export type TrayMenuItem =
  | { kind: 'status'; label: string }
  | { kind: 'separator' }
  | { kind: 'action'; action: TrayAction; label: string; enabled: boolean; accelerator?: string }
  | { kind: 'checkbox'; action: TrayAction; label: string; enabled: boolean; checked: boolean };

const IN_CALL: ReadonlySet<string> = new Set(['connecting', 'connected', 'reconnecting']);
const CAN_JOIN: ReadonlySet<string> = new Set(['idle', 'stopped', 'error', 'unknown']);

const STATUS_WORDS: Record<BridgeState | 'unknown', string> = {
  unknown: 'starting…',
  idle: 'idle',
  connecting: 'connecting…',
  connected: 'in a call',
  reconnecting: 'reconnecting…',
  stopping: 'leaving…',
  stopped: 'idle',
  error: 'error',
};

export function trayStatusLine(state: TrayState): string {
  if (state.sidecar === 'failed') return `Sidecar failed${state.problem ? `: ${state.problem}` : ''}`;
  if (state.sidecar === 'starting') return 'Starting…';
  const bridge = STATUS_WORDS[state.bridge];
  const reason = state.bridge === 'error' && state.problem ? ` (${state.problem})` : '';
  return `Voice: ${bridge}${reason}`;
}

export function trayIconFor(state: TrayState): TrayIconVariant {
  if (state.sidecar === 'failed' || state.bridge === 'error') return 'error';
  if (state.bridge === 'connected') return 'connected';
  return 'idle';
}

export function trayTooltip(state: TrayState): string {
  return `Live Voice Bridge — ${trayStatusLine(state)}${state.port ? ` — sidecar :${state.port}` : ''}`;
}

export function trayMenuModel(state: TrayState): TrayMenuItem[] {
  const ready = state.sidecar === 'listening';
  return [
    { kind: 'status', label: trayStatusLine(state) },
    { kind: 'separator' },
    { kind: 'action', action: 'join', label: 'Join voice', enabled: ready && CAN_JOIN.has(state.bridge) },
    { kind: 'action', action: 'leave', label: 'Leave voice', enabled: ready && IN_CALL.has(state.bridge) },
    {
      kind: 'action',
      action: 'push-screenshot',
      label: 'Push screenshot',
      enabled: ready && state.bridge === 'connected',
      ...(state.shortcut ? { accelerator: state.shortcut } : {}),
    },
    { kind: 'separator' },
    { kind: 'action', action: 'open-dashboard', label: 'Open dashboard', enabled: ready },
    { kind: 'checkbox', action: 'toggle-notifications', label: 'Notifications paused', enabled: true, checked: state.notificationsPaused },
    { kind: 'checkbox', action: 'toggle-start-at-login', label: 'Start at login', enabled: state.startAtLoginSupported, checked: state.startAtLogin },
    { kind: 'separator' },
    { kind: 'action', action: 'quit', label: 'Quit', enabled: true },
  ];
}
