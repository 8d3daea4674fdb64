// Making one item of text safe to post in Discord (or hand to an agent that parses `/goal` lines):
// secrets redacted, no line breaks (so no injected `/goal` or slash-command lines), no pings
// (@everyone, @here, user and role mentions), no code fences or unbalanced backticks that would
// swallow the rest of a message, and a length cap.
import { redactText } from './redact.ts';

/** Discord's message limit. */
export const DISCORD_MESSAGE_LIMIT = 2000;

// Zero-width and bidi controls first: they can hide a mention (`@\u200beveryone` is then rebuilt).
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad]/g;
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const LINE_BREAKS_AND_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** Mentions become readable, non-pinging text. */
export function neutralizeMentions(text: string): string {
  return text
    .replace(/<@!?(\d{1,25})>/g, '[user $1]')
    .replace(/<@&(\d{1,25})>/g, '[role $1]')
    .replace(/<#(\d{1,25})>/g, '[channel $1]')
    .replace(/@(everyone|here)\b/gi, '[$1]');
}

/** Cut to `max` UTF-16 units with an ellipsis, never splitting a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = Math.max(0, max - 1);
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return text.slice(0, cut).trimEnd() + '…';
}

function balanceBackticks(text: string): string {
  const fenced = text.replace(/`{3,}/g, "'''");
  const ticks = fenced.split('`').length - 1;
  return ticks % 2 === 0 ? fenced : fenced.replace(/`/g, "'");
}

/** One line of chat-safe text (see the file comment), at most `max` characters. */
export function chatSafeInline(text: string, max = 300): string {
  let out = redactText(text).replace(INVISIBLE, '');
  out = out.replace(LINE_BREAKS_AND_CONTROLS, ' ');
  out = neutralizeMentions(out);
  // Slash commands only mean something at the start of a line, but an agent may scan for them
  // anywhere: drop the slash of /goal and /subgoal everywhere and of any leading command.
  out = out.replace(/(^|[^\w/])\/+(?=(?:sub)?goal\b)/gi, '$1').replace(/^\s*\/+/, '');
  out = balanceBackticks(out.replace(/\s+/g, ' ').trim());
  return balanceBackticks(clip(out, max));
}
