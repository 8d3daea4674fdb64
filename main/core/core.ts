// Composition root of the core: the capabilities (main/core/capabilities/*) in dependency order, each
// started with what it needs from the ones before it. ONE stop list (Lifecycle): a start that fails at
// step k stops steps k-1..1 newest first, and stop() stops them all the same way, within
// SHUTDOWN_BUDGET_MS. Both shells call this: the headless CLI (main/cli/headless.ts) and the Electron
// main process. The table in docs/architecture.md ("Lifecycle") says what each one opens and reports.
import { assembleHealth } from './capabilities/health.ts';
import { autoJoinCapability, roomCapability } from './capabilities/room.ts';
import { callCapability } from './capabilities/call.ts';
import { CallPort } from './capabilities/call-port.ts';
import { helperToolsCapability } from './capabilities/helper-tools.ts';
import { mcpCapability } from './capabilities/mcp.ts';
import { memoryCapability } from './capabilities/memory.ts';
import { memoryTrimCapability } from './capabilities/memory-trim.ts';
import { modelCapability } from './capabilities/model.ts';
import { notesCapability } from './capabilities/notes.ts';
import { notifyCapability } from './capabilities/notify.ts';
import { processCapability } from './capabilities/process.ts';
import { coreRoutes, type CoreRoutes } from './capabilities/routes.ts';
import { scheduleCapability } from './capabilities/schedule.ts';
import { liveSettingsCapability } from './capabilities/settings.ts';
import { sidecarCapability } from './capabilities/sidecar.ts';
import { storeCapability } from './capabilities/store.ts';
import { usageCapability } from './capabilities/usage.ts';
import { voiceCapability } from './capabilities/voice.ts';
import { SHUTDOWN_BUDGET_MS, type CoreHandle, type CoreOptions } from './core-contract.ts';
import { Lifecycle } from './lifecycle.ts';
import { moduleLogger } from './log/logger.ts';
import { loginUrl } from './sidecar/routes/login.ts';
import { DashboardSessions } from './sidecar/sessions.ts';

export { SHUTDOWN_BUDGET_MS, type CoreHandle, type CoreOptions } from './core-contract.ts';

export async function startCore(options: CoreOptions): Promise<CoreHandle> {
  const log = moduleLogger(options.logger, 'core');
  const life = new Lifecycle({ budgetMs: SHUTDOWN_BUDGET_MS, log });
  try {
    return await startCapabilities(options, life);
  } catch (err) {
    // The process may go on, e.g. a restart that falls back to the previous settings (setup/restartable-core.ts).
    await life.stop();
    throw err;
  }
}

/** The capabilities in dependency order; `life` records each one as it starts. */
async function startCapabilities(options: CoreOptions, life: Lifecycle): Promise<CoreHandle> {
  const { config, logger } = options;
  const base = { config, logger };
  // The call, as the capabilities started before the bridge reach it (why: capabilities/call-port.ts).
  const call = new CallPort();
  const parts = await startCallParts(options, life, call);
  const { proc, hub, tools, missing, database, notes, archive, voice, discord, settings } = parts;
  const { model, memory, usage, notify, mcp } = parts;
  const callApi = await life.start(callCapability, {
    ...base,
    hub,
    notes,
    tools,
    native: proc.native,
    missing,
    voice,
    model,
    usage,
    settings,
    notify,
    mcp,
    call,
    memory,
    database,
  });
  const { bridge, control, talk, patience, snapshot } = callApi;
  await life.start(roomCapability, { ...base, hub, notes, voice, bridge, talk });
  await life.start(autoJoinCapability, { ...base, hub, notes, voice, bridge, talk });
  await life.start(helperToolsCapability, { config, tools, notes, archive, notifier: notify.notifier });
  const memoryTrim = await life.start(memoryTrimCapability, { logger, hub, control });
  const sessions = options.sessions ?? new DashboardSessions();
  const health = () => assembleHealth(life.healthParts());
  const routes = (baseUrl: () => string) => [
    ...coreRoutes({
      ...base,
      token: proc.token.token,
      missing,
      health,
      sessions,
      baseUrl,
      hub,
      snapshot,
      control,
      talk,
      patience,
      notes,
      archive,
      notify,
      tools,
      mcp,
      settings: settingsRoutes(options, settings.saved),
    }),
    ...(options.extraRoutes ?? []),
  ];
  const sidecar = await life.start(sidecarCapability, {
    ...base,
    token: proc.token.token,
    sessions,
    routes,
    onResponse: memoryTrim.poke,
  });
  await life.start(scheduleCapability, { ...base, notes, archive, database, discord, notify });
  if (missing.length)
    moduleLogger(logger, 'core').warn({ missing }, 'voice calls are disabled until these are configured');
  return {
    sidecarUrl: sidecar.url,
    loginUrl: () => loginUrl(sidecar.url, sessions.createNonce()),
    token: proc.token.token,
    tokenFile: proc.token.file,
    missing,
    hub,
    bridge: control,
    stop: () => life.stop(),
  };
}

/**
 * What the call is built on, in dependency order: the process (tools, native pieces, token), the
 * store, the notes, Discord voice, the live settings, the model, memory, usage, notifications, MCP.
 */
async function startCallParts(options: CoreOptions, life: Lifecycle, call: CallPort) {
  const { config, logger, settingsStore, environment } = options;
  const base = { config, logger };
  const proc = await life.start(processCapability, { ...base, opus: options.opus });
  const { hub, tools, missing } = proc;
  const { database } = await life.start(storeCapability, base);
  const { notes, archive } = await life.start(notesCapability, { ...base, hub, database });
  const voice = await life.start(voiceCapability, { ...base, opus: proc.opus });
  // Their words are never written, whatever path a transcript takes (the audio is dropped already).
  notes.excludeSpeakers((id) => voice.consentStore.optedOut(id));
  const { allowedSpeakers, discord } = voice;
  const settings = await life.start(liveSettingsCapability, {
    store: settingsStore,
    environment,
    allowedSpeakers,
    call,
  });
  const { model } = await life.start(modelCapability, { ...base, notes, settingsStore });
  const memory = await life.start(memoryCapability, { ...base, notes, archive, tools });
  const { usage } = await life.start(usageCapability, { ...base, hub, notes, model, call, database });
  const notify = await life.start(notifyCapability, {
    ...base,
    hub,
    notes,
    tools,
    discord,
    allowedSpeakers,
    settings,
    call,
  });
  const mcp = await life.start(mcpCapability, { ...base, hub, notes, tools, allowedSpeakers, call });
  return {
    proc,
    hub,
    tools,
    missing,
    database,
    notes,
    archive,
    voice,
    discord,
    settings,
    model,
    memory,
    usage,
    notify,
    mcp,
  };
}

/** The settings routes save through the settings store and restart the core through the shell's hook. */
function settingsRoutes(options: CoreOptions, onSaved: CoreRoutes['settings']['onSaved']): CoreRoutes['settings'] {
  const { settingsStore: store, environment, restart, lastRestart } = options;
  return { store, environment, restart, lastRestart, onSaved };
}
