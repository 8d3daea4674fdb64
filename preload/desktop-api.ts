// The one typed contract between the Electron main process and the preload script: channel names
// (all `lvb:`-prefixed), what each returns, and the API object the dashboard sees as
// `window.liveVoiceBridgeDesktop`. Type-only on purpose: the sandboxed preload cannot import
// modules at run time, so both sides check their channel literals against these types instead.

export type CaptureResult =
  { ok: true; mime: 'image/png'; data: Uint8Array; width: number; height: number } | { ok: false; error: string };

export interface IpcContract {
  'lvb:capture-screenshot': { response: CaptureResult };
  'lvb:app-version': { response: string };
  'lvb:open-logs-folder': { response: { ok: boolean; error?: string } };
}

export type IpcChannel = keyof IpcContract;

/** What the preload exposes to the page. Nothing else of Electron or Node reaches the page. */
export interface DesktopApi {
  /** Capture the primary screen as PNG (asks for consent where the OS requires it). */
  captureScreenshot(): Promise<CaptureResult>;
  appVersion(): Promise<string>;
  openLogsFolder(): Promise<{ ok: boolean; error?: string }>;
}

/** The global name the preload exposes the API under. */
export type DesktopApiGlobal = 'liveVoiceBridgeDesktop';
