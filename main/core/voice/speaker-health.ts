// Per-speaker deafness watch. A DAVE re-key can leave the bot unable to decrypt one member while
// everything else looks fine: their packets keep arriving (speaking events), every frame fails to
// decrypt, and @discordjs/voice 0.19.2 logs nothing useful: its failure counter is per session and
// is reset by any other member's good frame, so with two people talking it never re-keys
// (NousResearch/hermes-agent #77968: "100 % of received audio undecryptable, zero errors logged").
//
// Here every allowed speaker's packets are counted as they arrive (the receiver's speaking map sees
// each one before decryption) against the frames that reach the decoder. A speaker whose packets
// arrive while nothing of theirs is heard for `resubscribeAfterMs` is deaf, and the cheapest step
// that works is taken, one at a time, each given time to show an effect: resubscribe the stream →
// rebuild the DAVE session (op 31 + a new key package: the group re-adds us with fresh keys) →
// rejoin the voice channel. Each step is counted; the first heard frame ends the episode.
//
// A speaker whose own packets fail to decrypt skips the resubscribe: a new stream cannot open frames
// sealed with a key we lack, and waiting for it cost the first ~0.7 s of the phrase after every silent
// re-key (the day soak's only lost guest phrases, 37 of 60 frames). The library reports each failure
// as a debug line without the speaker, but synchronously inside the packet's own handling, right
// after the speaking map's onPacket for that speaker; so the failure is the last packet's
// (`onDecryptFailure`). After `minUnheardPackets` of them in a row the DAVE session is rebuilt at once.
//
// Hot path: `onPacket`/`onHeard` do a map lookup and a few assignments; the check timer runs only
// while a speaker is unheard (packets arriving, nothing decoded), never without audio.
import type { DaveSpeakerHealth } from '../api-types.ts';

export interface SpeakerHealthPolicy {
  /** Unheard this long (with packets arriving) = deaf; the stream is resubscribed. */
  resubscribeAfterMs: number;
  /** Still deaf this long after the resubscribe (or after the last DAVE transition): rebuild the DAVE session. */
  rebuildAfterMs: number;
  /** The same while our own DAVE session is not ready (joining, being re-added): the group's own work gets longer. */
  notReadyRebuildAfterMs: number;
  /** After a rebuild, still deaf this long: rejoin the voice channel. */
  rejoinAfterMs: number;
  /** Packets that must have arrived unheard before anything is done (a stray packet is not deafness). */
  minUnheardPackets: number;
}

export const DEFAULT_SPEAKER_HEALTH: SpeakerHealthPolicy = {
  resubscribeAfterMs: 300,
  rebuildAfterMs: 400,
  notReadyRebuildAfterMs: 1_200,
  rejoinAfterMs: 1_800,
  minUnheardPackets: 8,
};

const CHECK_MS = 100;

export type RecoveryStep = 'resubscribe' | 'rebuild' | 'rejoin';

export interface SpeakerHealthActions {
  resubscribe(userId: string): void;
  /**
   * Rebuild the DAVE session; false when there is none to rebuild (no DAVE, or v0). `decryptFailing`:
   * the speaker's own packets failed to decrypt (counted), so act ahead of the library's own re-key.
   */
  rebuild(reason: string, decryptFailing: boolean): boolean;
  /** Rejoin the voice channel; false when the rejoin budget is spent. */
  rejoin(reason: string): boolean;
  /** Our DAVE session holds keys now (ready, not re-initialising), or the call runs without E2EE. */
  daveReady(): boolean;
  /** The group's epoch now (null without DAVE). */
  epoch(): number | null;
  log(event: string, detail: Record<string, unknown>): void;
}

/** One speaker in /health `dave.speakers`. */
export type SpeakerDaveHealth = DaveSpeakerHealth;

interface Speaker {
  userId: string;
  packets: number;
  decoded: number;
  unheardPackets: number;
  /** Their packets that failed to decrypt since they were last heard. */
  decryptFailures: number;
  firstUnheardAt: number;
  deaf: boolean;
  maxDeafMs: number;
  step: RecoveryStep | null;
  stepAt: number;
  epoch: number | null;
  lastTransition: SpeakerDaveHealth['last_transition'];
  recoveries: Record<RecoveryStep, number>;
}

