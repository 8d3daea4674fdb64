// The voice gateway's side of one DAVE (E2EE, MLS) group: the bot is the only real client; the fake
// users in the channel are real MLS members too (one @snazzah/davey session each, held in-process), so
// what they encrypt the bot must really decrypt and what the bot encrypts they really open. The
// gateway is the MLS external sender: it announces itself (op 25), relays the bot's key package as Add
// proposals (op 27), accepts the commit/welcome (op 28), announces it (op 29/30) and runs the protocol
// transitions (op 21-24). The fake users' own MLS clients live in members.ts, the queue of
// membership changes in membership-queue.ts. Opcodes and payloads: Discord's voice docs ("DAVE"),
// the DAVE protocol text, shared/research/dave-recipe.md §4 (the algorithm the real
// @discordjs/voice 0.19.2 accepted).
import type { DAVESession } from '@snazzah/davey';
import {
  addProposal,
  createExternalSender,
  externalProposal,
  proposalsPayload,
  removeProposal,
  splitCommitWelcome,
  withTransitionId,
  type ExternalSender,
} from './mls-wire.ts';
import { FakeMembers, type MemberCommit } from './members.ts';
import { MembershipQueue } from './membership-queue.ts';
import { sealedForOthers } from './sealed-frame.ts';
import {
  DAVE_OPS,
  noDaveFaults,
  type BotFrame,
  type DaveCounters,
  type DaveEvent,
  type DaveFaults,
  type DaveLink,
  type SpeakerFrame,
} from './types.ts';

export { sealedForOthers };
export {
  DAVE_OPS,
  noDaveFaults,
  type BotFrame,
  type BotFrameKind,
  type DaveCounters,
  type DaveEvent,
  type DaveFaults,
  type DaveLink,
  type SpeakerFrame,
} from './types.ts';

/** davey's MediaType.AUDIO and ProposalsOperationType (const enums: not importable under type stripping). */
const MEDIA_AUDIO = 0;
const SILENCE = Buffer.from([0xf8, 0xff, 0xfe]);
const DAVE_MAGIC = 0xfafa;
/** How long fake members keep accepting plain frames after a downgrade (the client uses 24 s). */
const DOWNGRADE_PASSTHROUGH_S = 120;

interface PendingCommit {
  adds: string[];
  removes: number[];
  /** A fake member commits instead of the bot (the bot is the one being re-added). */
  memberCommits: boolean;
}

export class DaveGroup {
  readonly channelId: string;
  readonly botUserId: string;
  readonly events: DaveEvent[] = [];
  /** Shared with the voice server: a fault set on it applies to every group, also after a rejoin. */
  readonly faults: DaveFaults;
  readonly counters: DaveCounters = {
    transitions: 0,
    commits: 0,
    welcomes: 0,
    invalidCommitWelcomes: 0,
    memberErrors: 0,
    rejectedCommits: 0,
  };
  /** Negotiated protocol version (0 after a downgrade). */
  protocolVersion = 1;
  epoch = 0n;
  /** MLS leaves: user id per leaf index, null for a blank leaf. */
  leaves: (string | null)[] = [];
  lastTransitionId: number | null = null;
  #external: ExternalSender = createExternalSender();
  #link: DaveLink;
  readonly #members: FakeMembers;
  #botKeyPackage: Buffer | null = null;
  #pending: PendingCommit | null = null;
  /** transition id → protocol version the bot will switch to on op 22. */
  #awaitingReady = new Map<number, number>();
  readonly #queue = new MembershipQueue(() => this.#closed || this.#busy());
  #nextTransitionId = 1;
  /** The bot reset its session while holding a leaf (op 31). */
  #staleBot = false;
  #closed = false;
  /** An upgrade from v0 is under way: everyone re-keys together (plain frames until it executes). */
  #upgrading = false;
  #othersNonce = 0;

