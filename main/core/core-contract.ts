// What a shell gives the core and gets back (the headless CLI, the Electron main process, the
// in-process restart in setup/restartable-core.ts). Types only, apart from the shutdown budget, so a
// module below the composition root can name a core without importing core.ts.
import type { Logger } from 'pino';
import type { RestartOutcome } from './api-types.ts';
import type { BridgeControl } from './bridge/types.ts';
import type { Config } from './config/index.ts';
import type { EventHub } from './event-hub.ts';
import type { SettingsStore } from './settings/store.ts';
import type { RouteRegistrar } from './sidecar/server.ts';
import type { DashboardSessions } from './sidecar/sessions.ts';
import type { OpusFactory } from './voice/opus.ts';

export interface CoreOptions {
  config: Config;
  logger: Logger;
  /** Settings behind GET/PUT /settings: conf in headless mode, electron-store in the desktop app. */
  settingsStore?: SettingsStore;
  /** The environment the config was loaded from: the settings page says which saved setting overrides which variable. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Extra sidecar routes from the shell. */
  extraRoutes?: RouteRegistrar[];
  /** The Opus codec calls use; default: the native addon when it loads, else WASM (reported either way). */
  opus?: OpusFactory;
  /** Restarts the core from the page ("Restart now", POST /restart); absent when the shell cannot. */
  restart?: () => void;
  /** How the last restart ended (kept by the shell across cores; shown by GET /settings). */
  lastRestart?: () => RestartOutcome | null;
  /** Dashboard sign-ins to keep across an in-process restart (default: a fresh set). */
  sessions?: DashboardSessions;
}

export interface CoreHandle {
  sidecarUrl: string;
  /** A fresh one-time dashboard login URL each call. */
  loginUrl(): string;
  token: string;
  tokenFile: string;
  hub: EventHub;
  bridge: BridgeControl;
  /** Variables a voice call still needs (empty when configured); the headless shell prints them. */
  missing: readonly string[];
  /** Stops every capability, newest first, within SHUTDOWN_BUDGET_MS; a second call waits for the first. */
  stop(): Promise<void>;
}

/** Everything core.stop() does fits in this; the process exits within 5 s of a signal. */
export const SHUTDOWN_BUDGET_MS = 4000;
