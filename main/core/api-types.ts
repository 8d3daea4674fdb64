// JSON shapes the sidecar speaks. The dashboard (renderer/) and CLI clients import these with
// `import type` only, so this file must stay free of runtime code and Node imports.

export const VERSION_LABEL = 'v0.3.5';

/** Every error the sidecar returns, 4xx or 5xx. */
export interface ApiErrorBody {
  error: { code: string; message: string; fields?: Record<string, string> };
}

/**
 * A live model service a call can run on (config: DISCORD_VOICE_LIVE_PROVIDER): one of the names in
 * the provider registry (main/core/providers/index.ts, where the core types it as `ProviderName`).
 * Text on the wire: a page lists what the sidecar offers (`GET /settings` `providers`).
 */
export type LiveProviderName = string;

/** A provider as the page shows it: its name, label, key variable, voices and what its protocol can do. */
export interface ProviderSummary {
  name: LiveProviderName;
  label: string;
  keyVariable: string;
  voices: readonly string[];
  capabilities: {
    inputTranscription: boolean;
    images: boolean;
    instructionUpdates: 'replace' | 'append' | 'next-session';
    interruptionSignal: 'event' | 'inferred';
    billing: 'tokens' | 'active-time';
  };
}

/** Lifecycle of one call (the bridge). `error` carries a reason in the transition event. */
export type BridgeState =
  'idle' | 'connecting' | 'connected' | 'reconnecting' | 'parked' | 'stopping' | 'stopped' | 'error';

export interface BridgeStateEvent {
  state: BridgeState;
  previous: BridgeState;
  /** Epoch seconds with a fractional part. */
  ts: number;
  reason?: string;
}

export const NOTE_KINDS = [
  'input_transcript',
  'output_transcript',
  'note',
  'tool_call',
  'state',
  'say',
  'frame',
  'notification',
] as const;
export type NoteKind = (typeof NOTE_KINDS)[number];

/** One entry of the notes log (`GET /notes`, `/events`, a row of the database's `notes`). */
export interface NoteEvent {
  id: string;
  /** Epoch seconds with a fractional part. */
  ts: number;
  kind: NoteKind;
  /** Machine field: the Discord id(s) (comma-joined when several talked at once), or model/sidecar/…. */
  speaker?: string;
  /** Human field: the speaker's display name(s) when `speaker` holds Discord ids (nickname, then global name). */
  speaker_name?: string;
  text: string;
  callId?: string;
}

export const NOTIFY_MODES = ['voice', 'dm', 'channel', 'webhook', 'auto', 'all'] as const;
export type NotifyMode = (typeof NOTIFY_MODES)[number];
export type DeliveryMode = Exclude<NotifyMode, 'auto' | 'all'>;

export interface NotifyRequest {
  text: string;
  mode?: NotifyMode;
  title?: string;
  source?: string;
  urgent?: boolean;
}

/**
 * Per-mode outcome. `ok` delivered; `unknown` the request went out but no answer came in time (the
 * receiver may have acted on it; never re-sent); the others say why it was not delivered.
 */
export type DeliveryStatus = 'ok' | 'unavailable' | 'error' | 'throttled' | 'skipped' | 'unknown';

export interface DeliveryOutcome {
  status: DeliveryStatus;
  detail?: string;
  message_id?: string;
  /** `results.voice` only (spec field): true when the text was handed to the model to speak. */
  queued?: boolean;
  /** voice, asked by the live model itself: the text for it to say now, in this turn (not queued behind its own turn). */
  say_now?: string;
  /** voice: the id of its spoken outcome (`GET /say/{id}`), once it was handed to the call. */
  say_id?: string;
}

