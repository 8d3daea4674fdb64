// Composition root of the core: builds every module from the typed config and wires them to the
// sidecar. Both shells call this: the headless CLI (main/cli.ts) and the Electron main process.
import path from 'node:path';
import type { Logger } from 'pino';
import { VERSION_LABEL, type HealthReport, type RestartOutcome, type SidecarEvent } from './api-types.ts';
import { generateNotificationChime } from './audio/index.ts';
import { faultCounts } from './faults.ts';
import { readPersona } from './persona.ts';
import { Bridge } from './bridge/bridge.ts';
import { UnconfiguredBridge } from './bridge/unconfigured.ts';
import { TalkControl } from './bridge/talk-control.ts';
import { registerTalkRoutes } from './sidecar/routes/talk.ts';
import type { BridgeControl } from './bridge/types.ts';
import type { Config } from './config/index.ts';
import { EventHub } from './event-hub.ts';
import { ensurePrivateDir } from './private-dir.ts';
import { healthVerdict } from './health-verdict.ts';
import { IdleMemoryTrim } from './idle-memory-trim.ts';
import { moduleLogger } from './log/logger.ts';
import { configuredModel, PROVIDER_KEY_VARIABLE, ProviderSelector } from './model/select.ts';
import { NotesArchive } from './notes/notes-archive.ts';
import { NotesLog } from './notes/notes-log.ts';
import { startRetention } from './notes/retention.ts';
import { createDelegateWatcher, type DelegateWatcher } from './notify/delegate.ts';
import { createNotifier } from './notify/dispatcher.ts';
import { scheduleFilePath } from './notify/schedule-store.ts';
import { createScheduler } from './notify/scheduler.ts';
import { startDueSoonReminders } from './notify/due-soon.ts';
import { registerNotifyTools } from './notify/tools.ts';
import { configToSettingsValues, type SettingsValues } from './settings/schema.ts';
import type { SettingsStore } from './settings/store.ts';
import { registerBridgeRoutes } from './sidecar/routes/bridge.ts';
import { registerRoomRoutes } from './sidecar/routes/room.ts';
import { registerNotesRoutes } from './sidecar/routes/notes.ts';
import { registerDashboardRoutes } from './sidecar/routes/dashboard.ts';
import { registerEventsRoutes } from './sidecar/routes/events.ts';
import { registerHealthRoutes } from './sidecar/routes/health.ts';
import { loginUrl, registerLoginRoutes } from './sidecar/routes/login.ts';
import { registerMcpRoutes } from './sidecar/routes/mcp.ts';
import { ownerDecisions } from './mcp/owner-questions.ts';
import { registerNotifyRoutes } from './sidecar/routes/notify.ts';
import { registerSettingsRoutes } from './sidecar/routes/settings.ts';
import { registerSetupRoutes } from './sidecar/routes/setup.ts';
import { registerToolRoutes } from './sidecar/routes/tools.ts';
import { createSidecar, type RouteRegistrar } from './sidecar/server.ts';
import { DashboardSessions } from './sidecar/sessions.ts';
import { ensureSidecarToken } from './sidecar/token.ts';
import { redactText, registerHelperTools } from './tools/helpers/index.ts';
import { ToolRegistry } from './tools/registry.ts';
import { wakeScreener } from './model/openai/transcription/index.ts';
import type { DiscordVoiceAdapter } from './voice/index.ts';
import { loadOpus, type OpusFactory } from './voice/opus.ts';
import { checkNativePieces, logNativePieces } from './native/native-pieces.ts';
import { USAGE_LEDGER_FILE, UsageMonitor } from './usage/usage-monitor.ts';
import { startAutoJoin } from './voice/auto-join.ts';
import { AllowedSpeakers, speakerList } from './voice/allowed-speakers.ts';
import { ConsentStore } from './room/consent-store.ts';
import { startRoom } from './room/wire.ts';

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
  stop(): Promise<void>;
}

/** Everything core.stop() does fits in this; the process exits within 5 s of a signal. */
export const SHUTDOWN_BUDGET_MS = 4000;
/** Quiet time (no sidecar request, no call) after which the idle core returns unused memory. */
const IDLE_TRIM_QUIET_MS = 5_000;

