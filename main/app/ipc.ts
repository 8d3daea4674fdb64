// Main-process side of the IPC contract: one handler per channel (the mapped type makes a missing
// one a compile error), each behind the sender check from window-policy.ts.
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import type { Logger } from 'pino';
import type { IpcChannel, IpcContract } from '../../preload/desktop-api.ts';
import { isTrustedSender } from './window-policy.ts';

export type IpcHandlers = { [C in IpcChannel]: () => Promise<IpcContract[C]['response']> };

export interface IpcOptions {
  handlers: IpcHandlers;
  dashboardWindow: () => BrowserWindow | null;
  sidecarUrl: () => string;
  logger: Logger;
}

export function registerIpcHandlers(options: IpcOptions): () => void {
  const channels = Object.keys(options.handlers) as IpcChannel[];
  for (const channel of channels) {
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent) => {
      const window = options.dashboardWindow();
      const trusted = isTrustedSender(
        {
          frameUrl: event.senderFrame?.url,
          isMainFrame: event.senderFrame !== null && event.senderFrame === event.sender.mainFrame,
          fromDashboardWindow: window !== null && !window.isDestroyed() && window.webContents.id === event.sender.id,
        },
        options.sidecarUrl(),
      );
      if (!trusted) {
        options.logger.warn({ channel }, 'refused IPC from an untrusted sender');
        throw new Error('refused: this page may not use the desktop API');
      }
      return options.handlers[channel]();
    });
  }
  return () => channels.forEach((channel) => ipcMain.removeHandler(channel));
}