export interface NotifyResult {
  /** Stable notification id (webhook `notification_id` / `Idempotency-Key`; the schedule id for reminders). */
  id: string;
  /**
   * `ok`: delivered (for `all`: to every configured destination). `partial` (`all` only): some
   * destinations delivered, some did not — a mode among the rest may be `unknown`. `unknown`: none is
   * known to have delivered but at least one send went out with no answer, so it may have been
   * delivered: do not send it again. `error`: nothing was delivered and nothing may have been.
   */
  status: 'ok' | 'partial' | 'unknown' | 'error';
  /** The mode that delivered (auto, voice, or a single mode); absent when nothing did, and for `all`. */
  channel?: DeliveryMode;
  /** mode `all` only: every mode that delivered. */
  channels?: DeliveryMode[];
  results: Partial<Record<DeliveryMode, DeliveryOutcome>>;
  notified_at: number;
}

export const SCHEDULE_STATES = ['scheduled', 'delivering', 'delivered', 'failed', 'cancelled', 'expired'] as const;
/** `expired`: fired later than the maximum lateness (default 24 h), so it was not delivered. */
export type ScheduleState = (typeof SCHEDULE_STATES)[number];

export interface ScheduledNotification {
  id: string;
  text: string;
  mode: NotifyMode;
  title?: string;
  source?: string;
  delay_seconds: number;
  fire_at_epoch: number;
  created_at: number;
  state: ScheduleState;
  attempts: number;
  last_error?: string;
  delivered_at?: number;
  /** Seconds past fire_at_epoch at which it was delivered, when later than the tolerance. */
  late_by_seconds?: number;
  /** Repeating reminders: the rule; the series' next occurrence is its `scheduled` entry. */
  repeat?: ScheduleRepeat;
}

export interface ScheduleRepeat {
  /** `daily`, `weekdays` or the cron expression, as given. */
  rule: string;
  /** The 5-field cron pattern the rule resolved to. */
  cron: string;
  /** IANA timezone the rule is read in. */
  timezone: string;
  /** Id of the first occurrence; every occurrence of the series carries it. */
  series: string;
}

export type ConnectionState = 'disconnected' | 'connecting' | 'connected' | 'reconnecting' | 'error';

export interface LatencySummary {
  count: number;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
}

export interface LevelReading {
  rms: number;
  peak: number;
}

/** Which Opus codec calls use and why (`impl: "wasm"` is the slow fallback; `reason` then holds the loader's error). */
export interface OpusReport {
  impl: 'native' | 'wasm';
  library: string;
  reason: string;
}

/** A native piece other than Opus: whether it is there, and what is missing without it. */
export interface NativePieceReport {
  available: boolean;
  reason: string;
}

/** The call's DAVE (Discord end-to-end encryption) state, in /health and on the dashboard. */
export interface DaveStatus {
  /** Negotiated DAVE protocol version (1 = E2EE, 0 = none or downgraded); null when not in a call. */
  protocol_version: number | null;
  /** Audio is end-to-end encrypted right now (MLS group ready at v1). */
  e2ee: boolean;
  /** Our audio may be sent (E2EE ready, or the call runs without E2EE); false while the group forms. */
  ready: boolean;
  epoch: number | null;
  /** The voice privacy code Discord shows users to compare (same for every member of the call). */
  privacy_code: string | null;
  last_transition_id: number | null;
  /** DAVE transitions executed in this call (joins, leaves, re-keys, up/downgrades). */
  transitions: number;
  /** Packets from other members that could not be decrypted. */
  decrypt_failures: number;
  /**
   * E2EE frames from other members that arrived while the bot could not decrypt yet (joining their
   * group, or rebuilding it): dropped like lost packets, never decoded into noise.
   */
  undecrypted_frames: number;
  /** DAVE sessions rebuilt by the bridge after a run of decrypt failures. */
  rebuilds: number;
  /** Recoveries completed (library re-key, bridge rebuild or rejoin followed by a working group). */
  recoveries: number;
  /** Voice rejoins made because DAVE could not recover otherwise (at most 3 a minute). */
  rejoins: number;
  /** Per allowed speaker: decrypt ratio, epoch, deafness and the recovery steps taken (voice/speaker-health.ts). */
  speakers?: DaveSpeakerHealth[];
}