export class SpeakerHealth {
  readonly policy: SpeakerHealthPolicy;
  #actions: SpeakerHealthActions;
  #speakers = new Map<string, Speaker>();
  #timer: NodeJS.Timeout | null = null;
  #now: () => number;
  /** The speaker of the packet being handled (a decrypt failure is its packet's). */
  #current: Speaker | null = null;

  constructor(actions: SpeakerHealthActions, policy: Partial<SpeakerHealthPolicy> = {}, now: () => number = Date.now) {
    this.#actions = actions;
    this.policy = { ...DEFAULT_SPEAKER_HEALTH, ...policy };
    this.#now = now;
  }

  /** A packet of `userId` arrived (before decryption). */
  onPacket(userId: string): void {
    const speaker = this.#speaker(userId);
    this.#current = speaker;
    speaker.packets += 1;
    if (speaker.unheardPackets === 0) speaker.firstUnheardAt = this.#now();
    speaker.unheardPackets += 1;
    if (speaker.unheardPackets === this.policy.minUnheardPackets && !this.#timer) this.#arm(CHECK_MS);
  }

  /** A packet of someone not watched (not an allowed speaker) arrived: a failure now is not a speaker's. */
  onUnwatchedPacket(): void {
    this.#current = null;
  }

  /** The packet being handled failed to decrypt with our session ready (the library's "consecutive fails" line). */
  onDecryptFailure(): void {
    const speaker = this.#current;
    if (!speaker) return;
    speaker.decryptFailures += 1;
    // Looked at on the next turn of the loop, not here: we are inside the library's decrypt.
    if (speaker.decryptFailures === this.policy.minUnheardPackets) this.#arm(0);
  }

  /** A frame of `userId` reached the decoder. */
  onHeard(userId: string): void {
    const speaker = this.#speaker(userId);
    speaker.decoded += 1;
    speaker.unheardPackets = 0;
    speaker.decryptFailures = 0;
    if (speaker.deaf || speaker.step) this.#recovered(speaker);
  }

  /** A DAVE transition executed (a re-key by the group or by the library): each deaf speaker's next step waits for its effect. */
  onTransition(): void {
    const now = this.#now();
    for (const speaker of this.#speakers.values()) if (speaker.step) speaker.stepAt = now;
  }

  speakers(): SpeakerDaveHealth[] {
    const now = this.#now();
    return [...this.#speakers.values()].map((s) => ({
      user_id: s.userId,
      packets: s.packets,
      decoded: s.decoded,
      decrypt_ratio: s.packets === 0 ? 1 : Math.min(1, s.decoded / s.packets),
      deaf: s.deaf,
      deaf_ms: s.deaf ? now - s.firstUnheardAt : 0,
      max_deaf_ms: Math.max(s.maxDeafMs, s.deaf ? now - s.firstUnheardAt : 0),
      // Heard: their frames decrypt at the group's current epoch; deaf: the epoch when they were last heard.
      epoch: s.deaf || s.decoded === 0 ? s.epoch : this.#actions.epoch(),
      last_transition: s.lastTransition,
      recoveries: { ...s.recoveries },
    }));
  }

  /** Anyone deaf right now (the dashboard warns). */
  get anyDeaf(): boolean {
    for (const s of this.#speakers.values()) if (s.deaf) return true;
    return false;
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #speaker(userId: string): Speaker {
    let speaker = this.#speakers.get(userId);
    if (!speaker) {
      speaker = {
        userId,
        packets: 0,
        decoded: 0,
        unheardPackets: 0,
        decryptFailures: 0,
        firstUnheardAt: 0,
        deaf: false,
        maxDeafMs: 0,
        step: null,
        stepAt: 0,
        epoch: null,
        lastTransition: null,
        recoveries: { resubscribe: 0, rebuild: 0, rejoin: 0 },
      };
      this.#speakers.set(userId, speaker);
    }
    return speaker;
  }

  #recovered(speaker: Speaker): void {
    const now = this.#now();
    const deafMs = now - speaker.firstUnheardAt;
    if (speaker.deaf) speaker.maxDeafMs = Math.max(speaker.maxDeafMs, deafMs);
    speaker.lastTransition = { to: 'heard', at: new Date(now).toISOString(), step: speaker.step };
    if (speaker.deaf) this.#actions.log('speaker heard again', { userId: speaker.userId, deafMs, step: speaker.step });
    speaker.deaf = false;
    speaker.step = null;
    speaker.epoch = this.#actions.epoch();
  }

