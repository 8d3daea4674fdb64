// `live-voice-bridge mute on|off` and `ptt down|up|on|off`: the word the user types → the sidecar
// request (POST /mute, POST /ptt). Pure, so the wording is tested without a sidecar.

export interface TalkRequest {
  route: '/mute' | '/ptt';
  body: { muted: boolean } | { held: boolean } | { enabled: boolean };
}

const WORDS: Record<'mute' | 'ptt', Record<string, TalkRequest['body']>> = {
  mute: { on: { muted: true }, off: { muted: false } },
  // down/up: the talk key; on/off: push-to-talk mode itself.
  ptt: { down: { held: true }, up: { held: false }, on: { enabled: true }, off: { enabled: false } },
};

/** The request for `command word`, or an error message naming the words that work. */
export function talkRequest(command: 'mute' | 'ptt', word: string | undefined): TalkRequest | { error: string } {
  const body = word === undefined ? undefined : WORDS[command][word.toLowerCase()];
  if (!body) return { error: `${command} needs one of: ${Object.keys(WORDS[command]).join(', ')}` };
  return { route: command === 'mute' ? '/mute' : '/ptt', body };
}
