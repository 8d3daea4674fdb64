// Sandboxed preload (CommonJS: sandboxed preloads cannot use ESM). It exposes exactly the
// DesktopApi methods; the page never sees ipcRenderer, channel names or Electron objects.
import type * as Electron from 'electron';
import type { DesktopApi, DesktopApiGlobal, IpcChannel, IpcContract } from './desktop-api.ts';

// A sandboxed preload runs as a CommonJS script with a restricted `require`; ESM imports are not available.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { contextBridge, ipcRenderer } = require('electron') as typeof Electron;

function invoke<C extends IpcChannel>(channel: C): Promise<IpcContract[C]['response']> {
  return ipcRenderer.invoke(channel) as Promise<IpcContract[C]['response']>;
}

const api: DesktopApi = {
  captureScreenshot: () => invoke('lvb:capture-screenshot'),
  appVersion: () => invoke('lvb:app-version'),
  openLogsFolder: () => invoke('lvb:open-logs-folder'),
};

const globalName: DesktopApiGlobal = 'liveVoiceBridgeDesktop';
contextBridge.exposeInMainWorld(globalName, api);
