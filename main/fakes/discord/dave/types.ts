// The DAVE wire and test vocabulary of the fake voice gateway (group.ts): opcodes, the link to the
// bot's voice WebSocket, the event log, the faults a test injects and the counters it reads, and the
// frames a fake member sends or hears. Opcodes: Discord's voice docs ("DAVE"), the DAVE protocol text.

export const DAVE_OPS = {
  prepareTransition: 21,
  executeTransition: 22,
  readyForTransition: 23,
  prepareEpoch: 24,
  externalSender: 25,
  keyPackage: 26,
  proposals: 27,
  commitWelcome: 28,
  announceCommit: 29,
  welcome: 30,
  invalidCommitWelcome: 31,
} as const;

/** How the group reaches the bot's voice WebSocket (seq numbers are shared with JSON messages). */
export interface DaveLink {
  sendJson(op: number, d: unknown): void;
  sendBinary(op: number, payload: Buffer): void;
}

export interface DaveEvent {
  /** 'in' = from the bot, 'out' = to the bot, 'member' = inside the fake. */
  dir: 'in' | 'out' | 'member';
  op: number | string;
  transitionId?: number;
  epoch?: number;
  detail?: string;
}

export interface DaveFaults {
  /** Announce the next commit (or welcome) with transition id 0: the client executes it at once and keeps lastTransitionId 0. */
  nextTransitionIdZero: boolean;
  /** Announce every commit and welcome with transition id 0 (in every group, across rejoins, until cleared). */
  alwaysTransitionIdZero: boolean;
  /**
   * The bot's key package (op 26) is proposed (op 27) this long after it arrives: on Discord the
   * other members' clients commit a newcomer, a few round trips away. Meanwhile the bot has its
   * transport keys and receives the members' E2EE audio, which it cannot decrypt yet.
   */
  addDelayMs: number;
  /** A newcomer is committed by another member's client (op 29 with their commit), not by the bot; every member may commit on Discord. */
  memberCommitsJoins: boolean;
  /** Ignore this many of the bot's next key packages (op 26 lost): it stays "joined but not ready" (soundbored #58). */
  dropKeyPackages: number;
}

export const noDaveFaults = (): DaveFaults => ({
  nextTransitionIdZero: false,
  alwaysTransitionIdZero: false,
  addDelayMs: 0,
  memberCommitsJoins: false,
  dropKeyPackages: 0,
});

export interface DaveCounters {
  /** Transitions the bot executed (op 22 sent, plus transition-0 commits and resets). */
  transitions: number;
  commits: number;
  welcomes: number;
  invalidCommitWelcomes: number;
  memberErrors: number;
  /** op 28 payloads that did not fit (wrong epoch, nothing pending, unparsable). */
  rejectedCommits: number;
}

export type BotFrameKind = 'silence' | 'e2ee' | 'plain' | 'undecryptable';
export interface BotFrame {
  kind: BotFrameKind;
  /** Opus the listener plays (null when it would drop the frame). */
  opus: Buffer | null;
  /** The group was ready (v1) when the frame arrived: a plain frame then is a leak. */
  groupReady: boolean;
}

/** A fake user's frame as sent: E2EE for the bot's group, plain, or E2EE for a group the bot is not in yet. */
export interface SpeakerFrame {
  payload: Buffer;
  kind: 'e2ee' | 'plain' | 'foreign';
}