/** True when `work` settled within `ms` (it keeps running otherwise). */
function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  return Promise.race([work.then(() => true), timeUp]).finally(() => clearTimeout(timer));
}

const PACKAGE_VERSION = VERSION_LABEL.replace(/^v/, '');

export async function startCore(options: CoreOptions): Promise<CoreHandle> {
  // A start that fails part-way (the sidecar port taken, a store that will not open) closes what it
  // had opened already: a Discord login retrying in the background, timers, MCP servers, stores. The
  // process may go on, e.g. a restart that falls back to the previous settings (setup/restartable-core.ts).
  const opened: (() => unknown)[] = [];
  try {
    return await openCore(options, opened);
  } catch (err) {
    await closeHalfStarted(opened, moduleLogger(options.logger, 'core'));
    throw err;
  }
}

/** Closes, newest first and within SHUTDOWN_BUDGET_MS, what a failed start had opened. */
async function closeHalfStarted(opened: (() => unknown)[], log: Logger): Promise<void> {
  if (opened.length === 0) return;
  const closing = Promise.allSettled(opened.reverse().map(async (close) => close()));
  if (!(await settlesWithin(closing, SHUTDOWN_BUDGET_MS))) log.warn('start failed, and what it had opened did not close in time');
}

/** startCore's work; `opened` collects a closer for each thing it opens, for a start that fails. */
async function openCore(options: CoreOptions, opened: (() => unknown)[]): Promise<CoreHandle> {
  const { config, logger } = options;
  const log = moduleLogger(logger, 'core');
  const startedAt = Date.now();
  const voiceUsers = config.paths.voiceUsers;
  ensurePrivateDir(voiceUsers);

  const tokenInfo = ensureSidecarToken(voiceUsers, config.sidecar.token, config.sidecar.tokenFile);
  // Chosen and named now, not at the first call: a WASM fallback or a missing piece is never silent.
  const opus = options.opus ?? loadOpus();
  const native = checkNativePieces(opus);
  logNativePieces(native, log);
  const hub = new EventHub();
  const notes = new NotesLog({ dir: path.join(voiceUsers, 'notes'), hub });
  opened.push(() => notes.close());
  const tools = new ToolRegistry();

  // Discord: logs in in the background so the sidecar is up at once; DMs and channel posts work
  // without a call, voice needs the bridge.
  // discord.js and @discordjs/voice take ~0.5 s to load: only when configured (model providers
  // load at the first call, see model/select.ts).
  // Read live by the voice receive path, the room and tool authority (onSettingsSaved changes it).
  const allowedSpeakers = new AllowedSpeakers(config.discord.ownerId, config.discord.allowedSpeakers);
  // Opt-outs (/optout, a reaction on the notice) are remembered across calls; their audio is never decoded.
  const consentStore = new ConsentStore(voiceUsers, (problem) => log.warn(problem));
  allowedSpeakers.exclude((id) => consentStore.optedOut(id));
  const voiceModule = config.discord.botToken && config.discord.ownerId ? await import('./voice/index.ts') : null;
  let discord: DiscordVoiceAdapter | null = null;
  if (voiceModule && config.discord.botToken && config.discord.ownerId) {
    discord = voiceModule.createDiscordVoice({
      token: config.discord.botToken,
      ownerId: config.discord.ownerId,
      allowedSpeakers,
      apiBaseUrl: config.discord.apiBaseUrl,
      guildId: config.discord.guildId,
      channelId: config.discord.voiceChannelId,
      logger: moduleLogger(logger, 'discord'),
      opus,
    });
  }
  // Retried with back-off until it works: Discord unreachable at start-up is not final.
  const client = discord;
  if (client) {
    client.keepLoggingIn();
    opened.push(() => client.destroy());
  }

  // Saved settings as last saved (PUT /settings updates it): the ones that apply live read it.
  let saved: SettingsValues = (await options.settingsStore?.view())?.values ?? {};
  // Allowed speakers apply at once; cleared, they are the environment's list again, else the owner.
  const onSettingsSaved = (values: SettingsValues): void => {
    saved = values;
    allowedSpeakers.replace(values.allowedSpeakers ?? speakerList(options.environment?.DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS ?? options.environment?.PLATFORM_VOICE_LIVE_ALLOWED_SPEAKERS));
    realBridge?.context.changed(); // a new persona or speakers reach the call's model mid-call where it allows (bridge/live-context.ts)
  };

  // The live model is chosen per call (settings may switch it between calls without a restart).
  const providerKey = config.liveProvider === 'gemini' ? config.gemini.apiKey : config.openai.apiKey;
  const model = providerKey
    ? new ProviderSelector({
        config,
        logger: moduleLogger(logger, 'model'),
        overrides: options.settingsStore ? () => options.settingsStore!.configValues() : undefined,
        onConnected: (choice) => notes.append({ kind: 'note', text: `live model: ${choice.provider} ${choice.model}` }),
      })
    : null;

  // Usage and estimated cost per call, and the optional daily cap (docs/usage.md).
  const usage: UsageMonitor | null = model
    ? new UsageMonitor({
        hub,
        // A parked call opens several sessions: its usage is theirs together (bridge/model-link.ts).
        current: () => (realBridge ? { ...model.choice, usage: realBridge.link.usage() } : model.choice),
        callId: (): string | undefined => realBridge?.status().callId,
        callTime: () => realBridge?.link.figures() ?? null,
        prices: config.usage.prices,
        dailyCapUsd: config.usage.dailyCapUsd,
        warnPercent: config.usage.capWarnPercent,
        ledgerFile: path.join(voiceUsers, USAGE_LEDGER_FILE),
        notes,
        say: (text) => realBridge?.say(text, 'usage'),
        parkCall: async (reason) => realBridge?.link.park(reason),
        logger: moduleLogger(logger, 'usage'),
      })
    : null;
  usage?.start();
  opened.push(() => usage?.stop());

  const missing = [
    ...(config.discord.botToken ? [] : ['DISCORD_BOT_TOKEN']),
    ...(config.discord.ownerId ? [] : ['DISCORD_VOICE_LIVE_USER_ID']),
    ...(providerKey ? [] : [PROVIDER_KEY_VARIABLE[config.liveProvider]]),
  ];
  const realBridge =
    discord && model
      ? new Bridge({
          voice: discord,
          model,
          tools,
          notes,
          hub,
          logger: moduleLogger(logger, 'bridge'),
          // Read at each call: a persona file saved in Settings applies at the next call.
          systemInstruction: () => readPersona(saved.personaFile ?? config.gemini.personaFile, log),
          inputChunkMs: config.audio.inputChunkMs,
          leaveWhenOwnerLeaves: config.discord.leaveWhenOwnerLeaves,
          startRefusal: (): string | null => usage?.joinRefusal() ?? null,
          wakeRefusal: (): string | null => usage?.joinRefusal() ?? null,
          pendingContext: () => dueSoon.text(),
          park: {
            afterS: () => saved.parkAfterS ?? config.usage.parkAfterS,
            // An agent waiting on the owner's spoken answer: the question is in flight, like a tool call.
            holds: () => (ownerQuestions.pendingCount > 0 || approvalBroker.pending().length > 0 ? "a question waits for the owner's answer" : null),
          },
          room: {
            ownerId: config.discord.ownerId,
            get allowedSpeakers() {
              return allowedSpeakers.ids;
            },
            optedOut: (id) => consentStore.optedOut(id),
          },
          wake: { settings: config.wake, screener: wakeScreener(config, moduleLogger(logger, 'wake')) },
          // A spoken approval of an MCP tool is checked against what the owner was just heard saying.
          onInputTranscript: (text, speaker) => [mcpModelTools, ownerQuestions].forEach((listener) => listener?.heard(text, speaker)),
          // Each join makes (or joins) a login attempt: a failure is never cached.
          ready: async () => {
            await discord.login().catch((err: unknown) => {
              throw new Error(`the Discord bot could not log in (${err instanceof Error ? err.message : String(err)}); retrying in the background`);
            });
          },
        })
      : null;
  const bridge: BridgeControl = realBridge ?? new UnconfiguredBridge(missing);
  // Mute / push-to-talk: process-wide, applied to the call in progress and to the next one.
  const talk = new TalkControl({
    pttMode: config.audio.pttMode,
    onChange: (state) => {
      realBridge?.setUserAudioOpen(state.to_model);
      hub.publish({ type: 'talk', data: state });
    },
  });
  realBridge?.setUserAudioOpen(talk.open);
  // The recording notice, /optout and /optin, and the owner's slash commands (docs/room.md).
  const room = discord && realBridge && config.discord.ownerId ? startRoom({ store: consentStore, discord, bridge: realBridge, talk, hub, notes, ownerId: config.discord.ownerId, retentionDays: config.notes.retentionDays, captions: config.discord.captions, logger: moduleLogger(logger, 'room') }) : null;
  if (room) opened.push(room.stop);
  const stopAutoJoin = config.discord.autoJoin && discord && realBridge ? startAutoJoin({ voice: discord, bridge: realBridge, hub, notes, logger: moduleLogger(logger, 'auto-join') }) : null;
  if (stopAutoJoin) opened.push(stopAutoJoin);

  const chime = generateNotificationChime();
  const notifier = createNotifier({
    // During a reconnect the text is held by the model session, not refused.
    voice: () => (realBridge && ['connected', 'reconnecting', 'parked'].includes(realBridge.status().state) ? realBridge : null),
    discordText: () => (discord && discord.botUserId ? discord : null),
    discordLogin: discord ? () => discord.login() : undefined,
    discordConfigured: discord !== null,
    ownerId: config.discord.ownerId,
    textChannelId: config.discord.textChannelId,
    webhookUrl: config.notify.webhookAgentNotify,
    throttleSeconds: config.notify.webhookThrottleSeconds,
    playSound: () => realBridge?.playEffect(chime),
    sfxEnabled: () => saved.sfxEnabled ?? config.notify.sfxEnabled,
    logger: moduleLogger(logger, 'notify'),
    notes,
  });
  const scheduler = createScheduler({
    file: scheduleFilePath(config.paths.agentHome),
    notifier,
    logger: moduleLogger(logger, 'scheduler'),
    hub,
    maxPending: config.notify.scheduleMaxPending,
    lateToleranceSeconds: config.notify.lateToleranceSeconds,
    maxLatenessSeconds: config.notify.maxLateSeconds,
  });
  opened.push(() => notifier.webhook.close(), () => scheduler.stop());
  const dueSoon = startDueSoonReminders({ scheduler, hub, logger: moduleLogger(logger, 'scheduler') });
  opened.push(() => dueSoon.stop());
  let delegates: DelegateWatcher | undefined;
  if (config.delegate.command.length > 0) {
    delegates = createDelegateWatcher({
      command: config.delegate.command,
      passEnv: config.delegate.env,
      cwd: config.delegate.cwd ?? config.paths.agentHome,
      logDir: path.join(voiceUsers, 'delegates'),
      notifier,
      logger: moduleLogger(logger, 'delegate'),
      redact: redactText,
    });
    opened.push(() => delegates?.close());
  }
  registerNotifyTools(tools, {
    notifier,
    scheduler,
    delegates,
    // Running a command on this machine: the sidecar and CLI (token holders) may; the model may when
    // nobody but the owner can speak to it, or when the owner was heard in the turn (tool authority).
    canDelegate: (ctx) => ctx.caller !== 'model' || allowedSpeakers.ownerOnly || ctx.heard?.owner === true,
  });
  // Agents' yes/no questions, asked aloud, answered only by the owner or a named approver (docs/mcp.md).
  const { approvals: approvalBroker, questions: ownerQuestions, mayAnswer } = ownerDecisions({ hub, notes, logger: moduleLogger(logger, 'owner-questions'), ownerId: config.discord.ownerId, approvers: config.mcp.approvers, ownerOnlyVoice: () => allowedSpeakers.ownerOnly, speak: (text) => (realBridge ? realBridge.speak(text, { withinMs: 120_000 }) : Promise.resolve({ delivered: false, reason: 'no live call' })) });
  // The MCP client SDK loads only when servers are configured.
  const mcpModelTools =
    config.mcp.servers.length > 0
      ? (await import('./mcp/client/model-tools.ts')).startMcpModelTools({
          servers: config.mcp.servers,
          registry: tools,
          hub,
          notes,
          logger: moduleLogger(logger, 'mcp-client'),
          clientVersion: PACKAGE_VERSION,
          redact: redactText,
          // A late tool result waits for an idle moment in the conversation, up to two minutes.
          deliverToModel: (text) => (realBridge ? realBridge.speak(text, { withinMs: 120_000 }) : Promise.resolve({ delivered: false, reason: 'no live call' })),
          ownerId: config.discord.ownerId,
          ownerOnlyVoice: () => allowedSpeakers.ownerOnly,
          approvals: approvalBroker, ownerQuestions, mayAnswer,
        })
      : null;
  if (mcpModelTools) opened.push(() => mcpModelTools.close());
  // Only the call being recorded (the ring also holds earlier calls; between calls: 409 no_call), or
  // the recorded call a hand-off names by call_id (the dashboard's Hand off after a call ended).
  const notesArchive = new NotesArchive(path.join(voiceUsers, 'notes'));
  registerHelperTools(tools, { currentCall: () => notes.currentCallNotes(500), callNotes: (id) => notesArchive.read(id), agentHome: config.paths.agentHome, notify: (req) => notifier.deliver(req) });

  const health = (): HealthReport => {
    const mem = process.memoryUsage();
    const status = bridge.status();
    const verdict = healthVerdict({
      missing,
      bridge: status,
      connections: status.connections,
      discordBot: { configured: discord !== null, loggedIn: Boolean(discord?.botUserId) },
      opus: native.opus,
      native,
    });
    return {
      ...verdict,
      version: PACKAGE_VERSION,
      uptime_s: Math.round((Date.now() - startedAt) / 100) / 10,
      pid: process.pid,
      node: process.version,
      bridge: { state: status.state, ...(status.reason ? { reason: status.reason } : {}), ...(status.callId ? { call_id: status.callId } : {}), since: status.since },
      connections: status.connections,
      live_model: model ? model.choice : { provider: config.liveProvider, model: configuredModel(config, config.liveProvider), inCall: false },
      audio: { opus: native.opus, input_level: status.levels.input, output_level: status.levels.output },
      metrics: bridge.metrics() as HealthReport['metrics'],
      memory: { rss_mb: Math.round(mem.rss / 1048576), heap_used_mb: Math.round(mem.heapUsed / 1048576) },
      native: { sharp: native.sharp, davey: native.davey },
      faults: { ...faultCounts },
      dave: status.dave ?? null,
      muted: talk.state().muted,
      talk: talk.state(),
      ...(usage ? { usage: usage.report() } : {}),
    };
  };

  const snapshot = (): SidecarEvent[] => {
    const status = bridge.status();
    return [
      { type: 'state', data: { state: status.state, previous: status.state, ts: status.since, ...(status.reason ? { reason: status.reason } : {}) } },
      { type: 'talk', data: talk.state() },
    ];
  };

  // Start-up and request bursts leave garbage and a grown young generation behind: return them once
  // quiet (no request for IDLE_TRIM_QUIET_MS, not in a call), sooner than V8's memory reducer would;
  // opt-in: only in a process started with --expose-gc (core-node-flags.ts). See idle-memory-trim.ts.
  const memoryTrim = new IdleMemoryTrim({
    quietMs: IDLE_TRIM_QUIET_MS,
    mayTrim: () => ['idle', 'stopped', 'error'].includes(bridge.status().state),
    onTrim: (r) => log.debug({ rss_before_mb: Math.round(r.rssBeforeMb), rss_after_mb: Math.round(r.rssAfterMb), ms: Math.round(r.ms) }, 'idle memory trimmed'),
  });
  opened.push(() => memoryTrim.close());
  hub.subscribe((event) => {
    if (event.type === 'state') memoryTrim.poke();
  });
  const extraHosts = config.sidecar.allowRemote ? [`${config.sidecar.host}:${config.sidecar.port}`] : [];
  let baseUrl = '';
  const sessions = options.sessions ?? new DashboardSessions();
  const routes: RouteRegistrar[] = [
    (app) => app.addHook('onResponse', (_request, _reply, done) => {
      memoryTrim.poke();
      done();
    }),
    (app) => registerHealthRoutes(app, { health }),
    (app) => registerLoginRoutes(app, { sessions, baseUrl: () => baseUrl }),
    (app) => registerEventsRoutes(app, { hub, snapshot }),
    (app) => registerBridgeRoutes(app, { bridge }),
    (app) => registerRoomRoutes(app, { bridge }),
    (app) => registerTalkRoutes(app, { talk }),
    (app) => registerNotesRoutes(app, { archive: notesArchive }),
    (app) => registerNotifyRoutes(app, { notifier, scheduler }),
    (app) => registerToolRoutes(app, { registry: tools }),
    (app) => registerDashboardRoutes(app, {}),
    (app) =>
      registerMcpRoutes(app, {
        token: tokenInfo.token,
        version: PACKAGE_VERSION,
        hub,
        logger: moduleLogger(logger, 'mcp'),
        helperTools: () => tools.declarations(),
        notes,
        currentCallId: () => bridge.status().callId,
        modelTools: mcpModelTools,
        approvals: approvalBroker, ownerQuestions, askTools: config.mcp.askTools,
      }),
    ...(options.settingsStore ? [(app: Parameters<RouteRegistrar>[0]) => registerSettingsRoutes(app, { store: options.settingsStore!, effective: () => configToSettingsValues(config), environment: options.environment, canRestart: options.restart !== undefined, lastRestart: options.lastRestart, onSaved: (values) => onSettingsSaved(values) })] : []),
    (app) => registerSetupRoutes(app, { store: options.settingsStore, config, missing, logger: moduleLogger(logger, 'setup'), restart: options.restart }),
    ...(options.extraRoutes ?? []),
  ];
  const sidecar = createSidecar({
    host: config.sidecar.host,
    port: config.sidecar.port,
    token: tokenInfo.token,
    logger: moduleLogger(logger, 'sidecar'),
    extraHosts,
    sessions,
    routes,
  });
  opened.push(() => sidecar.close());
  await sidecar.listen();
  baseUrl = sidecar.url;
  memoryTrim.poke();
  // Reminders that came due while we were down wait (at most 30 s) for the bot's login, so an
  // `auto` one goes by DM rather than falling through to the webhook because Discord is not up yet.
  const bot = discord;
  await scheduler.start(bot ? { ready: () => bot.botUserId !== null } : {});
  const stopRetention = startRetention({
    notesDir: path.join(voiceUsers, 'notes'),
    maxAgeDays: config.notes.retentionDays,
    notesMaxBytes: config.notes.maxMb * 1024 * 1024,
    scheduleFile: scheduleFilePath(config.paths.agentHome),
    delegateLogDir: path.join(voiceUsers, 'delegates'),
    currentNotesFile: () => notes.currentFile,
    pruneDelegates: delegates ? (age) => delegates!.prune(age) : undefined,
    log: moduleLogger(logger, 'retention'),
  });
  if (missing.length) log.warn({ missing }, 'voice calls are disabled until these are configured');

  let stopped = false;
  return {
    sidecarUrl: sidecar.url,
    loginUrl: () => loginUrl(sidecar.url, sessions.createNonce()),
    token: tokenInfo.token,
    tokenFile: tokenInfo.file,
    missing,
    hub,
    bridge,
    async stop() {
      if (stopped) return;
      stopped = true;
      memoryTrim.close();
      // Bounded, whatever a receiver or a child does: the process exits within 5 s of a signal.
      // Calls, scheduled deliveries and delegates wind down together; sends still in flight near
      // the end are aborted (webhook closed) so their outcome is recorded before we go.
      const started = Date.now();
      const left = (): number => Math.max(0, SHUTDOWN_BUDGET_MS - (Date.now() - started));
      const windDown = Promise.allSettled([bridge.stop('shutting down'), scheduler.stop(), delegates?.close(), mcpModelTools?.close()]);
      if (!(await settlesWithin(windDown, left() - 1000))) log.warn('deliveries still in flight at shutdown: aborting them');
      notifier.webhook.close();
      if (!(await settlesWithin(windDown, left() - 500))) log.warn('shutdown: a call, a delivery or a delegate did not finish in time');
      if (!(await settlesWithin(Promise.allSettled([sidecar.close(), discord?.destroy()]), left()))) log.warn('shutdown: the sidecar or Discord did not close in time');
      stopRetention();
      stopAutoJoin?.();
      usage?.stop();
      notes.close();
    },
  };
}
