// How a notification reads on each channel. Discord posts are bold-titled and cut to Discord's
// 2000-character limit; mention syntax is defused here as well as disabled by the Discord port, so
// a notification can never ping @everyone, a role or a user even if a lower layer forgets.
import type { NotifyResult } from '../api-types.ts';

export const DISCORD_MAX_CHARS = 2000;
export const DEFAULT_TITLE = 'Agent notification';
const ZWSP = '\u200b';

/** Break `@everyone`, `@here` and `<@id>` / `<@!id>` / `<@&id>` mentions with a zero-width space. */
export function defuseMentions(text: string): string {
  return text.replace(/@(everyone|here)/gi, `@${ZWSP}$1`).replace(/<@([!&]?\d)/g, `<@${ZWSP}$1`);
}

/** Cut to `max` characters (code points), ending with an ellipsis when something was removed. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return chars.slice(0, max - 1).join('') + '…';
}

/** Single-line, trimmed title; the default when empty. */
export function cleanTitle(title: string | undefined): string {
  const t = (title ?? '').replace(/\s+/g, ' ').trim();
  return t === '' ? DEFAULT_TITLE : t;
}

/** DM / channel text: `**title**` line, the text, and a `-# from <source>` footer; ≤ 2000 chars. */
export function formatDiscordText(text: string, title?: string, source?: string): string {
  const head = `**${defuseMentions(cleanTitle(title)).replace(/\*\*/g, '')}**\n`;
  const foot = source ? `\n-# from ${defuseMentions(source.replace(/\s+/g, ' ').trim())}` : '';
  const room = DISCORD_MAX_CHARS - Array.from(head).length - Array.from(foot).length;
  return head + truncate(defuseMentions(text.trim()), Math.max(room, 1)) + foot;
}

/** What the live model is asked to say next turn: `[title] text`. */
export function formatVoiceText(text: string, title?: string): string {
  return `[${cleanTitle(title)}] ${text.trim()}`;
}

/**
 * What a status other than `ok` means for whoever asked (the CLI's stderr line, the MCP tool's
 * second sentence): whether it may be sent again. One wording for both; the rule that decides the
 * status is overallStatus (dispatcher.ts).
 */
export const NOTIFY_STATUS_MEANING: Record<Exclude<NotifyResult['status'], 'ok'>, string> = {
  partial:
    'Partly delivered (status partial): some destinations got it and some did not (see results). Do not send it again: it would arrive twice where it was delivered.',
  unknown:
    'Outcome unknown (status unknown): it may have been delivered (a send went out and got no answer) and was not re-sent. Do not send it again.',
  error: 'Not delivered (status error): no destination took it (see results).',
};