/** One speaker's E2EE receive health in /health `dave.speakers`. */
export interface DaveSpeakerHealth {
  user_id: string;
  /** Packets that arrived from them (before decryption). */
  packets: number;
  /** Frames that reached the decoder (decrypted, or never encrypted like the Opus silence frame). */
  decoded: number;
  /** decoded / packets (1 before any packet). */
  decrypt_ratio: number;
  /** Their packets arrive and nothing of theirs decrypts, right now (the dashboard warns). */
  deaf: boolean;
  /** The current deaf stretch (0 when heard) and the longest of the call, in ms. */
  deaf_ms: number;
  max_deaf_ms: number;
  /** The DAVE epoch of the last frame of theirs that was heard. */
  epoch: number | null;
  /** Their last change between heard and deaf, with the recovery step that ended a deaf stretch. */
  last_transition: { to: 'deaf' | 'heard'; at: string; step: 'resubscribe' | 'rebuild' | 'rejoin' | null } | null;
  /** Recovery steps taken for them: resubscribe → rebuild the DAVE session → rejoin. */
  recoveries: { resubscribe: number; rebuild: number; rejoin: number };
}

/** `ok`: everything configured works; `degraded`: runs, but something is missing or down; `error`: a call failed for good. */
export type HealthStatus = 'ok' | 'degraded' | 'error';

export interface HealthReport {
  status: HealthStatus;
  /** Why the status is not `ok` (empty when it is). */
  reasons: string[];
  version: string;
  uptime_s: number;
  pid: number;
  node: string;
  bridge: {
    state: BridgeState;
    reason?: string;
    call_id?: string;
    since: number;
  };
  /** The live call's connections: the Discord voice connection and the model session. */
  connections: {
    discord: ConnectionState;
    model: ConnectionState;
  };
  /** The Discord bot (its gateway login), which stays logged in between calls. */
  discord_bot?: { configured: boolean; logged_in: boolean };
  /** Which live model carries the call (or the next one): provider and model id. */
  live_model?: {
    provider: string;
    model: string;
    inCall: boolean;
    usage?: { audioSeconds?: number; billedMinutes?: number; totalTokens?: number; tokens?: TokenCounts };
  };
  audio: {
    /** Known from start-up, before any call. */
    opus: OpusReport;
    input_level?: LevelReading;
    output_level?: LevelReading;
  };
  metrics: Record<string, number | LatencySummary>;
  memory: { rss_mb: number; heap_used_mb: number };
  /** What keeps the core's event loop alive, counted by kind (`process.getActiveResourcesInfo()`, read per request). */
  diagnostics?: { active_resources: Record<string, number> };
  /** sharp (screen frames) and davey (DAVE end-to-end encrypted voice), checked at start-up. */
  native: { sharp: NativePieceReport; davey: NativePieceReport };
  /** What the network threw at the process and it survived, since start (main/core/faults.ts). */
  faults?: { malformed_model_messages: number; unhandled_rejections: number; uncaught_exceptions: number };
  /** Discord E2EE (DAVE) state of the current call; null when not in a call. */
  dave?: DaveStatus | null;
  /** Tokens and the ESTIMATED cost of the current (or last) call and of today, with the daily cap. */
  usage?: UsageReport;
  /** Mute: true while the users' voices do not reach the model (set with POST /mute). */
  muted?: boolean;
  /** Push-to-talk mode and key (POST /ptt); `to_model` says whether voices reach the model now. */
  talk?: TalkState;
}

/** Mute and push-to-talk (`/health` `talk`, the `talk` event, POST /mute and /ptt answers). */
export interface TalkState {
  muted: boolean;
  ptt: { enabled: boolean; held: boolean };
  /** The users' audio reaches the model now: not muted, and (in push-to-talk mode) the key is held. */
  to_model: boolean;
}

/** Tokens by direction and modality, as the provider reported them. */
export interface TokenCounts {
  input: { audio: number; text: number; image: number };
  output: { audio: number; text: number };
}

