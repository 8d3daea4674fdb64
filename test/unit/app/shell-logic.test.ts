import { describe, expect, it } from 'vitest';
import type { ScheduledNotification } from '../../../main/core/api-types.ts';
import { autostartMethod, linuxAutostartEntry } from '../../../main/app/autostart.ts';
import { captureSizeFor } from '../../../main/app/capture-size.ts';
import { DeliveryWatcher } from '../../../main/app/delivery-watch.ts';
import { applyShortcut, type ShortcutRegistrar } from '../../../main/app/shortcut.ts';
import { SseParser } from '../../../main/app/sse.ts';
import {
  closeAction,
  isAllowedNavigation,
  isTrustedSender,
  shouldNotifyNatively,
} from '../../../main/app/window-policy.ts';

const SIDECAR = 'http://127.0.0.1:18943';

describe('IPC sender check', () => {
  const ok = { frameUrl: `${SIDECAR}/`, isMainFrame: true, fromDashboardWindow: true };
  it('accepts only the main frame of our window showing our sidecar', () => {
    expect(isTrustedSender(ok, SIDECAR)).toBe(true);
    expect(isTrustedSender({ ...ok, isMainFrame: false }, SIDECAR)).toBe(false);
    expect(isTrustedSender({ ...ok, fromDashboardWindow: false }, SIDECAR)).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: 'http://127.0.0.1:18944/' }, SIDECAR)).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: 'http://localhost:18943/' }, SIDECAR)).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: 'file:///etc/passwd' }, SIDECAR)).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: undefined }, SIDECAR)).toBe(false);
  });

  it('allows navigation within our origin only', () => {
    expect(isAllowedNavigation(`${SIDECAR}/login?nonce=x`, SIDECAR)).toBe(true);
    expect(isAllowedNavigation('https://example.com/', SIDECAR)).toBe(false);
    expect(isAllowedNavigation('javascript:alert(1)', SIDECAR)).toBe(false);
  });
});

describe('window and notification manners', () => {
  it('hides to tray, with a notice only the first time', () => {
    expect(closeAction({ quitting: false, shownTrayNotice: false })).toBe('hide-with-notice');
    expect(closeAction({ quitting: false, shownTrayNotice: true })).toBe('hide');
    expect(closeAction({ quitting: true, shownTrayNotice: false })).toBe('close');
  });

  it('notifies natively only when hidden and not paused', () => {
    expect(shouldNotifyNatively({ windowVisible: false, paused: false, alreadyNotified: false })).toBe(true);
    expect(shouldNotifyNatively({ windowVisible: true, paused: false, alreadyNotified: false })).toBe(false);
    expect(shouldNotifyNatively({ windowVisible: false, paused: true, alreadyNotified: false })).toBe(false);
  });

  it('reports each delivery once from the schedule change events', () => {
    const entry = (id: string, state: ScheduledNotification['state']): ScheduledNotification => ({
      id,
      text: id,
      mode: 'dm',
      delay_seconds: 1,
      fire_at_epoch: 1,
      created_at: 0,
      state,
      attempts: 0,
    });
    const watcher = new DeliveryWatcher();
    expect(watcher.observe([entry('a', 'scheduled')])).toEqual([]);
    expect(watcher.observe([entry('a', 'delivering')])).toEqual([]);
    expect(watcher.observe([entry('a', 'delivered')]).map((e) => e.id)).toEqual(['a']);
    expect(watcher.observe([entry('a', 'delivered'), entry('b', 'delivered')]).map((e) => e.id)).toEqual(['b']);
  });
});

