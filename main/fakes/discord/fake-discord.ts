// startFakeDiscord(): REST + gateway + TLS voice WebSocket + UDP on 127.0.0.1, one guild, a bot,
// an owner and extra users, fault injection, and recorders. Usable from vitest, benchmarks and
// plain Node scripts (`npm run demo`).
import { setTimeout as sleep } from 'node:timers/promises';
import { startGatewayServer, type GatewayDrop, type GatewayServer, type Op4Payload } from './gateway.ts';
import { BotAudioRecorder, type RecorderOptions } from './recorder.ts';
import {
  startRestServer,
  type RecordedMessage,
  type RecordedRequest,
  type RestFaults,
  type RestServer,
} from './rest.ts';
import { FakeInteractions } from './interactions.ts';
import type { EncryptionMode } from './rtp.ts';
import type { DaveGroup } from './dave/group.ts';
import { FakeSpeakers, type SpeakerTotals, type SpeakOptions, type SpeakResult } from './speaker.ts';
import { testCertificates, trustTestCertificates } from './tls.ts';
import { FakeVoiceServer, type VoiceSession } from './voice-server.ts';
import { FakeWorld, PERMISSION, randomToken, type FakeUser } from './world.ts';

export interface FakeDiscordOptions {
  /** Token the fake accepts (default: a random obviously-fake string; read it from `botToken`). */
  botToken?: string;
  /** Human users besides the owner (default: ['guest', 'stranger']). */
  extraUsers?: string[];
  /** The owner starts in the first voice channel (default true). */
  ownerInVoice?: boolean;
  /** Encryption modes offered by the voice server, in order (default both AEAD rtpsize modes). */
  modes?: EncryptionMode[];
  /** DAVE protocol version the voice server speaks (default 1, E2EE, as Discord since 2026-03-01; 0 = no E2EE). */
  daveProtocolVersion?: 0 | 1;
  /** Close IDENTIFY with 4017 when the bot offers no DAVE support (default: true at DAVE v1, as Discord does). */
  requireDave?: boolean;
  gatewayHeartbeatMs?: number;
  voiceHeartbeatMs?: number;
  recorder?: RecorderOptions;
  /**
   * Add the fake's test CA to this process's default TLS trust store (default true), so the
   * voice client in this process can reach the wss:// voice server. Another process (Electron)
   * needs NODE_EXTRA_CA_CERTS=<caPath> instead.
   */
  trustCertificates?: boolean;
}

export interface CloseVoiceOptions {
  /** Keep failing every following IDENTIFY/RESUME with the same code until clearFaults(). */
  sticky?: boolean;
  reason?: string;
}

export interface FakeDiscord {
  readonly apiBaseUrl: string;
  readonly gatewayUrl: string;
  readonly voiceEndpoint: string;
  readonly botToken: string;
  /** PEM file of the test CA (for NODE_EXTRA_CA_CERTS in child processes). */
  readonly caPath: string;
  readonly bot: FakeUser;
  readonly owner: FakeUser;
  /** All users including bot and owner. */
  readonly users: FakeUser[];
  readonly guildId: string;
  readonly voiceChannelId: string;
  readonly otherVoiceChannelId: string;
  readonly textChannelId: string;
  readonly world: FakeWorld;
  readonly voice: FakeVoiceServer;
  readonly recorder: BotAudioRecorder;
  /** Every message posted through REST (channels and DMs), in order. */
  readonly messages: RecordedMessage[];
  readonly restRequests: RecordedRequest[];
  /** Faults of the message route (an answer lost after the message was created). */
  readonly restFaults: RestFaults;
  /** Slash commands the bot registered, its answers to them, and its message edits (interactions.ts). */
  readonly interactions: FakeInteractions;
  /** A member uses `/name` in a channel's text chat (default: the first voice channel's); the interaction id. */
  slash(userId: string, name: string, channelId?: string): string;
  /** A member reacts to a message with an emoji (MESSAGE_REACTION_ADD). */
  react(userId: string, message: RecordedMessage, emoji: string): void;
  /** Every gateway op 4 (voice state update) the bot sent. */
  readonly op4Payloads: Op4Payload[];
  /** Op 4 payloads that asked to join a channel (channel_id not null). */
  readonly joinRequestCount: number;
  /**
   * The gateway's record (IDENTIFYs, RESUMEs that resumed, RESUMEs refused with op 9, upgrade
   * requests, open sockets) and its handshake hold (GatewayHold).
   */
  readonly gateway: Pick<
    GatewayServer,
    'identifies' | 'resumes' | 'refusedResumes' | 'upgradeRequests' | 'openSockets' | 'hold'
  >;
  /** Ends the bot's gateway connection after login as Discord does (see GatewayServer.dropBot). */
  dropGateway(kind: GatewayDrop): number;
  user(name: string): FakeUser;
  /** The voice channel the bot currently sits in, per the fake's state. */
  botChannelId(): string | null;
  /** The bot's live voice session (after IDENTIFY), if any. */
  botSession(): VoiceSession | undefined;
  /** The DAVE group of the bot's live voice session (null at DAVE v0 or before SELECT PROTOCOL). */
  dave(): DaveGroup | null;
  /** What the fake speakers sent so far (E2EE, passthrough and padded frames). */
  readonly speakerTotals: SpeakerTotals;
  userJoinVoice(userId: string, channelId?: string): void;
  userLeaveVoice(userId: string): void;
  /** Stream 48 kHz stereo PCM from `userId` to the bot as Opus RTP in real time. */
  speak(userId: string, pcm48kStereo: Int16Array, options?: SpeakOptions): Promise<SpeakResult>;
  /** Close the bot's voice WebSocket with a close code (4006, 4014, 4015, 4017, ...). */
  closeVoice(code: number, options?: CloseVoiceOptions): boolean;
  /** Drop all UDP both ways while on. */
  dropUdp(on: boolean): void;
  clearFaults(): void;
  /**
   * What the setup check meets (REST only): `ready` (bot in the owner's server with every
   * permission), `bot-not-in-server` (never invited), `missing-permission` (the owner's voice
   * channel denies Speak to @everyone, as a server admin's overwrite would).
   */
  setupScenario(scenario: SetupScenario): void;
  close(): Promise<void>;
}

