// What the call panel shows, derived in one place from what the core confirmed: the page link,
// the bridge state, the setup check and mute / push-to-talk. Pure (no DOM), so the rules ("no call,
// no Live"; "a control that cannot act says why") are read and tested in one function.
// A new state (e.g. a parked call) is one more case in `callPhase` and one row in PHASES.
import type { BridgeState, TalkState } from '../main/core/api-types.ts';
import type { PageLink } from './format.ts';

/** The one state the panel is in; every label, colour and enabled control follows from it. */
export type CallPhase =
  Exclude<PageLink, 'live'> | 'unconfigured' | 'idle' | 'joining' | 'in-call' | 'parked' | 'leaving' | 'error';

export interface CallViewInput {
  link: PageLink;
  state: BridgeState;
  /** What a call still needs (null when set up). */
  missing: string | null;
  talk: TalkState | null;
}

export interface CallView {
  phase: CallPhase;
  /** The badge's data-state (colours in styles.css): the bridge state, or `muted` in a muted call. */
  badgeState: string;
  badgeText: string;
  join: boolean;
  leave: boolean;
  say: boolean;
  stopTalking: boolean;
  /** Mute / push-to-talk: enabled, or disabled with the reason shown under them. */
  mute: { enabled: boolean };
  ptt: { enabled: boolean };
  hold: { enabled: boolean };
  /** The line under the talk controls (a live region): what the model hears, or why the controls wait. */
  talkLine: string;
  /** The muted marker (crossed-out microphone) in the card's head. */
  muted: boolean;
  /** The header's pill: the call's state in a few words (never "live" for a page merely following events). */
  pill: { text: string; kind: PillKind };
  /** The one filled (primary) button: what a person most likely does next. */
  primary: 'setup' | 'join' | 'leave' | null;
  /** Screenshots to the model: allowed in a call (a parked one too: the frame wakes it), else why not. */
  frame: { enabled: true } | { enabled: false; reason: string };
}

export type PillKind = 'ok' | 'warn' | 'error' | 'info';

/** The header pill per phase. The link phases are the page's own words (main.ts sets them as the stream reports). */
const PILLS: Record<CallPhase, { text: string; kind: PillKind }> = {
  loading: { text: 'connecting…', kind: 'info' },
  disconnected: { text: 'disconnected', kind: 'error' },
  'signed-out': { text: 'not signed in', kind: 'error' },
  unconfigured: { text: 'not set up', kind: 'warn' },
  idle: { text: 'not in a call', kind: 'info' },
  joining: { text: 'joining…', kind: 'info' },
  'in-call': { text: 'in a call', kind: 'ok' },
  parked: { text: 'in a call · model parked', kind: 'ok' },
  leaving: { text: 'leaving…', kind: 'info' },
  error: { text: 'call error', kind: 'error' },
};

/** Why Capture and Choose image wait, by phase (nothing to send a frame to outside a call). */
function frameWaits(phase: CallPhase): string {
  if (phase === 'loading' || phase === 'disconnected' || phase === 'signed-out')
    return 'Waiting for Live Voice Bridge.';
  if (phase === 'unconfigured') return 'No call: set up first, then join voice to send screenshots.';
  if (phase === 'joining') return 'Joining: screenshots can be sent once the call is up.';
  return 'No call: join voice first; a screenshot goes to the model during a call.';
}

const JOINING: ReadonlySet<BridgeState> = new Set(['connecting', 'reconnecting']);

export function callPhase(link: PageLink, state: BridgeState, missing: string | null): CallPhase {
  if (link !== 'live') return link;
  if (state === 'connected') return 'in-call';
  // Still in Discord with the model closed while the room is quiet: speech or a message wakes it.
  if (state === 'parked') return 'parked';
  if (JOINING.has(state)) return 'joining';
  if (state === 'stopping') return 'leaving';
  if (missing !== null) return 'unconfigured';
  if (state === 'error') return 'error';
  return 'idle';
}

const BADGES: Record<Exclude<CallPhase, 'in-call' | 'parked' | 'joining' | 'idle' | 'leaving' | 'error'>, string> = {
  loading: 'loading…',
  disconnected: 'disconnected',
  'signed-out': 'signed out',
  unconfigured: 'not set up',
};

/** The state in words when mute / push-to-talk act on a live call. */
export function describeTalk(state: TalkState): string {
  if (state.muted) return 'Muted: the model hears nobody.';
  if (state.ptt.enabled)
    return state.ptt.held
      ? 'Talking: the model hears you while you hold.'
      : 'Push-to-talk: hold “Hold to talk” (or your talk key) to be heard.';
  return 'Live: the model hears the call.';
}

/** Why mute / push-to-talk wait, when the phase is not a call. */
function talkWaits(phase: CallPhase, talk: TalkState | null): string {
  if (phase === 'loading' || phase === 'disconnected' || phase === 'signed-out' || talk === null) return '';
  if (phase === 'parked')
    return talk.muted
      ? 'Muted: the model hears nobody (and is parked while the room is quiet).'
      : 'Parked: the model is closed while the room is quiet; speaking (or a message) wakes it.';
  if (talk.muted) return 'Muted: you will join muted (Unmute to join open).';
  if (phase === 'unconfigured') return 'No call: set up first; Mute and push-to-talk apply in a call.';
  if (phase === 'joining') return 'Joining: Mute and push-to-talk apply once the call is up.';
  return 'No call: nobody is heard. Mute and push-to-talk apply once you join.';
}

export function deriveCallView(input: CallViewInput): CallView {
  const { link, state, missing, talk } = input;
  const phase = callPhase(link, state, missing);
  const live = link === 'live';
  const inCall = phase === 'in-call';
  // A parked call is still a call in Discord: leave, mute and push-to-talk act on it, and text wakes the model.
  const inDiscord = inCall || phase === 'parked';
  const muted = live && talk?.muted === true;
  const badgeText =
    phase in BADGES ? BADGES[phase as keyof typeof BADGES] : inCall && muted ? 'connected · muted' : state;
  return {
    phase,
    badgeState: phase in BADGES ? phase : inCall && muted ? 'muted' : state,
    badgeText,
    join: live && missing === null && (phase === 'idle' || phase === 'error'),
    leave: inDiscord || phase === 'joining',
    say: inDiscord,
    stopTalking: inCall,
    // Unmute stays offered outside a call: the mute is kept across calls, so it must be undoable.
    mute: { enabled: live && talk !== null && (inDiscord || talk.muted) },
    ptt: { enabled: live && talk !== null && inDiscord },
    hold: { enabled: live && talk !== null && inDiscord && talk.ptt.enabled },
    talkLine: inCall && talk ? describeTalk(talk) : talkWaits(phase, talk),
    muted,
    pill: inCall && muted ? { text: 'in a call · muted', kind: 'warn' } : PILLS[phase],
    primary:
      phase === 'unconfigured'
        ? 'setup'
        : inDiscord || phase === 'joining'
          ? 'leave'
          : phase === 'idle' || phase === 'error'
            ? 'join'
            : null,
    frame: inDiscord ? { enabled: true } : { enabled: false, reason: frameWaits(phase) },
  };
}