describe('global shortcut with rollback', () => {
  function fakeRegistrar(taken: string[]): ShortcutRegistrar & { held: Set<string> } {
    const held = new Set<string>();
    return {
      held,
      register(acc) {
        if (acc.includes('??')) throw new Error('conversion failure');
        if (taken.includes(acc)) return false;
        held.add(acc);
        return true;
      },
      unregister(acc) {
        held.delete(acc);
      },
    };
  }
  const noop = () => undefined;

  it('registers a free accelerator', () => {
    const reg = fakeRegistrar([]);
    expect(applyShortcut(reg, 'Alt+S', null, noop)).toEqual({ active: 'Alt+S' });
    expect([...reg.held]).toEqual(['Alt+S']);
  });

  it('rolls back to the previous accelerator when the new one is taken or invalid', () => {
    const reg = fakeRegistrar(['Ctrl+C']);
    applyShortcut(reg, 'Alt+S', null, noop);
    expect(applyShortcut(reg, 'Ctrl+C', 'Alt+S', noop)).toEqual({
      active: 'Alt+S',
      error: 'Ctrl+C is already used by another application',
    });
    expect([...reg.held]).toEqual(['Alt+S']);
    expect(applyShortcut(reg, 'Ctrl+??', 'Alt+S', noop)).toMatchObject({
      active: 'Alt+S',
      error: expect.stringContaining('not a valid shortcut'),
    });
    expect([...reg.held]).toEqual(['Alt+S']);
  });

  it('reports none active when nothing could be registered, and clears on null', () => {
    const reg = fakeRegistrar(['Ctrl+C']);
    expect(applyShortcut(reg, 'Ctrl+C', null, noop)).toMatchObject({ active: null });
    applyShortcut(reg, 'Alt+S', null, noop);
    expect(applyShortcut(reg, null, 'Alt+S', noop)).toEqual({ active: null });
    expect(reg.held.size).toBe(0);
  });
});

describe('start at login', () => {
  const env = {
    platform: 'linux' as const,
    execPath: '/tmp/.mount_abc/live-voice-bridge',
    configHome: '/home/u/.config',
    isPackaged: true,
  };
  it('uses $APPIMAGE on Linux, not the temporary mount', () => {
    const method = autostartMethod({ ...env, appImage: '/home/u/Apps/Live Voice Bridge.AppImage' });
    expect(method).toMatchObject({ kind: 'xdg', file: '/home/u/.config/autostart/live-voice-bridge.desktop' });
    expect(method.kind === 'xdg' && method.contents).toContain(
      'Exec="/home/u/Apps/Live Voice Bridge.AppImage" --hidden',
    );
  });
  it('uses login items on macOS/Windows and is not offered in a dev run', () => {
    expect(autostartMethod({ ...env, platform: 'darwin' })).toEqual({ kind: 'login-item' });
    expect(autostartMethod({ ...env, isPackaged: false }).kind).toBe('unsupported');
    expect(linuxAutostartEntry('/usr/bin/live-voice-bridge')).toContain('Exec=/usr/bin/live-voice-bridge --hidden\n');
  });
});

describe('sidecar event stream parser', () => {
  it('parses events split across chunks and skips comments and unknown types', () => {
    const parser = new SseParser();
    expect(parser.push(': connected\n\nevent: state\ndata: {"state":"conn')).toEqual([]);
    const events = parser.push(
      'ected","previous":"connecting","ts":1}\n\nevent: bogus\ndata: {}\n\nevent: note\r\ndata: {"id":"n1","ts":2,"kind":"note","text":"hi"}\r\n\r\n',
    );
    expect(events).toEqual([
      { type: 'state', data: { state: 'connected', previous: 'connecting', ts: 1 } },
      { type: 'note', data: { id: 'n1', ts: 2, kind: 'note', text: 'hi' } },
    ]);
  });

  it('passes the talk state on (the tray follows mute and push-to-talk)', () => {
    const talk = { muted: true, ptt: { enabled: false, held: false }, to_model: false };
    expect(new SseParser().push(`event: talk\ndata: ${JSON.stringify(talk)}\n\n`)).toEqual([
      { type: 'talk', data: talk },
    ]);
  });
});

describe('screen capture size', () => {
  it('caps the longest edge and keeps the aspect ratio', () => {
    expect(captureSizeFor({ width: 1920, height: 1080 }, 2)).toEqual({ width: 1920, height: 1080 });
    expect(captureSizeFor({ width: 1280, height: 800 }, 1)).toEqual({ width: 1280, height: 800 });
    expect(captureSizeFor({ width: 1080, height: 2400 }, 1)).toEqual({ width: 864, height: 1920 });
  });
});