export const SETUP_SCENARIOS = ['ready', 'bot-not-in-server', 'missing-permission'] as const;
export type SetupScenario = (typeof SETUP_SCENARIOS)[number];

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const certificates = options.trustCertificates === false ? await testCertificates() : await trustTestCertificates();
  const botToken = options.botToken ?? randomToken('fake-bot-token');
  const world = new FakeWorld({ extraUsers: options.extraUsers, ownerInVoice: options.ownerInVoice });
  const recorder = new BotAudioRecorder(options.recorder);
  const voice = new FakeVoiceServer({
    certificates,
    modes: options.modes,
    daveProtocolVersion: options.daveProtocolVersion,
    requireDave: options.requireDave,
    heartbeatIntervalMs: options.voiceHeartbeatMs,
    usersInChannel: (channelId) => world.usersInChannel(channelId),
    onBotPacket: (session, packet) => recorder.onPacket(packet, session.dave),
  });
  await voice.start();

  let gateway: GatewayServer | null = null;
  const rest: RestServer = await startRestServer(world, botToken, () => gateway?.url ?? '');
  const liveSession = () => {
    const session = voice.activeSession(world.bot.id);
    return session && world.voiceStates.get(world.bot.id)?.channelId === session.channelId ? session : undefined;
  };

  function onBotVoiceRequest(payload: Op4Payload): void {
    if (payload.guild_id !== world.guild.id) return;
    const previous = world.voiceStates.get(world.bot.id);
    if (payload.channel_id === null || !world.isVoiceChannel(payload.channel_id)) {
      world.setVoiceState(world.bot.id, null);
      voice.endSessions(world.bot.id);
      gateway?.dispatch(
        'VOICE_STATE_UPDATE',
        world.voiceStateJson(world.bot.id, null, previous?.sessionId ?? randomToken('vs')),
      );
      return;
    }
    const state = world.setVoiceState(world.bot.id, payload.channel_id);
    if (!state) return;
    const token = randomToken('voice-token');
    voice.grant({
      guildId: world.guild.id,
      channelId: state.channelId,
      userId: world.bot.id,
      sessionId: state.sessionId,
      token,
    });
    gateway?.dispatch('VOICE_STATE_UPDATE', world.voiceStateJson(world.bot.id, state.channelId, state.sessionId));
    gateway?.dispatch('VOICE_SERVER_UPDATE', { token, guild_id: world.guild.id, endpoint: voice.endpoint });
  }

  gateway = await startGatewayServer(world, botToken, {
    heartbeatIntervalMs: options.gatewayHeartbeatMs,
    onVoiceStateRequest: onBotVoiceRequest,
  });
  const speakers = new FakeSpeakers(voice, liveSession);
  const interactions = new FakeInteractions(
    world,
    (event, data) => gateway?.dispatch(event, data),
    (channelId, messageId) => rest.messages.some((m) => m.channelId === channelId && m.id === messageId),
  );
  rest.routes.push((method, path, body) => interactions.route(method, path, body));

  function userJoinVoice(userId: string, channelId = world.guild.voiceChannels[0].id): void {
    if (!world.users.has(userId)) throw new Error(`unknown user ${userId}`);
    if (!world.isVoiceChannel(channelId)) throw new Error(`not a voice channel: ${channelId}`);
    const previous = world.voiceStates.get(userId);
    const state = world.setVoiceState(userId, channelId);
    if (!state) return;
    gateway?.dispatch('VOICE_STATE_UPDATE', world.voiceStateJson(userId, channelId, state.sessionId));
    const session = liveSession();
    if (!session) return;
    if (previous?.channelId === session.channelId && channelId !== session.channelId) leftBotChannel(session, userId);
    if (channelId === session.channelId && previous?.channelId !== channelId) {
      // op 11 first: the client refuses (and throws on) proposals adding a user it was not told about.
      voice.sendJson(session, 11, { user_ids: [userId] });
      session.dave?.userJoined(userId);
    }
  }

  function userLeaveVoice(userId: string): void {
    const previous = world.voiceStates.get(userId);
    if (!previous) return;
    world.setVoiceState(userId, null);
    gateway?.dispatch('VOICE_STATE_UPDATE', world.voiceStateJson(userId, null, previous.sessionId));
    const session = liveSession();
    if (session && session.channelId === previous.channelId) leftBotChannel(session, userId);
  }

  /** op 13 (the bot's client forgets the user's SSRC), the MLS Remove, and on an emptied channel what the room faults say. */
  function leftBotChannel(session: VoiceSession, userId: string): void {
    voice.sendJson(session, 13, { user_id: userId });
    speakers.forget(userId);
    const empty = world.usersInChannel(session.channelId).every((id) => id === world.bot.id);
    if (empty && voice.faults.room.emptyChannel === 'close4006') {
      voice.closeVoice(world.bot.id, 4006, 'Channel emptied: DAVE torn down');
      return;
    }
    session.dave?.userLeft(userId);
  }

  async function speak(userId: string, pcm: Int16Array, speakOptions?: SpeakOptions): Promise<SpeakResult> {
    const session = liveSession();
    if (!session) throw new Error('the bot has no live voice session');
    if (world.voiceStates.get(userId)?.channelId !== session.channelId)
      throw new Error(`user ${userId} is not in the bot's voice channel`);
    return speakers.speak(userId, pcm, speakOptions);
  }

  const [voiceChannel, otherVoiceChannel] = world.guild.voiceChannels;
  return {
    apiBaseUrl: rest.apiBaseUrl,
    gatewayUrl: gateway.url,
    voiceEndpoint: voice.endpoint,
    botToken,
    caPath: certificates.caPath,
    bot: world.bot,
    owner: world.owner,
    users: [...world.users.values()],
    guildId: world.guild.id,
    voiceChannelId: voiceChannel.id,
    otherVoiceChannelId: otherVoiceChannel.id,
    textChannelId: world.guild.textChannels[0].id,
    world,
    voice,
    recorder,
    messages: rest.messages,
    restRequests: rest.requests,
    restFaults: rest.faults,
    interactions,
    slash: (userId, name, channelId = world.guild.voiceChannels[0].id) => interactions.use(userId, name, channelId),
    react: (userId, message, emoji) => interactions.react(userId, message.channelId, message.id, emoji),
    op4Payloads: gateway.op4Payloads,
    get joinRequestCount() {
      return gateway?.op4Payloads.filter((p) => p.channel_id !== null).length ?? 0;
    },
    gateway,
    dropGateway: (kind) => gateway?.dropBot(kind) ?? 0,
    user: (name) => world.userByName(name),
    botChannelId: () => world.voiceStates.get(world.bot.id)?.channelId ?? null,
    botSession: liveSession,
    dave: () => liveSession()?.dave ?? null,
    speakerTotals: speakers.totals,
    userJoinVoice,
    userLeaveVoice,
    speak,
    closeVoice(code, closeOptions = {}) {
      if (closeOptions.sticky) voice.faults.stickyCloseCode = code;
      return voice.closeVoice(world.bot.id, code, closeOptions.reason);
    },
    dropUdp(on) {
      voice.faults.dropUdp = on;
    },
    clearFaults() {
      voice.faults.stickyCloseCode = null;
      voice.faults.dropUdp = false;
      voice.faults.dave.nextTransitionIdZero = false;
      voice.faults.dave.alwaysTransitionIdZero = false;
      voice.faults.dave.memberCommitsJoins = false;
      voice.faults.dave.dropKeyPackages = 0;
      voice.faults.room.clear();
    },
    setupScenario(scenario) {
      world.botInGuild = scenario !== 'bot-not-in-server';
      world.guild.voiceChannels[0]!.overwrites =
        scenario === 'missing-permission'
          ? [{ id: world.guild.id, type: 0, allow: '0', deny: String(PERMISSION.SPEAK) }]
          : [];
    },
    async close() {
      speakers.close();
      await gateway?.close();
      await voice.close();
      await rest.close();
      recorder.close();
      await sleep(0);
    },
  };
}
