// How a Discord voice room that changes goes wrong for a bot (shared/research/field-2026-11.md §1.4, §2):
// - a silent re-key (NousResearch/hermes-agent #77968): one member's client seals its audio with a key
//   the bot does not hold while its speaking events keep arriving, and nothing else is said. It lasts
//   until the bot is re-keyed into the group again (a welcome after op 31, or a new group/session).
// - when a channel empties Discord tears DAVE down and closes the voice socket with 4006
//   (AlexFlipnote/discord.http #29); `emptyChannel: 'close4006'` plays that, `'reset'` the sole-member
//   reset (op 24 + transition 0) the recipe verified.
import type { DaveGroup } from './group.ts';
import { sealedForOthers } from './sealed-frame.ts';

export type EmptyChannelBehaviour = 'reset' | 'close4006';

interface SilentRekey {
  group: DaveGroup;
  welcomesAt: number;
}

export class RoomFaults {
  /** What the server does when the last user leaves the bot's channel. */
  emptyChannel: EmptyChannelBehaviour = 'reset';
  /** Frames sealed for others during silent re-keys (the bot cannot open them). */
  silentRekeyFrames = 0;
  #silent = new Map<string, SilentRekey>();
  #nonce = 0;

  /** From now on `userId`'s client seals its audio with a key the bot lacks, until the bot is re-welcomed into `group`. */
  silentRekey(userId: string, group: DaveGroup): void {
    this.#silent.set(userId, { group, welcomesAt: group.counters.welcomes });
  }

  /** Whether the silent re-key of `userId` still holds in `group` (a new group or a welcome for the bot ends it). */
  silentlyRekeyed(userId: string, group: DaveGroup | null): boolean {
    const fault = this.#silent.get(userId);
    if (!fault) return false;
    if (fault.group === group && group.counters.welcomes === fault.welcomesAt && group.ready) return true;
    if (fault.group !== group || group.counters.welcomes !== fault.welcomesAt) this.#silent.delete(userId);
    return false;
  }

  /** A frame of `userId`'s that the bot cannot decrypt (the DAVE layout, a key it does not have). */
  seal(opus: Buffer): Buffer {
    this.silentRekeyFrames += 1;
    return sealedForOthers(opus, ++this.#nonce);
  }

  clear(): void {
    this.#silent.clear();
    this.emptyChannel = 'reset';
  }
}
