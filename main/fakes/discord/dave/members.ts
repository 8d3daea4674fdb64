// The fake users' own DAVE clients (group.ts): one real MLS session (@snazzah/davey) per user in the
// channel, held in-process, so what they encrypt the bot must really decrypt and what the bot
// encrypts they really open. They process the gateway's proposals, commits and welcomes as a
// Discord client would; the group's state machine (group.ts) decides when.
import { DAVESession } from '@snazzah/davey';

interface Member {
  session: DAVESession;
  keyPackage: Buffer;
}

/** A fake member's commit of proposals, with the welcome for those it adds. */
export interface MemberCommit {
  commit: Buffer;
  welcome: Buffer | null;
}

export class FakeMembers {
  readonly #members = new Map<string, Member>();
  readonly #channelId: string;
  readonly #externalSender: Buffer;
  readonly #onError: (userId: string, error: unknown) => void;

  constructor(channelId: string, externalSender: Buffer, onError: (userId: string, error: unknown) => void) {
    this.#channelId = channelId;
    this.#externalSender = externalSender;
    this.#onError = onError;
  }

  get size(): number {
    return this.#members.size;
  }

  has(userId: string): boolean {
    return this.#members.has(userId);
  }

  session(userId: string): DAVESession | undefined {
    return this.#members.get(userId)?.session;
  }

  ids(): string[] {
    return [...this.#members.keys()];
  }

  sessions(): DAVESession[] {
    return [...this.#members.values()].map((m) => m.session);
  }

  /** A user in the channel: a pending member with a fresh key package. */
  create(userId: string): void {
    const session = new DAVESession(1, userId, this.#channelId);
    session.setExternalSender(this.#externalSender);
    this.#members.set(userId, { session, keyPackage: session.getSerializedKeyPackage() });
  }

  /** The user left the channel: its session is gone. False when it was no member. */
  remove(userId: string): boolean {
    const member = this.#members.get(userId);
    if (!member) return false;
    this.#members.delete(userId);
    member.session.reset();
    return true;
  }

  clear(): void {
    for (const { session } of this.#members.values()) session.reset();
    this.#members.clear();
  }

  keyPackage(userId: string): Buffer {
    const member = this.#members.get(userId);
    if (!member) throw new Error(`no DAVE member ${userId}`);
    return member.keyPackage;
  }

  /** A new group (op 24): every member starts over with a new key package. */
  reinitAll(): void {
    for (const [userId, member] of this.#members) {
      member.session.reinit(1, userId, this.#channelId);
      member.session.setExternalSender(this.#externalSender);
      member.keyPackage = member.session.getSerializedKeyPackage();
    }
  }

  /** Who listens to the bot: the first ready member in leaf order. */
  listener(leaves: readonly (string | null)[], botUserId: string): DAVESession | undefined {
    for (const id of leaves) {
      if (id === null || id === botUserId) continue;
      const session = this.#members.get(id)?.session;
      if (session?.ready) return session;
    }
    return undefined;
  }

  /** Every member in the group processes the proposals (ready ones only with `readyOnly`); the first commit wins. */
  process(
    leaves: readonly (string | null)[],
    botUserId: string,
    payload: Buffer,
    options: { readyOnly: boolean; recognized: string[] },
  ): MemberCommit | null {
    let first: MemberCommit | null = null;
    for (const id of leaves) {
      if (id === null || id === botUserId) continue;
      const member = this.#members.get(id);
      if (!member || (options.readyOnly && !member.session.ready)) continue;
      try {
        const result = member.session.processProposals(payload[0], payload.subarray(1), options.recognized);
        if (!first && result.commit) first = { commit: result.commit, welcome: result.welcome ?? null };
      } catch (error) {
        this.#onError(id, error);
      }
    }
    return first;
  }

  /** A commit takes effect: those it adds process the welcome, everyone else (the committer too) the commit. */
  apply(
    leaves: readonly (string | null)[],
    botUserId: string,
    adds: readonly string[],
    commit: Buffer,
    welcome: Buffer | null,
  ): void {
    for (const userId of leaves) {
      if (userId === null || userId === botUserId) continue;
      const member = this.#members.get(userId);
      if (!member) continue;
      try {
        if (adds.includes(userId)) {
          if (welcome) member.session.processWelcome(welcome);
        } else member.session.processCommit(commit); // the committing member too: MLS applies its own commit this way
      } catch (error) {
        this.#onError(userId, error);
      }
    }
  }
}
