// The tray's menu and icon as plain data derived from app state, so the rules ("Leave is only
// offered during a call") are unit-tested in Node; tray.ts turns the model into Electron menus.
import type { BridgeState, TalkState } from '../core/api-types.ts';
import type { TalkKeysStatus } from './talk-keys.ts';
import { updateStatusLine, type UpdateStatus } from './update-feed.ts';

export type TrayAction =
  | 'join'
  | 'leave'
  | 'push-screenshot'
  | 'toggle-mute'
  | 'toggle-ptt'
  | 'stop-talking'
  | 'open-dashboard'
  | 'toggle-notifications'
  | 'toggle-start-at-login'
  | 'install-update'
  | 'quit';
/** One icon per state (resources/tray-<variant>.png, drawn by scripts/draw-icons.ts). */
export type TrayIconVariant = 'idle' | 'connecting' | 'listening' | 'speaking' | 'muted' | 'error';

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
  /** Mute / push-to-talk as the core reported it (the `talk` event); null until known. */
  talk?: TalkState | null;
  /** The model's voice is playing (output level above zero in the last `levels` event). */
  modelSpeaking?: boolean;
  /** The registered mute accelerator, or null. */
  muteShortcut?: string | null;
  /** The push-to-talk hold key, or why global hold keys are off. */
  talkKeys?: TalkKeysStatus | null;
  /** Key bindings that are invalid, not registered or clash with common shortcuts, one line each. */
  shortcutWarnings?: string[];
  update?: UpdateStatus;
  /** Speakers the bridge cannot decrypt right now (DAVE), by user id; empty when all are heard. */
  undecryptable?: string[];
}

export type TrayMenuItem =
  | { kind: 'status'; label: string }
  | { kind: 'separator' }
  | { kind: 'action'; action: TrayAction; label: string; enabled: boolean; accelerator?: string }
  | { kind: 'checkbox'; action: TrayAction; label: string; enabled: boolean; checked: boolean; accelerator?: string };

const IN_CALL: ReadonlySet<string> = new Set(['connecting', 'connected', 'reconnecting', 'parked']);
const CAN_JOIN: ReadonlySet<string> = new Set(['idle', 'stopped', 'error', 'unknown']);

const STATUS_WORDS: Record<BridgeState | 'unknown', string> = {
  unknown: 'starting…',
  idle: 'idle',
  connecting: 'connecting…',
  connected: 'in a call',
  reconnecting: 'reconnecting…',
  parked: 'in a call, model parked (quiet)',
  stopping: 'leaving…',
  stopped: 'idle',
  error: 'error',
};

export function trayStatusLine(state: TrayState): string {
  if (state.sidecar === 'failed') return `Sidecar failed${state.problem ? `: ${state.problem}` : ''}`;
  if (state.sidecar === 'starting') return 'Starting…';
  const bridge = STATUS_WORDS[state.bridge];
  const reason =
    (state.bridge === 'error' || state.bridge === 'reconnecting') && state.problem ? ` (${state.problem})` : '';
  return `Voice: ${bridge}${reason}`;
}

/** What the talk controls mean right now, in words (menu and tooltip); null until the core said. */
export function trayTalkLine(state: TrayState): string | null {
  const talk = state.talk;
  if (!talk) return null;
  if (talk.muted) return 'Muted: the model hears nobody';
  if (!talk.ptt.enabled) return null;
  if (talk.ptt.held) return 'Push-to-talk: talking';
  if (state.talkKeys && !state.talkKeys.available) return `Push-to-talk keys off: ${state.talkKeys.reason}`;
  return state.talkKeys?.available
    ? `Push-to-talk: hold ${state.talkKeys.key} to talk`
    : 'Push-to-talk: hold to talk in the dashboard';
}

export function trayIconFor(state: TrayState): TrayIconVariant {
  if (state.sidecar === 'failed' || state.bridge === 'error') return 'error';
  if (state.bridge === 'connecting' || state.bridge === 'reconnecting') return 'connecting';
  if (state.bridge === 'connected') {
    if (state.talk && !state.talk.to_model) return 'muted';
    return state.modelSpeaking ? 'speaking' : 'listening';
  }
  // Muted outside a call (the next call joins muted): the crossed-out microphone says so now.
  return state.talk?.muted ? 'muted' : 'idle';
}

const ICON_WORDS: Record<TrayIconVariant, string | null> = {
  idle: null,
  connecting: null,
  listening: 'listening',
  speaking: 'the model is speaking',
  muted: null,
  error: null,
};

export function trayTooltip(state: TrayState): string {
  const deaf = state.undecryptable?.length
    ? `cannot decrypt ${state.undecryptable.length === 1 ? '1 speaker' : `${state.undecryptable.length} speakers`} (recovering)`
    : '';
  const extra = [ICON_WORDS[trayIconFor(state)], trayTalkLine(state), deaf].filter(Boolean).join(' · ');
  return `Live Voice Bridge — ${trayStatusLine(state)}${extra ? ` · ${extra}` : ''}${state.port ? ` — sidecar :${state.port}` : ''}`;
}

export function trayMenuModel(state: TrayState): TrayMenuItem[] {
  const ready = state.sidecar === 'listening';
  const talkLine = trayTalkLine(state);
  const updateLine = state.update ? updateStatusLine(state.update) : null;
  const talkReady = ready && Boolean(state.talk);
  return [
    { kind: 'status', label: trayStatusLine(state) },
    ...(talkLine ? [{ kind: 'status', label: talkLine } as const] : []),
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
    // Tap to interrupt: the model's current reply stops (POST /interrupt).
    {
      kind: 'action',
      action: 'stop-talking',
      label: state.modelSpeaking ? 'Stop talking (the model is speaking)' : 'Stop talking',
      enabled: ready && state.bridge === 'connected',
    },
    { kind: 'separator' },
    {
      kind: 'checkbox',
      action: 'toggle-mute',
      label: 'Mute',
      enabled: talkReady,
      checked: state.talk?.muted ?? false,
      ...(state.muteShortcut ? { accelerator: state.muteShortcut } : {}),
    },
    {
      kind: 'checkbox',
      action: 'toggle-ptt',
      label: 'Push-to-talk',
      enabled: talkReady,
      checked: state.talk?.ptt.enabled ?? false,
      ...(state.talkKeys?.available ? { accelerator: state.talkKeys.key } : {}),
    },
    { kind: 'separator' },
    { kind: 'action', action: 'open-dashboard', label: 'Open dashboard', enabled: ready },
    {
      kind: 'checkbox',
      action: 'toggle-notifications',
      label: 'Notifications paused',
      enabled: true,
      checked: state.notificationsPaused,
    },
    {
      kind: 'checkbox',
      action: 'toggle-start-at-login',
      label: 'Start at login',
      enabled: state.startAtLoginSupported,
      checked: state.startAtLogin,
    },
    ...(state.shortcutWarnings ?? []).map((label) => ({ kind: 'status', label }) as const),
    ...(updateLine ? [{ kind: 'status', label: updateLine } as const] : []),
    ...(state.update?.state === 'ready'
      ? [{ kind: 'action', action: 'install-update', label: 'Restart to update', enabled: true } as const]
      : []),
    { kind: 'separator' },
    { kind: 'action', action: 'quit', label: 'Quit', enabled: true },
  ];
}
