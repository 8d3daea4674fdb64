// What the call panel shows, derived in one place from what the core confirmed: the page link,
// the bridge state, the setup check and mute / push-to-talk. Pure (no DOM), so the rules ("no call,
// no Live"; "a control that cannot act says why") are read and tested in one function.
// A new state (e.g. a parked call) is one more case in `callPhase` and one row in PHASES.
import type { BridgeState, TalkState } from '../main/core/api-types.ts';
import type { PageLink } from './format.ts';

/** The one state the panel is in; every label, colour and enabled control follows from it. */
export type CallPhase = Exclude<PageLink, 'live'> | 'unconfigured' | 'idle' | 'joining' | 'in-call' | 'leaving' | 'error';

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
}

const JOINING: ReadonlySet<BridgeState> = new Set(['connecting', 'reconnecting']);

export function callPhase(link: PageLink, state: BridgeState, missing: string | null): CallPhase {
  if (link !== 'live') return link;
  if (state === 'connected') return 'in-call';
  if (JOINING.has(state)) return 'joining';
  if (state === 'stopping') return 'leaving';
  if (missing !== null) return 'unconfigured';
  if (state === 'error') return 'error';
  return 'idle';
}

const BADGES: Record<Exclude<CallPhase, 'in-call' | 'joining' | 'idle' | 'leaving' | 'error'>, string> = {
  loading: 'loading…',
  disconnected: 'disconnected',
  'signed-out': 'signed out',
  unconfigured: 'not set up',
};

/** The state in words when mute / push-to-talk act on a live call. */
export function describeTalk(state: TalkState): string {
  if (state.muted) return 'Muted: the model hears nobody.';
  if (state.ptt.enabled) return state.ptt.held ? 'Talking: the model hears you while you hold.' : 'Push-to-talk: hold “Hold to talk” (or your talk key) to be heard.';
  return 'Live: the model hears the call.';
}

/** Why mute / push-to-talk wait, when the phase is not a call. */
function talkWaits(phase: CallPhase, talk: TalkState | null): string {
  if (phase === 'loading' || phase === 'disconnected' || phase === 'signed-out' || talk === null) return '';
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
  const muted = live && talk?.muted === true;
  const badgeText = phase in BADGES ? BADGES[phase as keyof typeof BADGES] : inCall && muted ? 'connected · muted' : state;
  return {
    phase,
    badgeState: phase in BADGES ? phase : inCall && muted ? 'muted' : state,
    badgeText,
    join: live && missing === null && (phase === 'idle' || phase === 'error'),
    leave: phase === 'in-call' || phase === 'joining',
    say: inCall,
    stopTalking: inCall,
    // Unmute stays offered outside a call: the mute is kept across calls, so it must be undoable.
    mute: { enabled: live && talk !== null && (inCall || talk.muted) },
    ptt: { enabled: live && talk !== null && inCall },
    hold: { enabled: live && talk !== null && inCall && talk.ptt.enabled },
    talkLine: inCall && talk ? describeTalk(talk) : talkWaits(phase, talk),
    muted,
  };
}
