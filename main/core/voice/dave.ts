// DAVE (Discord's E2EE voice) on top of @discordjs/voice 0.19.2: what the call's E2EE state is, when
// our audio may leave the bot, and how the call recovers from decrypt failures.
//
// - Gate: the library passes audio through *unencrypted* whenever its MLS session is not ready (before
//   the first commit, after every re-initialisation). `mayPlayAudio` is checked where each packet is
//   prepared (and encrypted, in the same synchronous call), so no frame of ours leaves in the clear
//   while the call runs DAVE v1; the player sends the Opus silence frame instead (never encrypted, as
//   Discord's own clients do) and does not consume the source, so nothing the model says is lost.
// - Recovery: the library recovers from a run of decrypt failures only when its last transition id is
//   non-zero; at transition id 0 it rethrows, which destroys the receive stream on every failing
//   packet (DAVESession.ts:370-376). `DaveRecovery` counts those stream failures, rebuilds the DAVE
//   session (op 31 + new key package, the same path the library takes for non-zero ids), and only if
//   that does not help rejoins the voice channel, at most `maxRejoinsPerMinute` times a minute.
import { DAVESession as NativeDaveSession } from '@snazzah/davey';
import { VoiceConnectionStatus, type DAVESession, type VoiceConnection } from '@discordjs/voice';
import type { DaveStatus } from '../api-types.ts';

/** The library's DAVE session of a connection, if the connection has negotiated one. */
export function daveSessionOf(connection: VoiceConnection | null): DAVESession | undefined {
  const state = connection?.state;
  if (!state || !('networking' in state)) return undefined;
  const networking = state.networking.state;
  return 'dave' in networking ? networking.dave : undefined;
}

/**
 * Whether a frame of audio may be sent now: always without DAVE or after a downgrade to v0 (the
 * call is not E2EE then, by the server's decision); under v1 only while the MLS group is ready.
 */
export function mayPlayAudio(connection: VoiceConnection | null): boolean {
  const dave = daveSessionOf(connection);
  if (!dave || dave.protocolVersion === 0) return true;
  return dave.session?.ready === true && !dave.reinitializing;
}

/** Other clients in the call, per the voice gateway (op 11 / op 13). */
function otherClients(connection: VoiceConnection): number {
  const state = connection.state;
  if (!('networking' in state)) return 0;
  const networking = state.networking.state;
  return 'connectionData' in networking ? networking.connectionData.connectedClients.size : 0;
}

/**
 * After the voice connection is Ready: wait (bounded) until the MLS group is ready, so a call
 * reported `connected` is E2EE from its first audible frame. Alone in the channel there is no group
 * to wait for (it forms when someone joins; until then the gate sends only silence frames).
 */
export async function waitForE2ee(
  connection: VoiceConnection,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<boolean> {
  if (mayPlayAudio(connection) || otherClients(connection) === 0) return true;
  return new Promise<boolean>((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      connection.off('transitioned', check);
      signal?.removeEventListener('abort', abort);
      resolve(ready);
    };
    const check = () => {
      if (mayPlayAudio(connection)) done(true);
    };
    const abort = () => done(false);
    const timer = setTimeout(() => done(mayPlayAudio(connection)), timeoutMs);
    connection.on('transitioned', check);
    signal?.addEventListener('abort', abort);
  });
}

export interface DaveRecoveryPolicy {
  /** Receive streams destroyed by DAVE decrypt errors within `windowMs` before the session is rebuilt. */
  failuresBeforeRebuild: number;
  windowMs: number;
  /**
   * Stream failures after a rebuilt session is ready again (within `rebuildTrialMs` of that) before a
   * voice rejoin: the rebuild did not help.
   */
  failuresBeforeRejoin: number;
  rebuildTrialMs: number;
  maxRejoinsPerMinute: number;
}

/** The MLS epoch of the call's DAVE group (null without one). */
export function daveEpoch(connection: VoiceConnection | null): number | null {
  const session = daveSessionOf(connection)?.session;
  const epoch = session instanceof NativeDaveSession ? session.epoch : undefined;
  return epoch === null || epoch === undefined ? null : Number(epoch);
}

/** Failures in a row after which the library's own re-key is under way (it acts at 36). */
const LIBRARY_RUN = 8;
/** A re-key (op 31 + key package) with no welcome after this long is stuck. */
const REINIT_STUCK_MS = 1_000;

export const DEFAULT_DAVE_RECOVERY: DaveRecoveryPolicy = {
  failuresBeforeRebuild: 3,
  windowMs: 2_000,
  failuresBeforeRejoin: 6,
  rebuildTrialMs: 10_000,
  maxRejoinsPerMinute: 3,
};

