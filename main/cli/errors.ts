// How the CLI words an error the sidecar answered with: words first (a sentence a person can act
// on, with the command that helps where there is one), then the sidecar's code in parentheses for
// scripts and searches: `No live call to speak in. Join voice first: live-voice-bridge join (no_call)`.
// One function for every command that prints a sidecar error (status, join, announce/ask/say,
// notify, schedule, mute, ptt, dashboard), so they all read alike.
import type { ApiErrorBody } from '../core/api-types.ts';

/** What the command was about, for the sentences that name it (the reminder id of `schedule --cancel`). */
export interface ErrorContext {
  /** The id the command was given (`schedule --cancel ID`). */
  id?: string;
  /** How the CLI found the token it sent: the variable, or the file it read. */
  token?: TokenSource;
}

/** The variable, or the file read; `file` is the token file either way (the one used without the variable). */
export interface TokenSource {
  from: 'variable' | 'file';
  file: string;
}

/** Where the refused token came from, in words, and what to do about it. */
function tokenRefusedWords(token: TokenSource | undefined, baseUrl: string | undefined): string {
  const sidecar = baseUrl ? `the sidecar at ${baseUrl}` : 'the sidecar';
  if (token?.from === 'variable') {
    return (
      `${sidecar} refused the token in DISCORD_VOICE_LIVE_SIDECAR_TOKEN: it is not the one that sidecar was started with. ` +
      `Set it to that sidecar's token, or unset it to use the token file ${token.file}`
    );
  }
  const file = token?.file ?? 'the token file';
  return (
    `${sidecar} refused the token read from ${file}: it is not the one that sidecar was started with ` +
    '(another sidecar wrote that file, or the one running uses DISCORD_VOICE_LIVE_SIDECAR_TOKEN). ' +
    "Point DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE at the running sidecar's token file (the demo prints that export line)"
  );
}

/** Sentences by code: the words to lead with (null: the sidecar's own message) and a hint. */
const BY_CODE: Record<string, { words?: (message: string, context: ErrorContext) => string; hint?: string }> = {
  no_call: { words: () => 'No live call to speak in', hint: 'Join voice first: live-voice-bridge join' },
  unknown_schedule_id: {
    words: (message, c) => (c.id ? `No reminder with id ${c.id}` : message),
    hint: 'The ids are in: live-voice-bridge schedule --list',
  },
  not_cancellable: { hint: 'Its state is in: live-voice-bridge schedule --list' },
  already_active: { hint: 'End it first: live-voice-bridge leave' },
  owner_not_in_voice: {
    hint: 'Join a voice channel in Discord, or give it: live-voice-bridge join --guild ID --channel ID',
  },
  not_configured: { hint: 'Set it up on the dashboard: live-voice-bridge dashboard' },
  ptt_off: {
    words: () => 'Push-to-talk is off, so there is no talk key to hold: voices reach the model already',
    hint: 'Switch it on first: live-voice-bridge ptt on',
  },
};

/** "no live call" → "No live call" (the sidecar's messages start in lower case). */
function sentence(text: string): string {
  // "mode: mode must be one of …" (zod's field prefix before a message that names the field) → "Mode must be one of …".
  const trimmed = text
    .trim()
    .replace(/[.\s]+$/, '')
    .replace(/^(\w+): (?=\1\b)/, '');
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
}

/** The sidecar's `{ error: { code, message } }`, or what stands in for it when the body is something else. */
function errorOf(status: number, body: unknown): { code: string; message: string } {
  const error = (body as Partial<ApiErrorBody> | null)?.error;
  if (error && typeof error.code === 'string')
    return { code: error.code, message: typeof error.message === 'string' ? error.message : `HTTP ${status}` };
  return {
    code: `http_${status}`,
    message: `the sidecar answered HTTP ${status}${body ? `: ${JSON.stringify(body).slice(0, 200)}` : ''}`,
  };
}

/**
 * The line to print for an error answer: `<words>. <hint> (<code>)`, e.g.
 * `No live call to speak in. Join voice first: live-voice-bridge join (no_call)`.
 */
export function sidecarErrorLine(status: number, body: unknown, context: ErrorContext = {}, baseUrl?: string): string {
  const { code, message } = errorOf(status, body);
  if (status === 401 && code === 'unauthorized')
    return `${sentence(tokenRefusedWords(context.token, baseUrl))} (${code})`;
  const known = BY_CODE[code];
  const words = sentence(known?.words ? known.words(message, context) : message);
  return `${words}.${known?.hint ? ` ${known.hint}` : ''} (${code})`;
}
