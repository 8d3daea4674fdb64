import { describe, expect, it } from 'vitest';
import {
  trayIconFor,
  trayMenuModel,
  trayTooltip,
  type TrayMenuItem,
  type TrayState,
} from '../../../main/app/tray-menu.ts';
import type { TalkState } from '../../../main/core/api-types.ts';

const base: TrayState = {
  bridge: 'idle',
  sidecar: 'listening',
  notificationsPaused: false,
  startAtLogin: false,
  startAtLoginSupported: true,
  shortcut: 'CommandOrControl+Alt+Shift+F11',
  port: 18943,
};
const LIVE: TalkState = { muted: false, ptt: { enabled: false, held: false }, to_model: true };

function enabledActions(items: TrayMenuItem[]): string[] {
  return items.flatMap((i) => ((i.kind === 'action' || i.kind === 'checkbox') && i.enabled ? [i.action] : []));
}

describe('tray menu model', () => {
  it('has the menu from the issue, in order, status first and Quit last', () => {
    const labels = trayMenuModel(base).map((i) => (i.kind === 'separator' ? '—' : i.label));
    expect(labels).toEqual([
      'Voice: idle',
      '—',
      'Join voice',
      'Leave voice',
      'Push screenshot',
      'Stop talking',
      '—',
      'Mute',
      'Push-to-talk',
      '—',
      'Open dashboard',
      'Notifications paused',
      'Start at login',
      '—',
      'Quit',
    ]);
  });

  it('offers Join when idle, Leave and screenshot only during a call', () => {
    expect(enabledActions(trayMenuModel(base))).toEqual([
      'join',
      'open-dashboard',
      'toggle-notifications',
      'toggle-start-at-login',
      'quit',
    ]);
    expect(enabledActions(trayMenuModel({ ...base, bridge: 'connected' }))).toEqual([
      'leave',
      'push-screenshot',
      'stop-talking',
      'open-dashboard',
      'toggle-notifications',
      'toggle-start-at-login',
      'quit',
    ]);
    expect(enabledActions(trayMenuModel({ ...base, bridge: 'connecting' }))).toContain('leave');
    expect(enabledActions(trayMenuModel({ ...base, bridge: 'error' }))).toContain('join');
  });

  it('offers "Stop talking" (tap to interrupt) only in a call, and says when the model is speaking', () => {
    const stop = (state: typeof base) =>
      trayMenuModel(state).find((i) => i.kind === 'action' && i.action === 'stop-talking');
    expect(stop(base)).toMatchObject({ enabled: false, label: 'Stop talking' });
    expect(stop({ ...base, bridge: 'connected', modelSpeaking: true })).toMatchObject({
      enabled: true,
      label: 'Stop talking (the model is speaking)',
    });
  });

  it('disables everything that needs the sidecar while it is starting or failed', () => {
    for (const sidecar of ['starting', 'failed'] as const) {
      expect(enabledActions(trayMenuModel({ ...base, sidecar }))).toEqual([
        'toggle-notifications',
        'toggle-start-at-login',
        'quit',
      ]);
    }
    expect(trayMenuModel({ ...base, sidecar: 'failed', problem: 'port 18943 is in use' })[0]).toEqual({
      kind: 'status',
      label: 'Sidecar failed: port 18943 is in use',
    });
  });

  it('reflects toggles and shows the shortcut on the screenshot item', () => {
    const items = trayMenuModel({
      ...base,
      notificationsPaused: true,
      startAtLogin: true,
      startAtLoginSupported: false,
    });
    expect(items.find((i) => i.kind === 'checkbox' && i.action === 'toggle-notifications')).toMatchObject({
      checked: true,
      enabled: true,
    });
    expect(items.find((i) => i.kind === 'checkbox' && i.action === 'toggle-start-at-login')).toMatchObject({
      checked: true,
      enabled: false,
    });
    expect(items.find((i) => i.kind === 'action' && i.action === 'push-screenshot')).toMatchObject({
      accelerator: 'CommandOrControl+Alt+Shift+F11',
    });
    expect(
      trayMenuModel({ ...base, shortcut: null }).find((i) => i.kind === 'action' && i.action === 'push-screenshot'),
    ).not.toHaveProperty('accelerator');
  });

  it('picks the icon variant and tooltip from the state', () => {
    expect(trayIconFor(base)).toBe('idle');
    expect(trayIconFor({ ...base, bridge: 'connected' })).toBe('listening');
    expect(trayIconFor({ ...base, bridge: 'connected', modelSpeaking: true })).toBe('speaking');
    expect(
      trayIconFor({
        ...base,
        bridge: 'connected',
        modelSpeaking: true,
        talk: { ...LIVE, muted: true, to_model: false },
      }),
    ).toBe('muted');
    // Push-to-talk with the key up: the model hears nobody, shown as muted.
    expect(
      trayIconFor({
        ...base,
        bridge: 'connected',
        talk: { muted: false, ptt: { enabled: true, held: false }, to_model: false },
      }),
    ).toBe('muted');
    // Muted between calls (the next call joins muted): the crossed-out microphone, not the idle icon.
    expect(trayIconFor({ ...base, talk: { ...LIVE, muted: true, to_model: false } })).toBe('muted');
    expect(trayIconFor({ ...base, bridge: 'connecting' })).toBe('connecting');
    expect(trayIconFor({ ...base, bridge: 'reconnecting' })).toBe('connecting');
    expect(trayIconFor({ ...base, bridge: 'error' })).toBe('error');
    expect(trayIconFor({ ...base, sidecar: 'failed' })).toBe('error');
    expect(trayTooltip({ ...base, bridge: 'error', problem: 'model refused' })).toBe(
      'Live Voice Bridge — Voice: error (model refused) — sidecar :18943',
    );
  });

  it('mute and push-to-talk: checkboxes with their keys, the state in words, hold keys off with the reason', () => {
    const items = trayMenuModel({
      ...base,
      talk: { ...LIVE, muted: true, to_model: false },
      muteShortcut: 'CommandOrControl+Alt+Shift+F10',
    });
    expect(items[1]).toEqual({ kind: 'status', label: 'Muted: the model hears nobody' });
    expect(items.find((i) => i.kind === 'checkbox' && i.action === 'toggle-mute')).toMatchObject({
      checked: true,
      enabled: true,
      accelerator: 'CommandOrControl+Alt+Shift+F10',
    });
    // Until the core reported the talk state the toggles are held.
    expect(trayMenuModel(base).find((i) => i.kind === 'checkbox' && i.action === 'toggle-mute')).toMatchObject({
      enabled: false,
    });
    const ptt: TalkState = { muted: false, ptt: { enabled: true, held: false }, to_model: false };
    const off = trayMenuModel({
      ...base,
      talk: ptt,
      talkKeys: { available: false, reason: 'no X display ($DISPLAY is not set), so global keys cannot be read' },
    });
    expect(off[1]).toEqual({
      kind: 'status',
      label: 'Push-to-talk keys off: no X display ($DISPLAY is not set), so global keys cannot be read',
    });
    const on = trayMenuModel({ ...base, talk: ptt, talkKeys: { available: true, key: 'F13' } });
    expect(on[1]).toEqual({ kind: 'status', label: 'Push-to-talk: hold F13 to talk' });
    expect(on.find((i) => i.kind === 'checkbox' && i.action === 'toggle-ptt')).toMatchObject({
      checked: true,
      accelerator: 'F13',
    });
    expect(trayTooltip({ ...base, bridge: 'connected', talk: ptt, talkKeys: { available: true, key: 'F13' } })).toBe(
      'Live Voice Bridge — Voice: in a call · Push-to-talk: hold F13 to talk — sidecar :18943',
    );
    expect(trayTooltip({ ...base, bridge: 'connected', talk: LIVE, modelSpeaking: true })).toBe(
      'Live Voice Bridge — Voice: in a call · the model is speaking — sidecar :18943',
    );
  });

  it('shows key clashes and the updater, with "Restart to update" once one is downloaded', () => {
    const items = trayMenuModel({
      ...base,
      shortcutWarnings: ['Mute / unmute (Ctrl+Shift+F): clashes with Find in Files (VS Code, JetBrains IDEs)'],
      update: { state: 'ready', version: '0.4.0' },
    });
    const labels = items.map((i) => (i.kind === 'separator' ? '—' : i.label));
    expect(labels.slice(-5)).toEqual([
      'Mute / unmute (Ctrl+Shift+F): clashes with Find in Files (VS Code, JetBrains IDEs)',
      'Update 0.4.0 ready: restart to install',
      'Restart to update',
      '—',
      'Quit',
    ]);
    expect(
      trayMenuModel({ ...base, update: { state: 'off' } }).some(
        (i) => i.kind === 'action' && i.action === 'install-update',
      ),
    ).toBe(false);
  });
});
