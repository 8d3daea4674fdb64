// The Discord side of the bridge on real discord.js + @discordjs/voice: log in, join the owner's
// voice channel, deliver allowed speakers' audio as 48 kHz mono PCM, play one continuous pulled
// source, send text, and survive voice socket drops without ever storming the gateway.
import { EventEmitter } from 'node:events';
import {
  entersState,
  joinVoiceChannel,
  VoiceConnectionDisconnectReason,
  VoiceConnectionStatus,
  type DiscordGatewayAdapterCreator,
  type VoiceConnection,
  type VoiceConnectionState,
} from '@discordjs/voice';
import { Client, Events, GatewayIntentBits, type VoiceState } from 'discord.js';
import type { Logger } from 'pino';
import type { ConnectionState } from '../api-types.ts';
import type { PlaybackSource, SendOptions, SentMessage, VoiceChannelEvents, VoiceTarget } from '../ports.ts';
import type { DaveStatus } from '../api-types.ts';
import { DaveRecovery, daveEpoch, mayPlayAudio, waitForE2ee } from './dave.ts';
import { SpeakerHealth } from './speaker-health.ts';
import { loadOpus, type OpusFactory } from './opus.ts';
import { ContinuousPlayback } from './playback.ts';
import { SpeakerReceiver } from './receive.ts';
import { ownerTarget, voiceChannelOf } from './guild-targets.ts';
import {
  FATAL_VOICE_CLOSE_CODES,
  type DiscordVoiceAdapter,
  type DiscordVoiceOptions,
} from './discord-voice-options.ts';
import { DEFAULT_REJOIN_POLICY, RejoinGuard } from './rejoin-guard.ts';
import { DiscordText, rejectMessageRateLimits } from './text.ts';
import { AllowedSpeakers } from './allowed-speakers.ts';
import { StoppableGateway } from './gateway-strategy.ts';
import { attachRoomCommands, type RoomCommandHandlers, type SlashCommand } from './room-commands.ts';

// The adapter's contract (options, the port it implements) is in discord-voice-options.ts.
export type { DiscordVoiceAdapter, DiscordVoiceOptions } from './discord-voice-options.ts';

class DiscordVoice extends EventEmitter<VoiceChannelEvents> implements DiscordVoiceAdapter {
  state: ConnectionState = 'disconnected';
  stateReason: string | undefined;
  target: VoiceTarget | null = null;
  #options: DiscordVoiceOptions;
  #log: Logger;
  #client: Client;
  #text: DiscordText;
  #opus: OpusFactory | null = null;
  readonly #allowed: AllowedSpeakers;
  #connection: VoiceConnection | null = null;
  #guard: RejoinGuard | null = null;
  #receiver: SpeakerReceiver | null = null;
  #playback: ContinuousPlayback | null = null;
  #source: PlaybackSource | null = null;
  #dave: DaveRecovery | null = null;
  #speakerHealth: SpeakerHealth | null = null;
  /** Everyone left the channel during this call: the rest of a reply is dropped, not kept for whoever comes back. */
  #roomEmptied = false;
  #wasReady = false;
  #recoveryTimer: NodeJS.Timeout | null = null;
  #loginAttempt: Promise<void> | null = null;
  #loggedIn = false;
  #destroyed = false;
  #loginRetryTimer: NodeJS.Timeout | null = null;
  #joinAbort: AbortController | null = null;
  #gateway: StoppableGateway | null = null; // stopped before the client is destroyed (why: gateway-strategy.ts)

