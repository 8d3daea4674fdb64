// The dashboard window: sandboxed, context-isolated, no Node; it may only show our own sidecar.
// New windows are refused, navigation away is refused, and permission prompts are answered "no"
// except clipboard writes (the Copy buttons) from our own origin.
import { BrowserWindow, type WebContents } from 'electron';
import type { Logger } from 'pino';
import { isAllowedNavigation, originOf } from './window-policy.ts';

export interface DashboardWindowOptions {
  preloadPath: string;
  iconPath: string;
  sidecarUrl: string;
  logger: Logger;
}

export function createDashboardWindow(options: DashboardWindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    width: 1120,
    height: 780,
    minWidth: 800,
    minHeight: 600,
    show: false,
    title: 'Live Voice Bridge',
    icon: options.iconPath,
    backgroundColor: '#0f1419',
    autoHideMenuBar: true,
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
      spellcheck: false,
      autoplayPolicy: 'user-gesture-required',
    },
  });
  hardenContents(window.webContents, options);
  window.once('ready-to-show', () => window.show());
  return window;
}

function hardenContents(contents: WebContents, options: DashboardWindowOptions): void {
  contents.setWindowOpenHandler(({ url }) => {
    options.logger.warn({ origin: originOf(url) }, 'refused window.open');
    return { action: 'deny' };
  });
  const guard = (event: { preventDefault(): void }, url: string) => {
    if (isAllowedNavigation(url, options.sidecarUrl)) return;
    event.preventDefault();
    options.logger.warn({ origin: originOf(url) }, 'refused navigation away from the dashboard');
  };
  contents.on('will-navigate', (event) => guard(event, event.url));
  contents.on('will-redirect', (event) => guard(event, event.url));
  contents.on('will-attach-webview', (event) => event.preventDefault());
  const ours = originOf(options.sidecarUrl);
  contents.session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(permission === 'clipboard-sanitized-write' && originOf(details.requestingUrl) === ours);
  });
  contents.session.setPermissionCheckHandler(
    (_contents, permission, requestingOrigin) =>
      permission === 'clipboard-sanitized-write' && requestingOrigin === ours,
  );
}