export interface UsageReport {
  /** The current call, else the last one since start; null before any call. */
  call: {
    call_id?: string;
    provider: string;
    live: boolean;
    tokens: TokenCounts;
    total_tokens: number;
    /** GPT-Live: minutes billed so far. */
    billed_minutes?: number;
    /** Estimated at the configured prices (USD). */
    cost_usd: number;
    /** Usage with no configured price: the estimate is low by their cost. */
    unpriced: string[];
    /** The cost in words: "≈ $0.12", or "no price set" when nothing used has a price (never $0.00). */
    cost_text?: string;
    /** Seconds a model session was open in this call (parked time excluded), next to the seconds of speech sent to it. */
    connected_seconds?: number;
    speech_seconds?: number;
  } | null;
  today: {
    /** Local date, YYYY-MM-DD. */
    day: string;
    cost_usd: number;
    /** The daily cap in USD; null when none is set. */
    cap_usd: number | null;
    /** `warned`: past the warning threshold; `reached`: the call is parked and new joins are refused until tomorrow. */
    state: 'ok' | 'warned' | 'reached';
    /** Today's calls: seconds a model session was open, and seconds of speech sent to it. */
    connected_seconds?: number;
    speech_seconds?: number;
  };
  /** When the built-in default prices were read (configured prices override them). */
  prices_as_of: string;
}

/** Server-sent events on `GET /events`: `event:` is the `type`, `data:` the JSON of `data`. */
export type SidecarEvent =
  | { type: 'state'; data: BridgeStateEvent }
  | { type: 'note'; data: NoteEvent }
  | { type: 'metrics'; data: HealthReport['metrics'] }
  | { type: 'levels'; data: { input: LevelReading; output: LevelReading; speaking: string[] } }
  | { type: 'schedule'; data: { changed: ScheduledNotification[]; reloaded?: boolean } }
  | { type: 'mcp_approval'; data: McpApprovalView }
  | { type: 'mcp_server'; data: McpServerReportView }
  | { type: 'talk'; data: TalkState }
  | { type: 'say'; data: SayOutcome };

/** Which request a spoken-text id belongs to: `/say`, `/announce`, `/ask`, or a voice notification. */
export type SayVerb = 'say' | 'announce' | 'ask' | 'notify';

/**
 * What became of a request to speak (docs/sidecar.md, "GET /say/{id}"): `spoken` once the model's
 * reply to it was played out to Discord whole; `cut` when the reply stopped part-way (`spoken_text`
 * holds only what was heard, `by` who cut it); `dropped` when it was never spoken (`reason` says why:
 * the call ended, the model did not answer, …); `waiting` until then (`reason`: what it waits for).
 */
export type SayOutcomeKind = 'spoken' | 'cut' | 'dropped' | 'waiting';

/** `GET /say/{id}`, the `say` event on `/events`. */
export interface SayOutcome {
  id: string;
  verb: SayVerb;
  outcome: SayOutcomeKind;
  /** What the call heard of the reply (the model's words): the whole reply when spoken, the heard part when cut; null otherwise. */
  spoken_text: string | null;
  /** Who cut the reply off (a person's display name, or "Stop talking"); null unless `cut` by someone. */
  by: string | null;
  /** In words: what it waits for, why it was cut or dropped; null once spoken. */
  reason: string | null;
  /** The text that was sent, and who sent it (`source`, e.g. `cli`). */
  text: string;
  source: string;
  /** Epoch seconds: when the request came, and when its outcome was settled (null while waiting). */
  created_at: number;
  settled_at: number | null;
}

/** An MCP tool call waiting for (or decided by) the owner: `GET /mcp/approvals`, `mcp_approval` events. */
export interface McpApprovalView {
  id: string;
  /** The model-facing tool name, e.g. `mcp_memory_create_entities`. */
  tool: string;
  server: string;
  /** The arguments as JSON, redacted and cut to 500 characters (what the owner approves). */
  args: string;
  status: 'pending' | 'approved' | 'refused' | 'expired';
  decided_by?: 'voice' | 'dashboard';
  created_at: number;
  expires_at: number;
  decided_at?: number;
}

