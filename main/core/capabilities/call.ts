// The call: the bridge between Discord voice and the live model (or, unconfigured, a stand-in that
// answers every call request with what is missing), and mute / push-to-talk, process-wide. Binds the
// call port for the capabilities started before it; reports the call's half of /health.
import type { Logger } from 'pino';
import type { HealthReport, SidecarEvent } from '../api-types.ts';
import { VoiceCheck } from '../audio/index.ts';
import { Bridge } from '../bridge/bridge.ts';
import { TalkControl } from '../bridge/talk-control.ts';
import type { BridgeControl } from '../bridge/types.ts';
import { UnconfiguredBridge } from '../bridge/unconfigured.ts';
import type { Config } from '../config/index.ts';
import type { EventHub } from '../event-hub.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import { wakeScreener } from '../model/openai/transcription/index.ts';
import type { ProviderSelector } from '../model/select.ts';
import type { NativePieces } from '../native/native-pieces.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import { readPersona } from '../persona.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { UsageMonitor } from '../usage/usage-monitor.ts';
import type { VoiceApi } from './voice.ts';
import type { CallPort } from './call-port.ts';
import type { McpApi } from './mcp.ts';
import type { NotifyApi } from './notify.ts';
import { withMemory } from '../memory/memory-seed.ts';
import type { MemoryApi } from './memory.ts';
import type { LiveSettingsApi } from './settings.ts';
import { CallPatience } from '../bridge/call-patience.ts';
import { SqlitePatienceMemory } from '../bridge/patience-store.ts';
import { MapPatienceMemory } from '../bridge/patience-learner.ts';
import type { OpenedDatabase } from '../store/database.ts';

export interface CallDeps {
  config: Config;
  logger: Logger;
  hub: EventHub;
  notes: NotesLog;
  tools: ToolRegistry;
  native: NativePieces;
  missing: string[];
  voice: VoiceApi;
  model: ProviderSelector | null;
  usage: UsageMonitor | null;
  settings: LiveSettingsApi;
  notify: Pick<NotifyApi, 'dueSoon'>;
  mcp: Pick<McpApi, 'waitingForOwner' | 'heard'>;
  call: CallPort;
  /** The earlier calls' summaries a new call's model starts with. */
  memory?: MemoryApi;
  /** Where each speaker's learnt patience is kept (absent: learnt for the process only). */
  database?: OpenedDatabase;
}

export interface CallApi {
  /** The configured bridge (rooms, auto-join need it), or null. */
  bridge: Bridge | null;
  /** What the sidecar and the shells drive: the bridge, or the unconfigured stand-in. */
  control: BridgeControl;
  talk: TalkControl;
  /** The call's patience and each speaker's learnt one (GET/DELETE /room/patience), with or without a bridge. */
  patience: CallPatience;
  /** The first events a new /events subscriber gets: the call state and the talk state. */
  snapshot(): SidecarEvent[];
}

function buildBridge(d: CallDeps, patience: CallPatience): Bridge | null {
  const { config, logger, voice, model, usage, settings } = d;
  const discord = voice.discord;
  if (!discord || !model) return null;
  const log = moduleLogger(logger, 'core');
  const voiceCheck = new VoiceCheck(
    () => settings.values().sileroVad ?? config.audio.sileroVad,
    log,
    (text) => d.notes.append({ kind: 'note', text }),
  );
  return new Bridge({
    voice: discord,
    model,
    tools: d.tools,
    notes: d.notes,
    hub: d.hub,
    logger: moduleLogger(logger, 'bridge'),
    // Read at each call: a persona file saved in Settings applies at the next call.
    systemInstruction: () =>
      withMemory(readPersona(settings.values().personaFile ?? config.gemini.personaFile, log), d.memory?.seed() ?? ''),
    inputChunkMs: config.audio.inputChunkMs,
    voiceCheck: () => voiceCheck.forCall(),
    // Read at each call: a patience saved in Settings applies at the next call.
    patience,
    turn: () => ({
      patience: settings.values().patience ?? config.audio.patience,
      turnSilenceCapMs: settings.values().turnSilenceCapMs ?? config.audio.turnSilenceCapMs,
    }),
    leaveWhenOwnerLeaves: config.discord.leaveWhenOwnerLeaves,
    startRefusal: (): string | null => usage?.joinRefusal() ?? null,
    wakeRefusal: (): string | null => usage?.joinRefusal() ?? null,
    pendingContext: () => d.notify.dueSoon.text(),
    park: {
      afterS: () => settings.values().parkAfterS ?? config.usage.parkAfterS,
      // An agent waiting on the owner's spoken answer: the question is in flight, like a tool call.
      holds: () => (d.mcp.waitingForOwner() ? "a question waits for the owner's answer" : null),
    },
    room: {
      ownerId: config.discord.ownerId,
      get allowedSpeakers() {
        return voice.allowedSpeakers.ids;
      },
      optedOut: (id) => voice.consentStore.optedOut(id),
    },
    wake: { settings: config.wake, screener: wakeScreener(config, moduleLogger(logger, 'wake')) },
    // A spoken approval of an MCP tool is checked against what the owner was just heard saying.
    onInputTranscript: (text, speaker) => d.mcp.heard(text, speaker),
    // Each join makes (or joins) a login attempt: a failure is never cached.
    ready: async () => {
      await discord.login().catch((err: unknown) => {
        throw new Error(
          `the Discord bot could not log in (${err instanceof Error ? err.message : String(err)}); retrying in the background`,
        );
      });
    },
  });
}

export const callCapability: Capability<CallDeps, CallApi> = {
  name: 'call',
  start(deps) {
    const { config, settings } = deps;
    const patience = new CallPatience({
      memory: deps.database ? new SqlitePatienceMemory(deps.database.db) : new MapPatienceMemory(),
      setting: () => settings.values().patience ?? config.audio.patience,
    });
    const bridge = buildBridge(deps, patience);
    const control: BridgeControl = bridge ?? new UnconfiguredBridge(deps.missing);
    // Mute / push-to-talk: process-wide, applied to the call in progress and to the next one.
    const talk = new TalkControl({
      pttMode: deps.config.audio.pttMode,
      onChange: (state) => {
        bridge?.setUserAudioOpen(state.to_model);
        deps.hub.publish({ type: 'talk', data: state });
      },
    });
    bridge?.setUserAudioOpen(talk.open);
    deps.call.bind(bridge);
    const snapshot = (): SidecarEvent[] => {
      const status = control.status();
      return [
        {
          type: 'state',
          data: {
            state: status.state,
            previous: status.state,
            ts: status.since,
            ...(status.reason ? { reason: status.reason } : {}),
          },
        },
        { type: 'talk', data: talk.state() },
      ];
    };
    return {
      api: { bridge, control, talk, patience, snapshot },
      async stop() {
        await control.stop('shutting down');
        deps.call.bind(null);
      },
      health: () => {
        const status = control.status();
        return {
          report: {
            bridge: {
              state: status.state,
              ...(status.reason ? { reason: status.reason } : {}),
              ...(status.callId ? { call_id: status.callId } : {}),
              since: status.since,
            },
            connections: status.connections,
            audio: { opus: deps.native.opus, input_level: status.levels.input, output_level: status.levels.output },
            metrics: control.metrics() as HealthReport['metrics'],
            dave: status.dave ?? null,
            muted: talk.state().muted,
            talk: talk.state(),
          },
          verdict: { bridge: status, connections: status.connections },
        };
      },
    };
  },
};
