import { describe, expect, it } from 'vitest';
import { trayIconFor, trayMenuModel, trayTooltip, type TrayMenuItem, type TrayState } from '../../../main/app/tray-menu.ts';

const base: TrayState = {
  bridge: 'idle',
  sidecar: 'listening',
  notificationsPaused: false,
  startAtLogin: false,
  startAtLoginSupported: true,
  shortcut: 'CommandOrControl+Shift+F',
  port: 18943,
};

function enabledActions(items: TrayMenuItem[]): string[] {
  return items.flatMap((i) => ((i.kind === 'action' || i.kind === 'checkbox') && i.enabled ? [i.action] : []));
}

describe('tray menu model', () => {
  it('has the menu from the issue, in order, status first and Quit last', () => {
    const labels = trayMenuModel(base).map((i) => (i.kind === 'separator' ? '—' : i.label));
    expect(labels).toEqual(['Voice: idle', '—', 'Join voice', 'Leave voice', 'Push screenshot', '—', 'Open dashboard', 'Notifications paused', 'Start at login', '—', 'Quit']);
  });

  it('offers Join when idle, Leave and screenshot only during a call', () => {
    expect(enabledActions(trayMenuModel(base))).toEqual(['join', 'open-dashboard', 'toggle-notifications', 'toggle-start-at-login', 'quit']);
    expect(enabledActions(trayMenuModel({ ...base, bridge: 'connected' }))).toEqual(['leave', 'push-screenshot', 'open-dashboard', 'toggle-notifications', 'toggle-start-at-login', 'quit']);
    expect(enabledActions(trayMenuModel({ ...base, bridge: 'connecting' }))).toContain('leave');
    expect(enabledActions(trayMenuModel({ ...base, bridge: 'error' }))).toContain('join');
  });

  it('disables everything that needs the sidecar while it is starting or failed', () => {
    for (const sidecar of ['starting', 'failed'] as const) {
      expect(enabledActions(trayMenuModel({ ...base, sidecar }))).toEqual(['toggle-notifications', 'toggle-start-at-login', 'quit']);
    }
    expect(trayMenuModel({ ...base, sidecar: 'failed', problem: 'port 18943 is in use' })[0]).toEqual({ kind: 'status', label: 'Sidecar failed: port 18943 is in use' });
  });

  it('reflects toggles and shows the shortcut on the screenshot item', () => {
    const items = trayMenuModel({ ...base, notificationsPaused: true, startAtLogin: true, startAtLoginSupported: false });
    expect(items.find((i) => i.kind === 'checkbox' && i.action === 'toggle-notifications')).toMatchObject({ checked: true, enabled: true });
    expect(items.find((i) => i.kind === 'checkbox' && i.action === 'toggle-start-at-login')).toMatchObject({ checked: true, enabled: false });
    expect(items.find((i) => i.kind === 'action' && i.action === 'push-screenshot')).toMatchObject({ accelerator: 'CommandOrControl+Shift+F' });
    expect(trayMenuModel({ ...base, shortcut: null }).find((i) => i.kind === 'action' && i.action === 'push-screenshot')).not.toHaveProperty('accelerator');
  });

  it('picks the icon variant and tooltip from the state', () => {
    expect(trayIconFor(base)).toBe('idle');
    expect(trayIconFor({ ...base, bridge: 'connected' })).toBe('connected');
    expect(trayIconFor({ ...base, bridge: 'reconnecting' })).toBe('idle');
    expect(trayIconFor({ ...base, bridge: 'error' })).toBe('error');
    expect(trayIconFor({ ...base, sidecar: 'failed' })).toBe('error');
    expect(trayTooltip({ ...base, bridge: 'error', problem: 'model refused' })).toBe('Live Voice Bridge — Voice: error (model refused) — sidecar :18943');
  });
});
