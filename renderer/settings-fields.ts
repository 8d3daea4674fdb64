// The settings panel's catalogue: every field and secret it shows, its label, kind, hint and group,
// and the words for a secret's state. Apart from settings-panel.ts (the form's behaviour: render,
// save, restart) so that adding or rewording a setting touches this list alone.
import type { SecretKey, SecretState, SettingKey, SettingsValues } from '../main/core/sidecar-client/wire-types.ts';
import type { SettingsResponse } from './api.ts';

type FieldType = 'text' | 'number' | 'list' | 'bool' | 'choice' | 'patience';
/** The groups, in order: what a person looks for first comes first. */
export const GROUPS = ['Call and model', 'Turns and quiet', 'Discord', 'Cost', 'Storage and limits'] as const;
type Group = (typeof GROUPS)[number];
/** What a provider cannot do, in words, next to its name in the drop-down (from its declared capabilities). */
export function providerChoiceLabel(p: SettingsResponse['providers'][number]): string {
  const lacks = [
    p.capabilities.images ? '' : 'no images',
    p.capabilities.instructionUpdates === 'replace' ? '' : 'persona changes from the next call',
  ].filter(Boolean);
  return lacks.length ? `${p.label} (${lacks.join('; ')})` : p.label;
}
export const GROUP_OF: Partial<Record<SettingKey, Group>> = {
  ownerId: 'Discord',
  allowedSpeakers: 'Discord',
  guildId: 'Discord',
  voiceChannelId: 'Discord',
  textChannelId: 'Discord',
  autoJoin: 'Discord',
  dailyCapUsd: 'Cost',
  dailyCapWarnPercent: 'Cost',
  usagePrices: 'Cost',
  sidecarPort: 'Storage and limits',
  notesRetentionDays: 'Storage and limits',
  notesMaxMb: 'Storage and limits',
  scheduleMaxPending: 'Storage and limits',
  // When a turn ends and when a quiet call parks: the three settings that decide how the call waits.
  patience: 'Turns and quiet',
  turnSilenceCapMs: 'Turns and quiet',
  parkAfterS: 'Turns and quiet',
};
export const FIELDS: { key: SettingKey; label: string; type: FieldType; hint?: string }[] = [
  {
    key: 'liveProvider',
    label: 'Live model provider',
    type: 'choice',
    hint: 'Takes effect at the next call, no restart.',
  },
  { key: 'model', label: 'Model (Gemini)', type: 'text' },
  {
    key: 'voice',
    label: 'Voice',
    type: 'text',
    hint: 'A prebuilt voice of the provider (the list offers them). Applies at the next call.',
  },
  {
    key: 'personaFile',
    label: 'Persona file',
    type: 'text',
    hint: 'Path of a text file with the system instruction. Read again at each call.',
  },
  {
    key: 'ownerId',
    label: 'Owner user id',
    type: 'text',
    hint: 'You (your Discord account); the bot follows you into voice.',
  },
  {
    key: 'allowedSpeakers',
    label: 'Allowed speakers',
    type: 'list',
    hint: 'Comma-separated user ids; default: the owner only.',
  },
  { key: 'guildId', label: 'Guild id', type: 'text' },
  {
    key: 'voiceChannelId',
    label: 'Voice channel id',
    type: 'text',
    hint: 'Join this channel instead of following the owner.',
  },
  { key: 'textChannelId', label: 'Text channel id', type: 'text', hint: 'Where “channel” notifications go.' },
  {
    key: 'sidecarPort',
    label: 'Sidecar port',
    type: 'number',
    hint: 'After the restart the dashboard moves to the new port: open it from the tray or `live-voice-bridge dashboard`.',
  },
  { key: 'sfxEnabled', label: 'Notification sound in the call', type: 'bool' },
  {
    key: 'pttMode',
    label: 'Start in push-to-talk mode',
    type: 'bool',
    hint: 'Voices reach the model only while you hold the talk key: Scroll Lock in the desktop app (one key; no Scroll Lock key, e.g. on a Mac? set LVB_TALK_KEY or talkKey to another, such as F13), or “Hold to talk” in the call panel. The call panel and the tray switch the mode at any time.',
  },
  {
    key: 'notesRetentionDays',
    label: 'Keep call notes (days)',
    type: 'number',
    hint: 'Older notes are deleted at start-up and daily. Default 90.',
  },
  {
    key: 'notesMaxMb',
    label: 'Call notes size limit (MB)',
    type: 'number',
    hint: 'Oldest calls are deleted beyond this. Default 500.',
  },
  {
    key: 'scheduleMaxPending',
    label: 'Most pending reminders',
    type: 'number',
    hint: 'Beyond this, new reminders are refused. Default 10,000.',
  },
  {
    key: 'autoJoin',
    label: 'Join when I enter a voice channel',
    type: 'bool',
    hint: 'The bot follows you in; it leaves when you leave (if “leave when the owner leaves” is on).',
  },
  {
    key: 'dailyCapUsd',
    label: 'Daily cost cap (USD, estimated)',
    type: 'number',
    hint: 'Warns near it, parks the model at it (the call stays), refuses calls until tomorrow. Empty: no cap.',
  },
  { key: 'dailyCapWarnPercent', label: 'Warn at (% of the cap)', type: 'number', hint: 'Default 80.' },
  {
    key: 'patience',
    label: 'Patience (how long a pause may last)',
    type: 'patience',
    hint: 'Before the model service may take your pause as the end of your turn: quick (0.5 s, the old behaviour), natural (0.8 s, default), patient (1.4 s), or milliseconds (200–5000). Each person who gets cut off mid-thought gets more, learnt per speaker (the Room panel shows it). Applies at the next call.',
  },
  {
    key: 'turnSilenceCapMs',
    label: 'Longest silence of a turn (ms)',
    type: 'number',
    hint: 'The bridge ends a turn the service has not ended after this much silence, so a quiet room is not billed. Default 3000; never less than the service’s own longest wait at your patience plus 1 s.',
  },
  {
    key: 'parkAfterS',
    label: 'Park the model after quiet (seconds)',
    type: 'number',
    hint: 'Closes the model connection while the room is quiet; speech, /say or a reminder wakes it. 0: never. Default 60.',
  },
  {
    key: 'usagePrices',
    label: 'Prices for the cost estimate (JSON)',
    type: 'text',
    hint: 'USD per 1M tokens by provider, e.g. {"<provider>":{"output_audio":12}}. Defaults are list prices as last read — configure your own.',
  },
];
/** Fields holding Discord ids: shown with the names the bot sees. */
export const ID_FIELDS: readonly SettingKey[] = [
  'ownerId',
  'allowedSpeakers',
  'guildId',
  'voiceChannelId',
  'textChannelId',
];

export const SECRETS: { key: SecretKey; label: string; type: 'password' | 'url' }[] = [
  { key: 'discordBotToken', label: 'Discord bot token', type: 'password' },
  { key: 'geminiApiKey', label: 'Gemini API key', type: 'password' },
  { key: 'openaiApiKey', label: 'OpenAI API key', type: 'password' },
  { key: 'webhookUrl', label: 'Webhook URL', type: 'password' },
  // A JSON list (docs/mcp.md); a secret because server headers and env may carry credentials.
  { key: 'mcpServers', label: 'MCP servers for the model (JSON list, applies at restart)', type: 'password' },
];
export const SECRET_WORDS: Record<SecretState, string> = {
  stored: 'Stored. Type to replace.',
  environment: 'Set by the environment.',
  unset: 'Not set.',
  unreadable: 'Stored, but the OS keyring changed; enter it again.',
};

export function asText(value: SettingsValues[SettingKey] | undefined): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(', ') : String(value);
}