  constructor(options: DiscordVoiceOptions) {
    super();
    this.#options = options;
    this.#log = options.logger.child({ module: 'discord-voice' });
    this.#allowed =
      options.allowedSpeakers instanceof AllowedSpeakers
        ? options.allowedSpeakers
        : new AllowedSpeakers(options.ownerId, options.allowedSpeakers ?? []);
    this.#client = new Client({
      // Reactions: an ❌ on the consent notice opts out (room/consent.ts).
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildVoiceStates, GatewayIntentBits.GuildMessageReactions],
      rest: { ...(options.apiBaseUrl ? { api: options.apiBaseUrl } : {}), rejectOnRateLimit: rejectMessageRateLimits },
      ws: { buildStrategy: (manager) => (this.#gateway = new StoppableGateway(manager, this.#log)) },
    });
    this.#client.on(Events.Error, (error) => this.#log.warn({ err: error }, 'discord client error'));
    this.#client.on(Events.VoiceStateUpdate, (before, after) => this.#onVoiceStateUpdate(before, after));
    this.#text = new DiscordText(() => this.#client.rest);
  }

  get opusLibrary(): string | null {
    return this.#opus?.library ?? null;
  }

  daveStatus(): DaveStatus | null {
    return this.#connection && this.#dave
      ? {
          ...this.#dave.status(),
          undecrypted_frames: this.#receiver?.undecryptedFrames ?? 0,
          speakers: this.#speakerHealth?.speakers() ?? [],
        }
      : null;
  }

  roomCommands(commands: readonly SlashCommand[], handlers: RoomCommandHandlers): () => void {
    return attachRoomCommands(this.#client, commands, handlers, this.#log);
  }

  get botUserId(): string | null {
    return this.#client.user?.id ?? null;
  }

  login(): Promise<void> {
    if (this.#loggedIn) return Promise.resolve();
    if (this.#destroyed) return Promise.reject(new Error('the Discord client was shut down'));
    this.#loginAttempt ??= this.#attemptLogin().finally(() => {
      this.#loginAttempt = null;
    });
    return this.#loginAttempt;
  }

  async #attemptLogin(): Promise<void> {
    let onReady: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (onReady = resolve));
    this.#client.once(Events.ClientReady, onReady);
    try {
      await this.#client.login(this.#options.token);
      await ready;
    } catch (err) {
      this.#client.off(Events.ClientReady, onReady);
      // A half-open gateway from the failed attempt would block the next one.
      await this.#client.destroy().catch(() => undefined);
      throw err;
    }
    this.#loggedIn = true;
    this.#log.info({ user: this.#client.user?.id }, 'discord client ready');
  }

  keepLoggingIn(): void {
    const { initialMs, maxMs } = this.#options.loginRetry ?? { initialMs: 1000, maxMs: 60_000 };
    let failures = 0;
    const attempt = (): void => {
      this.#loginRetryTimer = null;
      if (this.#destroyed || this.#loggedIn) return;
      this.login().then(
        () => {
          if (failures > 0) this.#log.info({ attempts: failures + 1 }, 'discord login succeeded after retrying');
        },
        (err: unknown) => {
          if (this.#destroyed) return;
          failures++;
          const delay = Math.min(maxMs, initialMs * 2 ** (failures - 1));
          // Logged on the first failure and then at most once a minute of back-off.
          if (failures === 1 || delay >= maxMs)
            this.#log.warn({ err, retryInMs: delay, failures }, 'discord login failed; retrying with back-off');
          this.#loginRetryTimer = setTimeout(attempt, delay);
          this.#loginRetryTimer.unref();
        },
      );
    };
    attempt();
  }

  async join(target?: VoiceTarget): Promise<VoiceTarget> {
    await this.login();
    const resolved = target ?? ownerTarget(this.#client, this.#options);
    // A wrong target is refused before anything is sent to Discord (and before leaving a live call):
    // a voice join to a text or unknown channel never becomes Ready, so it would only fail at the timeout.
    const { guild } = await voiceChannelOf(this.#client, resolved);
    if (this.#connection) await this.leave();
    this.#opus ??= this.#options.opus ?? loadOpus(this.#options.opusLibrary);
    this.target = resolved;
    this.#wasReady = false;
    this.#setState('connecting');
    const { connection, dave } = this.#connect(resolved, guild.voiceAdapterCreator);
    this.#hearAndPlay(connection, dave, this.#opus);
    await this.#untilReady(connection);
    return resolved;
  }

  /** The voice connection, joined through the rejoin guard, with DAVE's recovery attached. */
  #connect(
    target: VoiceTarget,
    adapterCreator: DiscordGatewayAdapterCreator,
  ): { connection: VoiceConnection; dave: DaveRecovery } {
    // Deferred: the guard gives up from inside the library's sendPayload call, where destroying the
    // connection re-entrantly would leave it in an inconsistent state.
    const guard = new RejoinGuard({ ...DEFAULT_REJOIN_POLICY, ...this.#options.rejoin }, (reason) =>
      setImmediate(() => this.#fail(reason)),
    );
    this.#guard = guard;
    const connection = joinVoiceChannel({
      guildId: target.guildId,
      channelId: target.channelId,
      adapterCreator: guard.wrap(adapterCreator),
      selfDeaf: false,
      selfMute: false,
      daveEncryption: this.#options.daveEncryption ?? true,
      // DAVE's decrypt failures and re-keys are only reported as debug events (dave.ts).
      debug: true,
    });
    this.#connection = connection;
    const dave = new DaveRecovery(
      {
        rejoin: () => {
          if (connection === this.#connection) connection.rejoin();
        },
        decryptFailed: () => this.#speakerHealth?.onDecryptFailure(),
        log: (event, detail) => this.#log.warn(detail, event),
      },
      this.#options.daveRecovery,
    );
    dave.attach(connection);
    this.#dave = dave;
    connection.on('error', (error) => this.#log.warn({ err: error }, 'voice connection error'));
    connection.on('stateChange', (before, after) => this.#onConnectionState(connection, before, after));
    return { connection, dave };
  }

  /** The allowed speakers' audio in (each stream's health watched), our one playback source out. */
  #hearAndPlay(connection: VoiceConnection, dave: DaveRecovery, opus: OpusFactory): void {
    this.#roomEmptied = false;
    const health = new SpeakerHealth(
      {
        resubscribe: (userId) => this.#receiver?.resubscribe(userId),
        rebuild: (reason, decryptFailing) => dave.rebuildNow(reason, decryptFailing),
        rejoin: (reason) => dave.rejoinNow(reason),
        daveReady: () => mayPlayAudio(connection),
        epoch: () => daveEpoch(connection),
        log: (event, detail) => this.#log.warn(detail, event),
      },
      this.#options.speakerHealth,
    );
    this.#speakerHealth = health;
    connection.on('transitioned', () => health.onTransition());
    this.#receiver = new SpeakerReceiver(connection.receiver, {
      health,
      isAllowed: (userId) => this.#allowed.has(userId) && userId !== this.#client.user?.id,
      opus,
      logger: this.#log,
      onStreamError: (error) => dave.onStreamError(error),
      sink: {
        pcm: (speakerId, frame) => {
          // Checked per frame too: an opt-out applies mid-utterance, not only from the next one.
          if (!this.#allowed.has(speakerId)) return;
          this.emit('pcm', speakerId, frame);
          // This packet's wake-up can carry our next packet too (playback.ts: one wake-up, not two).
          this.#playback?.poke();
        },
        speakingStart: (speakerId) => this.emit('speakingStart', speakerId),
        speakingEnd: (speakerId) => this.emit('speakingEnd', speakerId),
      },
    });
    this.#playback = new ContinuousPlayback(opus, this.#log, connection, () =>
      this.#roomEmptied ? 'discard' : mayPlayAudio(connection),
    );
    if (this.#source) this.#playback.start(this.#source);
  }

  /** Ready and, within a bound, encrypted; else torn down and thrown with the reason. */
  async #untilReady(connection: VoiceConnection): Promise<void> {
    // Aborted by #teardown (a fatal close, leave()) so a doomed join fails at once, not at the timeout.
    const joinAbort = new AbortController();
    this.#joinAbort = joinAbort;
    try {
      await entersState(
        connection,
        VoiceConnectionStatus.Ready,
        AbortSignal.any([joinAbort.signal, AbortSignal.timeout(this.#options.readyTimeoutMs ?? 20_000)]),
      );
      // Our audio is held (silence frames) until E2EE is up anyway; waiting here makes `connected` mean "encrypted".
      if (!(await waitForE2ee(connection, 5_000, joinAbort.signal)))
        this.#log.warn('voice connected, but the DAVE (E2EE) group is not ready yet; audio is held until it is');
    } catch (error) {
      const reason = this.stateReason ?? `voice join did not complete: ${(error as Error).message}`;
      this.#teardown();
      this.#setState('error', reason);
      throw new Error(reason, { cause: error });
    } finally {
      if (this.#joinAbort === joinAbort) this.#joinAbort = null;
    }
  }

  async leave(): Promise<void> {
    this.#teardown();
    this.#setState('disconnected', 'left');
  }

  startPlayback(source: PlaybackSource): void {
    this.#source = source;
    this.#playback?.start(source);
  }

  stopPlayback(): void {
    this.#source = null;
    this.#playback?.stop();
  }

  pokePlayback(urgent = false): void {
    this.#playback?.poke(urgent);
  }

  channelMembers(): string[] {
    const channel = this.target
      ? this.#client.guilds.cache.get(this.target.guildId)?.channels.cache.get(this.target.channelId)
      : undefined;
    if (!channel?.isVoiceBased()) return [];
    return [...channel.members.values()].filter((member) => !member.user.bot).map((member) => member.id);
  }

  /** From discord.js's caches, which the gateway keeps current (voice states carry the member, member updates). */
  displayName(userId: string): string | undefined {
    const member = this.target
      ? this.#client.guilds.cache.get(this.target.guildId)?.members.cache.get(userId)
      : undefined;
    const user = member?.user ?? this.#client.users.cache.get(userId);
    return member?.nickname ?? user?.globalName ?? user?.username ?? undefined;
  }

  sendDirectMessage(userId: string, text: string, options?: SendOptions): Promise<SentMessage> {
    return this.login().then(() => this.#text.sendDirectMessage(userId, text, options));
  }

  editMessage(channelId: string, messageId: string, text: string): Promise<void> {
    return this.login().then(() => this.#text.editMessage(channelId, messageId, text));
  }

  postToChannel(channelId: string, text: string, options?: SendOptions): Promise<SentMessage> {
    return this.login().then(() => this.#text.postToChannel(channelId, text, options));
  }

  async destroy(): Promise<void> {
    this.#destroyed = true;
    if (this.#loginRetryTimer) clearTimeout(this.#loginRetryTimer);
    this.#loginRetryTimer = null;
    this.#teardown();
    this.#setState('disconnected', 'destroyed');
    await this.#gateway?.stop();
    await this.#client.destroy();
  }

  #setState(state: ConnectionState, reason?: string): void {
    if (this.state === state && this.stateReason === reason) return;
    this.state = state;
    this.stateReason = reason;
    this.#log.info({ state, reason }, 'voice state');
    this.emit('state', state, reason);
  }

  #onConnectionState(connection: VoiceConnection, before: VoiceConnectionState, after: VoiceConnectionState): void {
    if (connection !== this.#connection) return;
    this.#watchNetworking(before, after);
    this.#clearRecovery();
    switch (after.status) {
      case VoiceConnectionStatus.Ready:
        this.#wasReady = true;
        this.#guard?.markReady();
        this.#setState('connected');
        return;
      case VoiceConnectionStatus.Signalling:
      case VoiceConnectionStatus.Connecting:
        this.#guard?.markUnstable();
        if (this.#wasReady) this.#setState('reconnecting');
        // A rejoin that never completes (lost payload, dead server) counts as a failure.
        this.#scheduleRecovery(this.#options.readyTimeoutMs ?? 20_000);
        return;
      case VoiceConnectionStatus.Disconnected:
        this.#guard?.markUnstable();
        if (this.#guard?.stoppedReason) return;
        if (this.#wasReady) this.#setState('reconnecting', 'voice disconnected');
        // 4014 may be a move by Discord (new dispatches follow); give it a moment, then rejoin.
        this.#scheduleRecovery(
          after.reason === VoiceConnectionDisconnectReason.WebSocketClose
            ? (this.#options.disconnectGraceMs ?? 5_000)
            : 1_000,
        );
        return;
      default:
        return;
    }
  }

  /** Hook each new Networking's close code: some codes mean "stop", not "rejoin". */
  #watchNetworking(before: VoiceConnectionState, after: VoiceConnectionState): void {
    const networking = 'networking' in after ? after.networking : undefined;
    const previous = 'networking' in before ? before.networking : undefined;
    if (!networking || networking === previous) return;
    networking.once('close', (code: number) => {
      if (this.#connection === null) return;
      const fatal = FATAL_VOICE_CLOSE_CODES[code];
      this.#log.info({ code }, 'voice socket closed');
      if (fatal) this.#fail(fatal);
    });
  }

  #scheduleRecovery(afterMs: number): void {
    const connection = this.#connection;
    this.#recoveryTimer = setTimeout(() => {
      this.#recoveryTimer = null;
      if (!connection || connection !== this.#connection || this.#guard?.stoppedReason) return;
      if (connection.state.status === VoiceConnectionStatus.Ready) return;
      this.#log.info({ status: connection.state.status }, 'voice connection not ready; rejoining');
      // Goes through the guard: counted, backed off, refused once the budget is spent.
      if (!connection.rejoin() && !this.#guard?.stoppedReason) this.#fail('voice rejoin failed: gateway unavailable');
    }, afterMs);
  }

  #clearRecovery(): void {
    if (this.#recoveryTimer) clearTimeout(this.#recoveryTimer);
    this.#recoveryTimer = null;
  }

  /** Stop for good with a clear reason: no more rejoins until the next join(). */
  #fail(reason: string): void {
    if (!this.#connection) return;
    this.#log.warn({ reason }, 'voice stopped');
    this.#guard?.stop(reason);
    this.#teardown();
    this.#setState('error', reason);
  }

  #teardown(): void {
    this.#joinAbort?.abort();
    this.#clearRecovery();
    this.#receiver?.close();
    this.#receiver = null;
    this.#dave?.detach();
    this.#playback?.close();
    this.#playback = null;
    const connection = this.#connection;
    this.#connection = null;
    if (connection && connection.state.status !== VoiceConnectionStatus.Destroyed) connection.destroy();
    this.#guard?.dispose();
    this.#guard = null;
  }

  #onVoiceStateUpdate(before: VoiceState, after: VoiceState): void {
    const channelId = this.target?.channelId;
    const inCall = this.#connection !== null && channelId !== undefined;
    // Someone (a human) came into or left our channel: the wake-name gate counts the people in it.
    if (inCall && (before.channelId === channelId) !== (after.channelId === channelId) && !after.member?.user.bot) {
      this.#roomEmptied = this.channelMembers().length === 0;
      this.emit('membersChanged');
    }
    if (after.id !== this.#options.ownerId) return;
    if (inCall && before.channelId === channelId && after.channelId !== channelId) {
      this.#log.info('owner left the voice channel');
      this.emit('ownerLeft');
      if (this.#options.leaveWhenOwnerLeaves) void this.leave();
    }
    // After ownerLeft: on a move, the call in the old channel is already ending when this is heard.
    if (after.channelId && after.channelId !== before.channelId)
      this.emit('ownerEntered', { guildId: after.guild.id, channelId: after.channelId });
  }
}

export function createDiscordVoice(options: DiscordVoiceOptions): DiscordVoiceAdapter {
  return new DiscordVoice(options);
}