  constructor(channelId: string, botUserId: string, link: DaveLink, faults: DaveFaults = noDaveFaults()) {
    this.faults = faults;
    this.channelId = channelId;
    this.botUserId = botUserId;
    this.#link = link;
    this.#members = new FakeMembers(channelId, this.#external.packageBytes, (userId, error) =>
      this.#memberError(userId, error),
    );
  }

  /** After op 4: announce the external sender; the users already in the channel become pending members. */
  start(userIds: readonly string[]): void {
    this.#send(DAVE_OPS.externalSender, this.#external.packageBytes);
    for (const userId of userIds) this.#members.create(userId);
  }

  /** The group is established with the bot in it and running DAVE v1. */
  get ready(): boolean {
    return (
      this.protocolVersion === 1 &&
      this.leaves.includes(this.botUserId) &&
      this.#pending === null &&
      this.#awaitingReady.size === 0 &&
      this.epoch > 0n
    );
  }

  /** A fake user's MLS session, if they are a member (ready or pending). */
  member(userId: string): DAVESession | undefined {
    return this.#members.session(userId);
  }

  /**
   * A commit was announced and the bot has not yet confirmed it holds the new epoch (op 23).
   * Discord's clients (libdave) keep sealing with the previous epoch's key until the transition
   * executes; davey switches as soon as it processes the commit, so a fake sender holds its frame
   * through this window instead (a few ms on loopback) rather than send what the bot cannot open yet.
   */
  get rekeying(): boolean {
    for (const version of this.#awaitingReady.values()) if (version === this.protocolVersion) return true;
    return false;
  }

  /** A fake user can send E2EE audio: in the group, with its MLS session ready (or the call runs at v0). */
  canSpeak(userId: string): boolean {
    if (this.protocolVersion === 0) return true;
    return this.leaves.includes(userId) && this.#members.session(userId)?.ready === true;
  }

  memberIds(): string[] {
    return this.#members.ids();
  }

  /** What a fake member encrypts for the SFU: E2EE when its group is ready at v1, else plain. */
  encryptFrom(userId: string, opus: Buffer): SpeakerFrame {
    const session = this.#members.session(userId);
    if (opus.equals(SILENCE) || this.protocolVersion === 0) return { payload: opus, kind: 'plain' };
    if (session?.ready) return { payload: session.encryptOpus(opus), kind: 'e2ee' };
    // Only an upgrade from v0 has everyone re-key together, sending plain frames until it executes.
    // Otherwise the user is already in an E2EE call and keeps talking in the group the other
    // members share while the bot joins it (or rebuilds after op 31): frames it cannot open yet. A
    // Discord client never falls back to plain audio for a newcomer.
    if (this.#upgrading) return { payload: opus, kind: 'plain' };
    return { payload: sealedForOthers(opus, ++this.#othersNonce), kind: 'foreign' };
  }

  /**
   * Open a frame the bot sent, as a member's Discord client would (the first ready member listens):
   * E2EE frames are decrypted, plain ones played only where davey allows passthrough (a downgrade).
   * With no member in the channel nobody listens, and plain frames count as heard.
   */
  openBotFrame(payload: Buffer): BotFrame {
    const groupReady = this.ready;
    if (payload.equals(SILENCE)) return { kind: 'silence', opus: payload, groupReady };
    const e2ee = payload.length > 2 && payload.readUInt16BE(payload.length - 2) === DAVE_MAGIC;
    const kind = e2ee ? 'e2ee' : 'plain';
    if (this.#members.size === 0)
      return { kind: e2ee ? 'undecryptable' : 'plain', opus: e2ee ? null : payload, groupReady };
    const listener = this.#members.listener(this.leaves, this.botUserId);
    if (!listener)
      return {
        kind: e2ee ? 'undecryptable' : kind,
        opus: !e2ee && this.protocolVersion === 0 ? payload : null,
        groupReady,
      };
    try {
      return { kind, opus: listener.decrypt(this.botUserId, MEDIA_AUDIO, payload), groupReady };
    } catch {
      return { kind: e2ee ? 'undecryptable' : kind, opus: null, groupReady };
    }
  }

  // --- from the bot ---

  onBinary(op: number, payload: Buffer): void {
    if (this.#closed) return;
    this.#log('in', op);
    if (op === DAVE_OPS.keyPackage) this.#onKeyPackage(Buffer.from(payload));
    else if (op === DAVE_OPS.commitWelcome) this.#onCommitWelcome(Buffer.from(payload));
  }

  onJson(op: number, d: Record<string, unknown>): void {
    if (this.#closed) return;
    const transitionId = typeof d.transition_id === 'number' ? d.transition_id : -1;
    this.#log('in', op, { transitionId });
    if (op === DAVE_OPS.readyForTransition) this.#onReadyForTransition(transitionId);
    else if (op === DAVE_OPS.invalidCommitWelcome) this.#onInvalidCommitWelcome(transitionId);
  }

  /** op 31: the bot threw its group away and re-keys (op 26 follows): a member re-adds it in place of its stale leaf. */
  #onInvalidCommitWelcome(transitionId: number): void {
    this.counters.invalidCommitWelcomes += 1;
    if (this.leaves.includes(this.botUserId)) this.#staleBot = true;
    if (this.#awaitingReady.delete(transitionId)) this.#queue.next();
  }

  // --- channel membership (called after the gateway's op 11 / op 13) ---

  userJoined(userId: string): void {
    if (userId === this.botUserId || this.#members.has(userId)) return;
    this.#members.create(userId);
    this.#queue.enqueue(() => this.#proposeAdds());
  }

  userLeft(userId: string): void {
    if (!this.#members.remove(userId)) return;
    this.#queue.enqueue(() => {
      const leaf = this.leaves.indexOf(userId);
      if (leaf < 0) return this.#queue.next(); // never got into the group
      const others = this.leaves.filter((id) => id !== null && id !== userId && id !== this.botUserId);
      if (others.length === 0 && this.#members.size === 0) return this.#soleMemberReset();
      this.#pending = { adds: [], removes: [leaf], memberCommits: false };
      this.#proposeToAll([removeProposal(leaf)]);
    });
  }

  // --- scripted transitions ---

  /** op 21 to protocol version 0: after op 22 both sides send plain Opus. */
  downgrade(): void {
    this.#queue.enqueue(() => {
      const id = this.#transitionId();
      for (const session of this.#members.sessions()) session.setPassthroughMode(true, DOWNGRADE_PASSTHROUGH_S);
      this.#awaitingReady.set(id, 0);
      this.#sendJson(DAVE_OPS.prepareTransition, { transition_id: id, protocol_version: 0 });
    });
  }

  /** op 24 (epoch 1, v1): everyone re-creates the group; the bot sends a new key package and commits. */
  upgrade(): void {
    this.#queue.enqueue(() => this.#recreate(false));
  }

  /** Announce a commit that cannot be processed: the bot answers op 31 and re-keys (op 26). */
  sendInvalidCommit(): void {
    this.#queue.enqueue(() => {
      const id = this.#transitionId();
      const garbage = Buffer.concat([Buffer.from([0, 1, 0, 1]), Buffer.alloc(40, 0x5a)]);
      this.#send(DAVE_OPS.announceCommit, withTransitionId(id, garbage));
      this.#queue.next();
    });
  }

  close(): void {
    this.#closed = true;
    this.#members.clear();
    this.#queue.clear();
  }

  // --- internals ---

  #onKeyPackage(keyPackage: Buffer): void {
    if (this.faults.dropKeyPackages > 0) {
      this.faults.dropKeyPackages -= 1;
      return this.#log('member', 'dropped key package');
    }
    this.#botKeyPackage = keyPackage;
    const delay = this.faults.addDelayMs;
    if (delay > 0) setTimeout(() => !this.#closed && this.#queue.enqueue(() => this.#proposeAdds()), delay);
    else this.#queue.enqueue(() => this.#proposeAdds());
  }

  /** Add every member (and the bot) that is not in the group yet. */
  #proposeAdds(): void {
    if (!this.#botKeyPackage || this.protocolVersion === 0) return this.#queue.next();
    const botLeaf = this.leaves.indexOf(this.botUserId);
    const established = this.epoch > 0n && this.leaves.some((id) => id !== null && id !== this.botUserId);
    const newcomers = this.#members.ids().filter((id) => !this.leaves.includes(id));
    if (botLeaf >= 0 && this.#staleBot) {
      // The bot reset its session (op 31, or a failed welcome): a member removes its old leaf and adds its new key package.
      this.#staleBot = false;
      const removes = [botLeaf];
      this.#pending = { adds: [this.botUserId, ...newcomers], removes, memberCommits: true };
      return this.#memberCommit([
        removeProposal(botLeaf),
        addProposal(this.#botKeyPackage),
        ...newcomers.map((id) => addProposal(this.#members.keyPackage(id))),
      ]);
    }
    if (botLeaf < 0 && established) {
      this.#pending = { adds: [this.botUserId, ...newcomers], removes: [], memberCommits: true };
      return this.#memberCommit([
        addProposal(this.#botKeyPackage),
        ...newcomers.map((id) => addProposal(this.#members.keyPackage(id))),
      ]);
    }
    if (newcomers.length === 0) return this.#queue.next();
    if (botLeaf < 0) {
      // A new group: the bot creates it at epoch 0 and commits adding everyone else.
      this.epoch = 0n;
      this.leaves = [this.botUserId];
    }
    this.#pending = { adds: newcomers, removes: [], memberCommits: botLeaf >= 0 && this.faults.memberCommitsJoins };
    const memberCommit = this.#proposeToAll(newcomers.map((id) => addProposal(this.#members.keyPackage(id))));
    // The bot processed the proposals too (its own commit, op 28, loses and is refused): it gets the member's (op 29).
    if (this.#pending.memberCommits) {
      if (memberCommit) this.#applyCommit(memberCommit.commit, memberCommit.welcome);
      else this.#pending.memberCommits = false; // no member could commit: the bot's commit is taken
    }
  }

  /** op 27 to the bot; fake members already in the group process (cache) the same proposals. Returns the first member's commit. */
  #proposeToAll(proposals: Buffer[]): MemberCommit | null {
    const payload = this.#proposals(proposals);
    const first = this.#members.process(this.leaves, this.botUserId, payload, {
      readyOnly: false,
      recognized: this.#recognized(),
    });
    this.#send(DAVE_OPS.proposals, payload);
    return first;
  }

  /** The bot is the one being (re-)added: the first fake member commits, the bot gets a welcome (op 30). */
  #memberCommit(proposals: Buffer[]): void {
    const winner = this.#members.process(this.leaves, this.botUserId, this.#proposals(proposals), {
      readyOnly: true,
      recognized: [...this.#recognized(), this.botUserId],
    });
    if (!winner) {
      // Nobody can commit (no ready member): start over with a fresh group the bot creates.
      this.#pending = null;
      return this.#recreate(false);
    }
    this.#applyCommit(winner.commit, winner.welcome);
  }

  /** The gateway's external proposals for the current epoch, as one op 27 payload. */
  #proposals(proposals: Buffer[]): Buffer {
    return proposalsPayload(proposals.map((p) => externalProposal(this.#external, this.channelId, this.epoch, p)));
  }

  #recognized(): string[] {
    return [this.botUserId, ...this.#members.ids()];
  }

  #onCommitWelcome(payload: Buffer): void {
    const pending = this.#pending;
    let split;
    try {
      split = splitCommitWelcome(payload);
    } catch (error) {
      this.counters.rejectedCommits += 1;
      this.#log('member', 'reject', { detail: (error as Error).message });
      return;
    }
    if (!pending || pending.memberCommits || split.epoch !== this.epoch) {
      this.counters.rejectedCommits += 1;
      this.#log('member', 'reject', { detail: `commit for epoch ${split.epoch}, group at ${this.epoch}` });
      return;
    }
    this.#applyCommit(split.commit, split.welcome);
  }

  #applyCommit(commit: Buffer, welcome: Buffer | null): void {
    const pending = this.#pending;
    if (!pending) return;
    // RFC 9420 §12.3: removes first, then each add takes the leftmost blank leaf.
    for (const leaf of pending.removes) this.leaves[leaf] = null;
    for (const id of pending.adds) {
      const blank = this.leaves.indexOf(null);
      if (blank >= 0) this.leaves[blank] = id;
      else this.leaves.push(id);
    }
    while (this.leaves.length > 0 && this.leaves.at(-1) === null) this.leaves.pop();
    this.epoch += 1n;
    this.counters.commits += 1;
    const zero = this.faults.nextTransitionIdZero || this.faults.alwaysTransitionIdZero;
    this.faults.nextTransitionIdZero = false;
    const id = zero ? 0 : this.#transitionId();
    this.#members.apply(this.leaves, this.botUserId, pending.adds, commit, welcome);
    if (pending.memberCommits && pending.adds.includes(this.botUserId)) {
      if (!welcome) return this.#memberError(this.botUserId, new Error('member commit without a welcome for the bot'));
      this.counters.welcomes += 1;
      this.#send(DAVE_OPS.welcome, withTransitionId(id, welcome));
    } else {
      this.#send(DAVE_OPS.announceCommit, withTransitionId(id, commit));
    }
    this.#pending = null;
    if (id === 0) {
      this.#executed(0, this.protocolVersion);
      return this.#queue.next();
    }
    this.#awaitingReady.set(id, this.protocolVersion);
  }

  #onReadyForTransition(transitionId: number): void {
    const version = this.#awaitingReady.get(transitionId);
    if (version === undefined) return;
    this.#awaitingReady.delete(transitionId);
    this.#sendJson(DAVE_OPS.executeTransition, { transition_id: transitionId });
    this.#executed(transitionId, version);
    this.#queue.next();
  }

  #executed(transitionId: number, version: number): void {
    this.protocolVersion = version;
    this.#upgrading = false;
    this.lastTransitionId = transitionId;
    this.counters.transitions += 1;
    this.#log('member', 'executed', { transitionId, epoch: Number(this.epoch) });
  }

  /** op 24 epoch 1: throw the group away; the bot answers with a new key package. */
  #recreate(soleMember: boolean): void {
    this.epoch = 0n;
    this.leaves = [];
    this.#pending = null;
    this.#awaitingReady.clear();
    this.#botKeyPackage = null;
    this.#staleBot = false;
    this.#members.reinitAll();
    this.#sendJson(DAVE_OPS.prepareEpoch, { protocol_version: 1, epoch: 1 });
    if (soleMember) {
      // Transition 0 executes at once: the bot is alone, pending, until someone joins.
      this.protocolVersion = 1;
      this.#sendJson(DAVE_OPS.prepareTransition, { transition_id: 0, protocol_version: 1 });
      this.#executed(0, 1);
      return this.#queue.next();
    }
    // The upgrade executes when the bot's new commit does; #proposeAdds runs on its op 26.
    this.protocolVersion = 1;
    this.#upgrading = true;
    this.#queue.next();
  }

  #soleMemberReset(): void {
    this.#recreate(true);
  }

  #memberError(userId: string, error: unknown): void {
    this.counters.memberErrors += 1;
    this.#log('member', 'error', { detail: `${userId}: ${(error as Error).message}` });
  }

  #transitionId(): number {
    const id = this.#nextTransitionId;
    this.#nextTransitionId = id >= 0xffff ? 1 : id + 1;
    return id;
  }

  /** A change is in flight: a commit not yet announced, or a transition not yet executed. */
  #busy(): boolean {
    return this.#pending !== null || this.#awaitingReady.size > 0;
  }

  #send(op: number, payload: Buffer): void {
    this.#log('out', op);
    this.#link.sendBinary(op, payload);
  }

  #sendJson(op: number, d: Record<string, unknown>): void {
    this.#log('out', op, { transitionId: typeof d.transition_id === 'number' ? d.transition_id : undefined });
    this.#link.sendJson(op, d);
  }

  #log(dir: DaveEvent['dir'], op: number | string, extra: Omit<DaveEvent, 'dir' | 'op'> = {}): void {
    this.events.push({ dir, op, ...extra });
    if (this.events.length > 2000) this.events.splice(0, 1000);
  }
}
