// What the bot's slash commands do. Anyone in the server: `/optout`, `/optin` (consent.ts). The
// owner only: `/join` (a call in the voice channel they are in), `/leave`, `/mute` (toggles what
// the model hears, like the dashboard's Mute), `/status` (one screen: call, model, who is heard).
// Every answer is ephemeral (only the person who typed it sees it); others asking for an owner
// command are told so, nothing else happens.
import type { TalkState } from '../api-types.ts';
import type { BridgeControl } from '../bridge/types.ts';
import type { RoomConsent } from './consent.ts';

export const ROOM_SLASH_COMMANDS = [
  { name: 'optout', description: 'Stop the voice assistant hearing you, in this call and later ones' },
  { name: 'optin', description: 'Let the voice assistant hear you again' },
  { name: 'join', description: 'Owner: start a call in your voice channel' },
  { name: 'leave', description: 'Owner: end the call' },
  { name: 'mute', description: 'Owner: mute or unmute what the model hears' },
  { name: 'status', description: 'Owner: the call, and who the model hears' },
] as const;

/** How long /join waits for the call before answering (Discord's limit for an answer is 3 s). */
const JOIN_ANSWER_MS = 2000;

export interface RoomCommandsOptions {
  ownerId: string;
  consent: RoomConsent;
  bridge: BridgeControl;
  talk: { state(): TalkState; setMuted(muted: boolean): TalkState };
  nameOf: (userId: string) => string;
}

export function roomCommandHandler(o: RoomCommandsOptions): (name: string, userId: string) => Promise<string> | string {
  return (name, userId) => {
    if (name === 'optout') return o.consent.optOut(userId, 'command');
    if (name === 'optin') return o.consent.optIn(userId);
    if (!ROOM_SLASH_COMMANDS.some((c) => c.name === name)) return `Unknown command /${name}.`;
    if (userId !== o.ownerId) return `Only the owner can use /${name}. You can use /optout or /optin.`;
    switch (name) {
      case 'join':
        return join(o.bridge);
      case 'leave':
        return o.bridge
          .stop('the owner typed /leave')
          .then(({ stopped }) => (stopped ? 'Left the call.' : 'There was no call to leave.'));
      case 'mute': {
        const state = o.talk.setMuted(!o.talk.state().muted);
        return state.muted
          ? 'Muted: the model hears nobody until you /mute again.'
          : 'Unmuted: the model hears the call again.';
      }
      default:
        return statusText(o);
    }
  };
}

/** Discord wants the answer within 3 s: a quick refusal (not in a voice channel, a call already on) is told, a slow join goes on. */
async function join(bridge: BridgeControl): Promise<string> {
  const started = bridge.start().then(
    () => 'Joined your voice channel.',
    (err: unknown) => `Could not join: ${err instanceof Error ? err.message : String(err)}`,
  );
  const slow = new Promise<string>((resolve) =>
    setTimeout(() => resolve('Joining your voice channel…'), JOIN_ANSWER_MS).unref(),
  );
  return Promise.race([started, slow]);
}

function statusText(o: RoomCommandsOptions): string {
  const status = o.bridge.status();
  const room = o.bridge.room?.();
  const heard =
    room?.people.filter((p) => p.in_channel && p.role !== 'listener' && !p.opted_out).map((p) => p.name) ?? [];
  const optedOut = room?.people.filter((p) => p.opted_out).map((p) => p.name) ?? [];
  return [
    `Call: ${status.state}${status.reason ? ` (${status.reason})` : ''}`,
    `Model hears: ${o.talk.state().muted ? 'nobody (muted)' : heard.length > 0 ? heard.join(', ') : 'nobody yet'}`,
    ...(optedOut.length > 0 ? [`Opted out: ${optedOut.join(', ')}`] : []),
    ...(room ? [`Wake names: ${room.wake.on ? `on (${room.wake.reason})` : 'off'}`] : []),
  ].join('\n');
}