  #arm(delayMs: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#check()) this.#arm(CHECK_MS);
    }, delayMs);
    this.#timer.unref?.();
  }

  /** One look at every unheard speaker; true while someone still is (keep checking). */
  #check(): boolean {
    const now = this.#now();
    let unheard = false;
    for (const speaker of this.#speakers.values()) {
      if (speaker.unheardPackets < this.policy.minUnheardPackets) continue;
      // Packets stopped (they left, or paused): this stretch ends; the ladder goes on from its step when they speak again.
      if (!this.#stillArriving(speaker)) {
        if (speaker.deaf) speaker.maxDeafMs = Math.max(speaker.maxDeafMs, now - speaker.firstUnheardAt);
        speaker.deaf = false;
        speaker.unheardPackets = 0;
        speaker.decryptFailures = 0;
        continue;
      }
      unheard = true;
      this.#escalate(speaker, now);
    }
    return unheard;
  }

  #lastPackets = new Map<string, number>();
  #stillArriving(speaker: Speaker): boolean {
    const before = this.#lastPackets.get(speaker.userId) ?? -1;
    this.#lastPackets.set(speaker.userId, speaker.packets);
    return speaker.packets !== before;
  }

  #escalate(speaker: Speaker, now: number): void {
    const unheardMs = now - speaker.firstUnheardAt;
    const policy = this.policy;
    const decryptFailing = speaker.decryptFailures >= policy.minUnheardPackets && this.#actions.daveReady();
    if (!speaker.deaf && (decryptFailing || unheardMs >= policy.resubscribeAfterMs)) {
      speaker.deaf = true;
      speaker.epoch = this.#actions.epoch();
      speaker.lastTransition = { to: 'deaf', at: new Date(now).toISOString(), step: null };
      this.#actions.log('speaker deaf: packets arrive, nothing decrypts', {
        userId: speaker.userId,
        unheardMs,
        packets: speaker.unheardPackets,
      });
    }
    if (!speaker.deaf) return;
    const sinceStep = now - speaker.stepAt;
    if (speaker.step === null) {
      const reason = `speaker ${speaker.userId}: ${speaker.decryptFailures} packets failed to decrypt`;
      if (decryptFailing && this.#actions.rebuild(reason, true)) return this.#take(speaker, 'rebuild', now);
      this.#take(speaker, 'resubscribe', now);
      this.#actions.resubscribe(speaker.userId);
    } else if (speaker.step === 'resubscribe') {
      const wait = this.#actions.daveReady() ? policy.rebuildAfterMs : policy.notReadyRebuildAfterMs;
      if (sinceStep < wait) return;
      if (this.#actions.rebuild(`speaker ${speaker.userId} deaf for ${unheardMs} ms`, false))
        this.#take(speaker, 'rebuild', now);
      // No rebuild possible (a re-key already under way) and still deaf long after: rejoin.
      else if (
        sinceStep >= wait + policy.rejoinAfterMs &&
        this.#actions.rejoin(`speaker ${speaker.userId} deaf, no rebuild possible`)
      )
        this.#take(speaker, 'rejoin', now);
    } else if (speaker.step === 'rebuild' && sinceStep >= policy.rejoinAfterMs) {
      if (this.#actions.rejoin(`speaker ${speaker.userId} still deaf after a DAVE rebuild`))
        this.#take(speaker, 'rejoin', now);
      else speaker.stepAt = now;
    } else if (speaker.step === 'rejoin' && sinceStep >= 3 * policy.rejoinAfterMs) {
      // A rejoin that did not help: the ladder starts over (the rejoin budget still caps it).
      speaker.step = null;
    }
  }

  #take(speaker: Speaker, step: RecoveryStep, now: number): void {
    speaker.step = step;
    speaker.stepAt = now;
    speaker.recoveries[step] += 1;
  }
}