/** Whether an error that ended a receive stream came from DAVE decryption (davey's error names). */
export function isDaveDecryptError(error: Error): boolean {
  return /Decrypt|Passthrough|UnencryptedWhen|NoDecryptor|DAVE/i.test(`${error.name} ${error.message}`);
}

export interface DaveRecoveryActions {
  /** Rejoin the voice channel (goes through the rejoin guard). */
  rejoin(): void;
  /** The packet being handled failed to decrypt while the session was ready, no transition pending. */
  decryptFailed?(): void;
  log(event: string, detail: Record<string, unknown>): void;
}

/** Per-call DAVE bookkeeping: counters for /health and the failure → rebuild → rejoin ladder. */
export class DaveRecovery {
  readonly policy: DaveRecoveryPolicy;
  #connection: VoiceConnection | null = null;
  #actions: DaveRecoveryActions;
  #transitions = 0;
  #decryptFailures = 0;
  #streamFailures: number[] = [];
  #rebuilds = 0;
  #recoveries = 0;
  #rejoins: number[] = [];
  #rejoinsTotal = 0;
  /**
   * Our last rebuild: `pending` until the group re-adds us, then on trial: failures after `readyAt`
   * are the rebuild's, never a reason to rebuild again.
   */
  #rebuild: { state: 'none' } | { state: 'pending' } | { state: 'trial'; readyAt: number; failures: number } = {
    state: 'none',
  };
  #awaitingRecovery = false;
  /** When our session last started re-initialising (op 31 + a new key package). */
  #reinitSince = 0;
  #onDebug = (message: string) => this.#debug(message);
  #onTransitioned = () => this.#transitioned();

  constructor(actions: DaveRecoveryActions, policy: Partial<DaveRecoveryPolicy> = {}) {
    this.#actions = actions;
    this.policy = { ...DEFAULT_DAVE_RECOVERY, ...policy };
  }

  attach(connection: VoiceConnection): void {
    this.detach();
    this.#connection = connection;
    connection.on('debug', this.#onDebug);
    connection.on('transitioned', this.#onTransitioned);
  }

  detach(): void {
    this.#connection?.off('debug', this.#onDebug);
    this.#connection?.off('transitioned', this.#onTransitioned);
    this.#connection = null;
  }

  /** A receive stream ended with an error (the receiver resubscribes on its own). */
  onStreamError(error: Error): void {
    if (!isDaveDecryptError(error)) return;
    const now = Date.now();
    // A failure means the session decrypts again: a rebuild whose readiness we did not see is on trial now.
    if (this.#rebuild.state === 'pending' && mayPlayAudio(this.#connection))
      this.#rebuild = { state: 'trial', readyAt: now, failures: 0 };
    const rebuild = this.#rebuild;
    // Judged by counts, not by how fast they come: the library tolerates 36 failed packets before a
    // stream dies and the receiver resubscribes at most 5 times a second, so on a busy machine the
    // failures after a rebuild arrive seconds late. Racing them against a clock used to rebuild
    // again and again and never rejoin.
    if (rebuild.state === 'pending') return;
    if (rebuild.state === 'trial' && now - rebuild.readyAt < this.policy.rebuildTrialMs) {
      rebuild.failures += 1;
      if (rebuild.failures >= this.policy.failuresBeforeRejoin) this.#rejoin(now);
      return;
    }
    this.#streamFailures = this.#streamFailures.filter((t) => now - t < this.policy.windowMs);
    this.#streamFailures.push(now);
    if (this.#streamFailures.length >= this.policy.failuresBeforeRebuild) this.#rebuildSession();
  }

  /**
   * A speaker is deaf (speaker-health.ts): rebuild the DAVE session now. False without a v1 session to
   * rebuild. `decryptFailing`: their own packets are failing to decrypt, counted per speaker.
   */
  rebuildNow(reason: string, decryptFailing = false): boolean {
    const dave = daveSessionOf(this.#connection);
    if (!dave || dave.protocolVersion === 0) return false;
    if (dave.reinitializing) {
      // Re-keying already (op 31 sent, a new key package out) and no welcome came: the key package
      // was lost or ignored ("joined but not ready" for hours, soundbored #58). Offer a new one;
      // recoverFromInvalidTransition() does nothing while re-initialising.
      if (Date.now() - this.#reinitSince < REINIT_STUCK_MS) return false;
      this.#actions.log('the dave re-key got no welcome: sending a new key package', { reason });
      this.#reinitSince = Date.now();
      this.#rebuilds += 1;
      dave.reinit();
      return true;
    }
    // A run of failures in a row that nobody else's good frame interrupts: the library re-keys by
    // itself at its tolerance (36) when the transition id is non-zero. Only a run that others' frames
    // keep resetting (its counter is per session, not per speaker) needs us. The field is private in
    // 0.19.2's typings; read defensively. A speaker's own counted failures are acted on ahead of the
    // library (8 packets, not 36: 0.6 s of their speech): both end in recoverFromInvalidTransition,
    // and whichever runs first sets `reinitializing`, which stops the other.
    const inARow = (dave as unknown as { consecutiveFailures?: unknown }).consecutiveFailures;
    if (!decryptFailing && dave.lastTransitionId && typeof inARow === 'number' && inARow >= LIBRARY_RUN) return false;
    this.#actions.log('rebuilding the dave session: a speaker is deaf', { reason });
    this.#rebuildSession();
    return true;
  }

  /** A rebuild did not help a deaf speaker: rejoin, within the same ≤ `maxRejoinsPerMinute` budget. */
  rejoinNow(reason: string): boolean {
    this.#actions.log('rejoining voice: a speaker is still deaf', { reason });
    return this.#rejoin(Date.now());
  }

  /** The call's DAVE state; the receive side adds `undecrypted_frames` (discord-voice.ts). */
  status(): Omit<DaveStatus, 'undecrypted_frames'> {
    const dave = daveSessionOf(this.#connection);
    const native = dave?.session instanceof NativeDaveSession ? dave.session : undefined;
    const epoch = native?.epoch;
    const ready = this.#connection?.state.status === VoiceConnectionStatus.Ready && mayPlayAudio(this.#connection);
    return {
      protocol_version: dave ? dave.protocolVersion : null,
      e2ee: Boolean(dave && dave.protocolVersion > 0 && native?.ready),
      ready,
      epoch: epoch === null || epoch === undefined ? null : Number(epoch),
      privacy_code: dave?.voicePrivacyCode ?? null,
      last_transition_id: dave?.lastTransitionId ?? null,
      transitions: this.#transitions,
      decrypt_failures: this.#decryptFailures,
      rebuilds: this.#rebuilds,
      recoveries: this.#recoveries,
      rejoins: this.#rejoinsTotal,
    };
  }

  #debug(message: string): void {
    // @discordjs/voice 0.19.2 reports DAVE events only as debug text ("[NW] [DAVE] …").
    if (message.includes('Failed to decrypt a packet')) {
      this.#decryptFailures += 1;
      // The other variants ("reinitializing session", "pending transition[s]") are a re-key's expected gap.
      if (message.includes('consecutive fails')) this.#actions.decryptFailed?.();
    } else if (message.includes('Invalidating transition')) {
      // The library's own recovery (non-zero transition id): op 31 and a new key package.
      this.#awaitingRecovery = true;
      this.#reinitSince = Date.now();
      this.#actions.log('dave session invalidated', { message });
    }
  }

  #transitioned(): void {
    this.#transitions += 1;
    if (this.#rebuild.state === 'pending' && mayPlayAudio(this.#connection))
      this.#rebuild = { state: 'trial', readyAt: Date.now(), failures: 0 };
    if (this.#awaitingRecovery && mayPlayAudio(this.#connection)) {
      this.#awaitingRecovery = false;
      this.#recoveries += 1;
      this.#streamFailures = [];
      this.#actions.log('dave session recovered', { recoveries: this.#recoveries });
    }
  }

  /** Throw the MLS state away and ask to be re-added (op 31 + op 26), as the library does for non-zero ids. */
  #rebuildSession(): void {
    const dave = daveSessionOf(this.#connection);
    if (!dave || dave.protocolVersion === 0) return;
    this.#rebuild = { state: 'pending' };
    this.#streamFailures = [];
    this.#rebuilds += 1;
    this.#awaitingRecovery = true;
    this.#actions.log('rebuilding the dave session after decrypt failures', {
      lastTransitionId: dave.lastTransitionId ?? 0,
      rebuilds: this.#rebuilds,
    });
    this.#reinitSince = Date.now();
    dave.recoverFromInvalidTransition(dave.lastTransitionId ?? 0);
  }

  #rejoin(now: number): boolean {
    this.#rejoins = this.#rejoins.filter((t) => now - t < 60_000);
    if (this.#rejoins.length >= this.policy.maxRejoinsPerMinute) return false;
    this.#rejoins.push(now);
    this.#rejoinsTotal += 1;
    this.#rebuild = { state: 'none' };
    this.#streamFailures = [];
    this.#awaitingRecovery = true;
    this.#actions.log('rejoining voice after the dave rebuild did not help', { rejoins: this.#rejoinsTotal });
    this.#actions.rejoin();
    return true;
  }
}
