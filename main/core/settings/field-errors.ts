// Settings errors in plain words, one per field, for the form to show next to the field. Zod's own
// text ("values.sidecarPort: Too small: expected number to be >=1024") never reaches a person.
import type { z } from 'zod';
import type { SecretKey, SettingKey } from './schema.ts';

const RULES: Partial<Record<SettingKey | SecretKey, string>> = {
  sidecarPort: 'Use a port number from 1024 to 65535.',
  notesRetentionDays: 'Use a whole number of days from 1 to 36500.',
  notesMaxMb: 'Use a whole number of megabytes, at least 1.',
  scheduleMaxPending: 'Use a whole number, at least 1.',
  ownerId: 'Pick a person from the list, or paste a Discord user id (17–20 digits).',
  guildId: 'Pick a server from the list, or paste a server id (17–20 digits).',
  voiceChannelId: 'Pick a voice channel from the list, or paste a channel id (17–20 digits).',
  textChannelId: 'Pick a text channel from the list, or paste a channel id (17–20 digits).',
  allowedSpeakers: 'Use Discord user ids (17–20 digits) separated by commas, at most 50.',
  liveProvider: 'Choose gemini, openai-realtime or openai-live.',
  voice: 'Choose a voice from the list.',
  model: 'Enter a model name (at most 120 characters).',
  personaFile: 'Enter the path of a text file.',
  discordBotToken: 'Paste the bot token as text.',
  geminiApiKey: 'Paste the whole API key (no spaces).',
  openaiApiKey: 'Paste the whole API key (no spaces).',
  webhookUrl: 'Use an http:// or https:// address.',
  mcpServers: 'Use a JSON list of MCP servers (see docs/mcp.md).',
};

/** `values.sidecarPort` / `secrets.geminiApiKey` → field name → a sentence. */
export function plainFieldErrors(issues: readonly z.core.$ZodIssue[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const field = String(issue.path[1] ?? issue.path[0] ?? 'settings');
    if (out[field]) continue;
    // The token's schema says what is wrong with the one pasted (too short, an id, "Bot " in front).
    if (field === 'discordBotToken' && issue.code !== 'invalid_type') {
      out[field] = issue.message;
      continue;
    }
    out[field] =
      RULES[field as SettingKey | SecretKey] ??
      (issue.code === 'unrecognized_keys'
        ? `Unknown setting: ${issue.keys.join(', ')}.`
        : 'This value is not accepted.');
  }
  return out;
}

/** One message for the whole form (the status line): the fields' sentences. */
export function plainSummary(fields: Record<string, string>): string {
  return Object.values(fields).join(' ');
}