/** One configured MCP server as `GET /mcp/servers` and `mcp_server` events report it. */
export interface McpServerReportView {
  name: string;
  transport: 'stdio' | 'http';
  state: 'starting' | 'ready' | 'restarting' | 'stopped';
  tools: number;
  restarts: number;
  /** The MCP revision spoken with the server once ready: `2026-07-28`, or a 2025-era one. */
  protocol_version?: string;
  last_error?: string;
  next_attempt_at?: number;
}

/** One person of the call's room (`GET /room`): who is in it, who is speaking, who may do what. */
export interface RoomPersonView {
  id: string;
  /** Discord display name (server nickname, then global name, then username). */
  name: string;
  /** owner; speaker (an allowed speaker: heard by the model); listener (in the channel, not heard). */
  role: 'owner' | 'speaker' | 'listener';
  in_channel: boolean;
  speaking: boolean;
  /** What this person may make the model do by voice, in words. */
  may: string;
  /** They opted out (`/optout` or a reaction on the notice): their audio is dropped before the model. */
  opted_out?: boolean;
  /** How long a pause of theirs may last before the service may end their turn (docs/room.md "Patience per speaker"). */
  patience?: SpeakerPatienceView;
}

/** One speaker's patience: the call's, or longer where the learner lengthened it after cut-offs. */
export interface SpeakerPatienceView {
  speaker_id: string;
  /** Their display name (now, or when last heard). */
  name: string;
  /** The silence window the service gets while they talk (ms). */
  window_ms: number;
  /** Longer than the call's patience because they were cut off (the learner's, remembered across calls). */
  learnt: boolean;
  cutoffs: number;
  /** Epoch seconds the learner last changed it; null for someone it never moved. */
  updated_at: number | null;
}

/** GET /room/patience (and RoomView.patience): the setting, the call's own, and each remembered speaker. */
export interface PatienceView {
  /** The saved setting: a level (quick, natural, patient) or ms. */
  setting: 'quick' | 'natural' | 'patient' | number;
  /** The patience of the call in progress (its own from POST /join `patience`, else the setting at its start), or null between calls. */
  call: 'quick' | 'natural' | 'patient' | number | null;
  /** The window of the call's patience (the setting's when the call has none), ms. */
  base_ms: number;
  /** The window the service has now: the longest of the current turn's speakers, ms. */
  current_ms: number;
  /** Everyone the learner moved, newest change first. */
  speakers: SpeakerPatienceView[];
}

export interface RoomView {
  people: RoomPersonView[];
  /** Tools (or forms of them) only the owner's voice may trigger. */
  owner_only: string[];
  /** The wake-name gate: whether audio reaches the model only after a wake name, and why. */
  wake: WakeView;
  /** Patience: the call's and each speaker's (absent where there is no voice platform). */
  patience?: PatienceView;
}

export interface WakeView {
  on: boolean;
  /** Why it is on or off, in words ("auto: 3 people in the call"). */
  reason: string;
  /** The wake names, normalised (lower case, no punctuation). */
  names: string[];
  follow_up_ms: number;
  /** The screening stream: off (gate off), connecting, ready, or unavailable (while not ready the gate stays closed: only the follow-up window passes). */
  screening: 'off' | 'connecting' | 'ready' | 'unavailable';
  /** Utterances of this call screened, let through, kept from the model, and passed in a follow-up window. */
  screened: number;
  accepted: number;
  dropped: number;
  followUps: number;
}

/** How the last "Restart now" ended (GET /settings `lastRestart`; null before the first). */
export interface RestartOutcome {
  /** ISO time it ended. */
  at: string;
  /** The saved settings run now; false: they did not take and `message` says why and what runs. */
  applied: boolean;
  message: string;
}
