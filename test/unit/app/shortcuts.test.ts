import { describe, expect, it } from 'vitest';
import {
  canonicalAccelerator,
  describeConflicts,
  parseAccelerator,
  resolveShortcuts,
  SHORTCUTS,
  shortcutConflicts,
} from '../../../main/app/shortcuts.ts';

const PLATFORMS = ['linux', 'win32', 'darwin'] as const;

describe('key bindings', () => {
  it('the defaults clash with no common shortcut on any platform, and differ from each other', () => {
    for (const platform of PLATFORMS) {
      for (const spec of SHORTCUTS)
        expect(shortcutConflicts(spec.defaultAccelerator, platform), `${spec.id} on ${platform}`).toEqual([]);
      expect(new Set(SHORTCUTS.map((s) => canonicalAccelerator(s.defaultAccelerator, platform))).size).toBe(
        SHORTCUTS.length,
      );
    }
  });

  it('the old screenshot default is detected as Find in Files in VS Code and JetBrains', () => {
    for (const platform of PLATFORMS) {
      expect(describeConflicts(shortcutConflicts('CommandOrControl+Shift+F', platform))).toBe(
        'clashes with Find in Files (VS Code, JetBrains IDEs)',
      );
    }
    // Spelled differently, same keys: still found (order and aliases do not matter).
    expect(shortcutConflicts('shift+ctrl+f', 'linux').map((c) => c.app)).toEqual(['VS Code', 'JetBrains IDEs']);
    expect(shortcutConflicts('Cmd+Shift+F', 'darwin')).toHaveLength(2);
    // Cmd+Shift+F on Linux is Super+Shift+F, not Ctrl: no clash there.
    expect(shortcutConflicts('Cmd+Shift+F', 'linux')).toEqual([]);
  });

  it('platform-only shortcuts count only there', () => {
    expect(shortcutConflicts('Command+Shift+4', 'darwin').map((c) => c.action)).toEqual(['Screenshot of a region']);
    expect(shortcutConflicts('Super+Shift+S', 'win32').map((c) => c.app)).toEqual(['Windows']);
    expect(shortcutConflicts('Super+Shift+S', 'linux')).toEqual([]);
  });

  it('parses accelerators and refuses what is not one', () => {
    expect(parseAccelerator('CommandOrControl+Alt+Shift+F12', 'darwin')).toEqual({
      modifiers: ['Cmd', 'Alt', 'Shift'],
      key: 'F12',
    });
    expect(parseAccelerator('CommandOrControl+Alt+Shift+F12', 'linux')).toEqual({
      modifiers: ['Ctrl', 'Alt', 'Shift'],
      key: 'F12',
    });
    for (const bad of ['', 'Ctrl+', 'Ctrl+Shift', 'A+B', 'Ctrl++'])
      expect(parseAccelerator(bad, 'linux'), bad).toBeNull();
  });

  it('a variable overrides the saved binding, which overrides the default; a saved retired default is replaced', () => {
    const env = { LVB_MUTE_SHORTCUT: 'F13' };
    const saved = { screenshot: 'CommandOrControl+Shift+F', mute: 'Ctrl+Alt+M', talk: 'Ctrl+Shift+P' };
    const bindings = resolveShortcuts(saved, env, 'linux');
    expect(bindings.map((b) => [b.id, b.accelerator, b.source])).toEqual([
      ['screenshot', 'CommandOrControl+Alt+Shift+F11', 'default'],
      ['mute', 'F13', 'env'],
      ['talk', 'Ctrl+Shift+P', 'setting'],
    ]);
    expect(describeConflicts(bindings[2]!.conflicts)).toBe(
      'clashes with Command Palette (VS Code); New private window (Firefox)',
    );
    expect(resolveShortcuts({ talk: 'Ctrl+' }, {}, 'linux')[2]).toMatchObject({
      invalid: 'Ctrl+ is not a shortcut (write it like Scrolllock)',
    });
  });
});
