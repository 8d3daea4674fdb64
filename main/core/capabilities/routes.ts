// The sidecar's routes: ONE table, one line per route module, each taking what it needs from the
// capabilities (CoreRoutes). A new route module is one line here (docs/architecture.md, "Where do I
// add a route"); the security layer (Host/Origin checks, token, JSON errors) wraps them all.
import { callExport } from './call-export.ts';
import type { Logger } from 'pino';
import type { HealthReport, RestartOutcome, SidecarEvent } from '../api-types.ts';
import type { TalkControl } from '../bridge/talk-control.ts';
import type { BridgeControl } from '../bridge/types.ts';
import type { Config } from '../config/index.ts';
import type { EventHub } from '../event-hub.ts';
import { moduleLogger } from '../log/logger.ts';
import type { NotesStore } from '../notes/notes-store.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import { searchNotes } from '../notes/notes-search.ts';
import { configToSettingsValues, type SettingsValues } from '../settings/schema.ts';
import type { SettingsStore } from '../settings/store.ts';
import { registerBridgeRoutes } from '../sidecar/routes/bridge.ts';
import { registerDashboardRoutes } from '../sidecar/routes/dashboard.ts';
import { registerEventsRoutes } from '../sidecar/routes/events.ts';
import { registerHealthRoutes } from '../sidecar/routes/health.ts';
import { registerLoginRoutes } from '../sidecar/routes/login.ts';
import { registerMcpRoutes } from '../sidecar/routes/mcp.ts';
import { registerNotesRoutes } from '../sidecar/routes/notes.ts';
import { registerNotesSearchRoutes } from '../sidecar/routes/notes-search.ts';
import { registerNotifyRoutes } from '../sidecar/routes/notify.ts';
import { registerPatienceRoutes, type PatienceControl } from '../sidecar/routes/patience.ts';
import { registerRoomRoutes } from '../sidecar/routes/room.ts';
import { registerSettingsRoutes } from '../sidecar/routes/settings.ts';
import { registerSetupRoutes } from '../sidecar/routes/setup.ts';
import { registerTalkRoutes } from '../sidecar/routes/talk.ts';
import { registerToolRoutes } from '../sidecar/routes/tools.ts';
import type { RouteRegistrar } from '../sidecar/server.ts';
import type { DashboardSessions } from '../sidecar/sessions.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { McpApi } from './mcp.ts';
import type { NotifyApi } from './notify.ts';
import { PACKAGE_VERSION } from './process.ts';

/** What the route modules take from the running capabilities. */
export interface CoreRoutes {
  config: Config;
  logger: Logger;
  token: string;
  missing: readonly string[];
  health: () => HealthReport;
  sessions: DashboardSessions;
  /** The sidecar's own URL, read at request time (known once it listens; tests bind port 0). */
  baseUrl: () => string;
  hub: EventHub;
  snapshot: () => SidecarEvent[];
  control: BridgeControl;
  talk: TalkControl;
  /** The call's patience and each speaker's learnt one. */
  patience: PatienceControl;
  notes: NotesLog;
  archive: NotesStore;
  notify: Pick<NotifyApi, 'notifier' | 'scheduler'>;
  tools: ToolRegistry;
  mcp: Pick<McpApi, 'modelTools' | 'approvals' | 'questions'>;
  settings: {
    store?: SettingsStore;
    environment?: Readonly<Record<string, string | undefined>>;
    restart?: () => void;
    lastRestart?: () => RestartOutcome | null;
    onSaved: (values: SettingsValues) => void;
  };
}

type Route = (app: Parameters<RouteRegistrar>[0], d: CoreRoutes) => void;

/** Every route module of the core, in registration order. */
export const ROUTE_TABLE: readonly Route[] = [
  (app, d) => registerHealthRoutes(app, { health: d.health }),
  (app, d) => registerLoginRoutes(app, { sessions: d.sessions, baseUrl: d.baseUrl }),
  (app, d) => registerEventsRoutes(app, { hub: d.hub, snapshot: d.snapshot }),
  (app, d) => registerBridgeRoutes(app, { bridge: d.control }),
  (app, d) => registerRoomRoutes(app, { bridge: d.control }),
  (app, d) => registerPatienceRoutes(app, { patience: d.patience }),
  (app, d) => registerTalkRoutes(app, { talk: d.talk }),
  (app, d) => registerNotesRoutes(app, { archive: d.archive }),
  (app, d) =>
    registerNotesSearchRoutes(app, {
      search: (q, options) =>
        searchNotes(d.archive.db, q, { ...options, excludeSpeaker: (id) => d.notes.speakerOptedOut(id) }),
      exportCall: (id) => callExport(d.archive, id),
    }),
  (app, d) => registerNotifyRoutes(app, { notifier: d.notify.notifier, scheduler: d.notify.scheduler }),
  (app, d) => registerToolRoutes(app, { registry: d.tools }),
  (app) => registerDashboardRoutes(app, {}),
  (app, d) =>
    registerMcpRoutes(app, {
      token: d.token,
      version: PACKAGE_VERSION,
      hub: d.hub,
      logger: moduleLogger(d.logger, 'mcp'),
      helperTools: () => d.tools.declarations(),
      notes: d.notes,
      currentCallId: () => d.control.status().callId,
      modelTools: d.mcp.modelTools,
      approvals: d.mcp.approvals,
      ownerQuestions: d.mcp.questions,
      askTools: d.config.mcp.askTools,
    }),
  // GET/PUT /settings need a store (conf headless, electron-store in the desktop app).
  (app, { settings: s, config }) =>
    s.store &&
    registerSettingsRoutes(app, {
      store: s.store,
      effective: () => configToSettingsValues(config),
      environment: s.environment,
      canRestart: s.restart !== undefined,
      lastRestart: s.lastRestart,
      onSaved: s.onSaved,
    }),
  (app, d) =>
    registerSetupRoutes(app, {
      store: d.settings.store,
      config: d.config,
      missing: d.missing,
      logger: moduleLogger(d.logger, 'setup'),
      restart: d.settings.restart,
    }),
];

/** The table bound to the running capabilities, as the sidecar registers routes. */
export function coreRoutes(d: CoreRoutes): RouteRegistrar[] {
  return ROUTE_TABLE.map((route) => (app) => route(app, d));
}
