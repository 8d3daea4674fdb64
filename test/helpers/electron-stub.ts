// A recording stand-in for the `electron` module, so the desktop shell's composition root
// (main/app/main.ts) runs in plain Node under vitest where no Electron binary exists (issue 38,
// item 6). It implements only what the shell calls, records every call a test may want to see,
// and never pretends to render: windows record the URL they were asked to load, trays the menu
// they were given. Tests install it with `vi.mock('electron', () => electronStubModule())`.
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';

export interface StubMenuItem {
  label?: string;
  type?: string;
  enabled?: boolean;
  checked?: boolean;
  click?: () => void;
}

export class StubTray extends EventEmitter {
  menu: StubMenuItem[] = [];
  tooltip = '';
  image: unknown;
  destroyed = false;
  constructor(image: unknown) {
    super();
    this.image = image;
    recorder.trays.push(this);
    recorder.changed.emit('tray');
  }
  setContextMenu(menu: { items: StubMenuItem[] }): void {
    this.menu = menu.items;
    recorder.changed.emit('tray');
  }
  setImage(image: unknown): void {
    this.image = image;
  }
  setToolTip(text: string): void {
    this.tooltip = text;
    recorder.changed.emit('tray');
  }
  destroy(): void {
    this.destroyed = true;
    recorder.changed.emit('tray');
  }
  /** The item with this label, as the user would find it in the menu. */
  item(label: string): StubMenuItem | undefined {
    return this.menu.find((i) => i.label === label);
  }
}

let nextContentsId = 1;

export class StubWindow extends EventEmitter {
  readonly options: Record<string, unknown>;
  readonly loadedUrls: string[] = [];
  visible = false;
  destroyed = false;
  readonly webContents = Object.assign(new EventEmitter(), {
    id: nextContentsId++,
    setWindowOpenHandler: (_handler: unknown) => undefined,
    session: {
      setPermissionRequestHandler: (_h: unknown) => undefined,
      setPermissionCheckHandler: (_h: unknown) => undefined,
    },
  });
  constructor(options: Record<string, unknown>) {
    super();
    this.options = options;
    recorder.windows.push(this);
  }
  async loadURL(url: string): Promise<void> {
    this.loadedUrls.push(url);
    recorder.changed.emit('window');
  }
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  focus(): void {}
  restore(): void {}
  isDestroyed(): boolean {
    return this.destroyed;
  }
  isVisible(): boolean {
    return this.visible;
  }
  isMinimized(): boolean {
    return false;
  }
}

class StubNotification {
  static isSupported(): boolean {
    return true;
  }
  readonly options: { title: string; body: string };
  constructor(options: { title: string; body: string }) {
    this.options = options;
  }
  show(): void {
    recorder.notifications.push(this.options);
    recorder.changed.emit('notification');
  }
}

/** Everything the shell did through Electron, in the order it did it. */
export const recorder = {
  appRoot: path.resolve(import.meta.dirname, '../..'),
  paths: new Map<string, string>(),
  app: new EventEmitter(),
  quitCalls: 0,
  exitCodes: [] as number[],
  errorBoxes: [] as { title: string; message: string }[],
  trays: [] as StubTray[],
  windows: [] as StubWindow[],
  notifications: [] as { title: string; body: string }[],
  shortcuts: new Map<string, () => void>(),
  ipcHandlers: new Map<string, (event: unknown) => Promise<unknown>>(),
  /** Fires on every recorded change, so tests wait for events instead of sleeping. */
  changed: new EventEmitter(),
};

/** Resolves when `check` holds, re-checking on each recorded change (and every 50 ms for state outside the stub). */
export function waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const tick = () => {
      const value = check();
      if (value) {
        cleanup();
        resolve(value);
      }
    };
    const poll = setInterval(tick, 50);
    const timer = setTimeout(() => (cleanup(), reject(new Error(`timed out waiting for ${what}`))), timeoutMs);
    const cleanup = () => {
      clearInterval(poll);
      clearTimeout(timer);
      recorder.changed.off('tray', tick).off('window', tick).off('notification', tick).off('app', tick);
    };
    recorder.changed.on('tray', tick).on('window', tick).on('notification', tick).on('app', tick);
    tick();
  });
}

const app = Object.assign(recorder.app, {
  isPackaged: false,
  whenReady: () => Promise.resolve(),
  requestSingleInstanceLock: () => true,
  setAppUserModelId: (_id: string) => undefined,
  getAppPath: () => recorder.appRoot,
  getVersion: () => '0.0.0-stub',
  getPath: (name: string) => {
    const value = recorder.paths.get(name);
    if (!value) throw new Error(`electron stub: app.getPath(${name}) before a test set it`);
    return value;
  },
  setPath: (name: string, value: string) => void recorder.paths.set(name, value),
  setAppLogsPath: () => void recorder.paths.set('logs', path.join(app.getPath('userData'), 'logs')),
  quit: () => {
    recorder.quitCalls++;
    recorder.changed.emit('app');
  },
  exit: (code = 0) => {
    recorder.exitCodes.push(code);
    recorder.changed.emit('app');
  },
  relaunch: () => undefined,
  setLoginItemSettings: (_settings: unknown) => undefined,
});

export function electronStubModule(): Record<string, unknown> {
  const module = {
    app,
    dialog: {
      showErrorBox: (title: string, message: string) => {
        recorder.errorBoxes.push({ title, message });
        recorder.changed.emit('app');
      },
      showMessageBox: async () => ({ response: 2 }),
    },
    globalShortcut: {
      register: (accelerator: string, run: () => void) => (recorder.shortcuts.set(accelerator, run), true),
      isRegistered: (accelerator: string) => recorder.shortcuts.has(accelerator),
      unregister: (accelerator: string) => void recorder.shortcuts.delete(accelerator),
      unregisterAll: () => recorder.shortcuts.clear(),
    },
    Notification: StubNotification,
    shell: { openPath: async (_path: string) => '' },
    Tray: StubTray,
    Menu: { buildFromTemplate: (items: StubMenuItem[]) => ({ items }) },
    nativeImage: {
      createFromPath: (file: string) => ({ file, isEmpty: () => !existsSync(file) }),
      createEmpty: () => ({ file: null, isEmpty: () => true }),
    },
    BrowserWindow: StubWindow,
    ipcMain: Object.assign(new EventEmitter(), {
      handle: (channel: string, handler: (event: unknown) => Promise<unknown>) =>
        void recorder.ipcHandlers.set(channel, handler),
      removeHandler: (channel: string) => void recorder.ipcHandlers.delete(channel),
    }),
    desktopCapturer: { getSources: async () => [] },
    screen: { getPrimaryDisplay: () => ({ size: { width: 1280, height: 800 }, scaleFactor: 1 }) },
    // No OS keyring here: the shell's secret policy then keeps secrets out of the settings file.
    safeStorage: {
      isAsyncEncryptionAvailable: async () => false,
      getSelectedStorageBackend: () => 'basic_text',
      encryptStringAsync: async () => {
        throw new Error('electron stub: no keyring');
      },
      decryptStringAsync: async () => {
        throw new Error('electron stub: no keyring');
      },
    },
    utilityProcess: {
      fork: () => {
        throw new Error('electron stub: utilityProcess is not available');
      },
    },
  };
  return { ...module, default: module };
}
