// Fake Discord voice server: the TLS voice WebSocket (v8) and the UDP media socket. Follows the
// public voice-connections docs: HELLO, IDENTIFY → READY, UDP IP discovery, SELECT PROTOCOL →
// SESSION DESCRIPTION, heartbeats with seq_ack, SPEAKING, RESUME, clients connect/disconnect, and
// AEAD rtpsize RTP in both directions. DAVE v1 (E2EE over MLS, binary ops 25-31) by default, as Discord
// requires since 2026-03-01: a client offering no DAVE is closed with 4017; see dave/group.ts.
import { randomBytes } from 'node:crypto';
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { rawDataBytes } from '../../core/model/wire/ws-raw-data.ts';
import { DaveGroup, noDaveFaults, type DaveFaults } from './dave/group.ts';
import { serverBinaryFrame } from './dave/mls-wire.ts';
import { RoomFaults } from './dave/room-faults.ts';
import {
  decryptRtp,
  encryptRtp,
  ENCRYPTION_MODES,
  type EncryptionMode,
  type ParsedRtp,
  type RtpHeaderFields,
} from './rtp.ts';
import type { TestCertificates } from './tls.ts';

/** What the gateway promised in VOICE_SERVER_UPDATE / VOICE_STATE_UPDATE for one bot join. */
export interface VoiceGrant {
  guildId: string;
  channelId: string;
  userId: string;
  sessionId: string;
  token: string;
}

export interface VoiceSession extends VoiceGrant {
  ssrc: number;
  mode: EncryptionMode | null;
  secretKey: Buffer | null;
  socket: WebSocket | null;
  botAddress: { address: string; port: number } | null;
  /** Sequence number of the last server JSON message (the client echoes it as seq_ack). */
  seq: number;
  lastSeqAck: number;
  /** Server → bot packet counter (the nonce suffix). */
  nonce: number;
  invalid: boolean;
  /** op 5 speaking flags the bot sent. */
  botSpeaking: number[];
  resumes: number;
  identifiedAt: number;
  /** max_dave_protocol_version from IDENTIFY. */
  maxDaveVersion: number;
  /** The DAVE group of this voice session (null when the session runs without E2EE, v0). */
  dave: DaveGroup | null;
  /** DAVE messages (ops 21-31) that found no open socket: the bot's MLS state fell behind the group's. */
  missedDaveOps: number;
}

export interface VoiceServerOptions {
  certificates: TestCertificates;
  /** Modes offered in READY, in order (default: AES-GCM then XChaCha). */
  modes?: readonly EncryptionMode[];
  /** Highest DAVE protocol version the server speaks (default 1; 0 = the pre-2026 server without E2EE). */
  daveProtocolVersion?: 0 | 1;
  /** Close IDENTIFY with 4017 when the client offers no DAVE (default: true when daveProtocolVersion is 1, as Discord does). */
  requireDave?: boolean;
  heartbeatIntervalMs?: number;
  /** Users currently in `channelId` other than the bot (for op 11 after the handshake). */
  usersInChannel(channelId: string): string[];
  onBotPacket(session: VoiceSession, packet: ParsedRtp): void;
}

export interface VoiceFaults {
  /** Close every new IDENTIFY/RESUME with this code (a persistently failing server). */
  stickyCloseCode: number | null;
  dropUdp: boolean;
  /** DAVE faults, shared by every group this server creates. */
  dave: DaveFaults;
  /** Rooms that change: silent re-keys, what an emptied channel does (dave/room-faults.ts). */
  room: RoomFaults;
  /**
   * A RESUME after the bot missed DAVE messages is closed with 4006: its MLS epoch is stale and
   * Discord answers WrongEpoch with 4006 (AlexFlipnote/discord.http #29). Default true, as Discord.
   */
  staleEpochResumeCloses: boolean;
}

export class FakeVoiceServer {
  readonly sessions: VoiceSession[] = [];
  readonly faults: VoiceFaults = {
    stickyCloseCode: null,
    dropUdp: false,
    dave: noDaveFaults(),
    room: new RoomFaults(),
    staleEpochResumeCloses: true,
  };
  /** Close codes the server sent, in order. */
  readonly closeCodes: number[] = [];
  readonly identifies: Record<string, unknown>[] = [];
  readonly udpDecryptErrors: Error[] = [];
  endpoint = '';
  #grants = new Map<string, VoiceGrant>();
  #https: Server;
  #wss: WebSocketServer;
  #udp: Socket;
  #udpPort = 0;
  #nextSsrc = 1111;
  #options: VoiceServerOptions;

  constructor(options: VoiceServerOptions) {
    this.#options = options;
    this.#https = createServer({ cert: options.certificates.certPem, key: options.certificates.keyPem });
    this.#wss = new WebSocketServer({ server: this.#https });
    this.#wss.on('connection', (socket) => this.#onConnection(socket));
    this.#udp = createSocket('udp4');
    this.#udp.on('message', (msg, rinfo) => this.#onUdp(msg, rinfo));
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#https.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => this.#udp.bind(0, '127.0.0.1', resolve));
    this.#udpPort = (this.#udp.address() as AddressInfo).port;
    // The host must match the certificate SAN; @discordjs/voice prepends wss:// itself.
    this.endpoint = `localhost:${(this.#https.address() as AddressInfo).port}`;
  }

  grant(grant: VoiceGrant): void {
    this.#grants.set(grant.token, grant);
  }

  /** The live (most recent, still valid) session of a bot user. */
  activeSession(userId: string): VoiceSession | undefined {
    for (let i = this.sessions.length - 1; i >= 0; i--) {
      const s = this.sessions[i];
      if (s.userId === userId && !s.invalid) return s;
    }
    return undefined;
  }

  /** Close the bot's voice socket with a code. 4006 also invalidates the session (no resume). */
  closeVoice(userId: string, code: number, reason = ''): boolean {
    const session = this.activeSession(userId);
    if (!session?.socket) return false;
    // The client resumes after codes < 4000 and 4015; any other close ends the session.
    session.invalid = !(code < 4000 || code === 4015);
    this.#close(session.socket, code, reason);
    return true;
  }

  /** Forget a bot's sessions (it left the channel). */
  endSessions(userId: string): void {
    for (const session of this.sessions) {
      if (session.userId !== userId || session.invalid) continue;
      session.invalid = true;
      session.dave?.close();
      session.socket?.close(1000);
    }
  }

  sendJson(session: VoiceSession, op: number, d: unknown): void {
    if (!session.socket || session.socket.readyState !== session.socket.OPEN) {
      if (op >= 21 && op <= 31) session.missedDaveOps += 1;
      return;
    }
    session.seq += 1;
    session.socket.send(JSON.stringify({ op, d, seq: session.seq }));
  }

  /** Binary DAVE frame: u16 seq (shared with JSON) ‖ u8 opcode ‖ payload. */
  sendBinary(session: VoiceSession, op: number, payload: Buffer): void {
    if (!session.socket || session.socket.readyState !== session.socket.OPEN) {
      session.missedDaveOps += 1;
      return;
    }
    session.seq += 1;
    session.socket.send(serverBinaryFrame(session.seq, op, payload));
  }

  /** The DAVE protocol version this server negotiates at most. */
  get daveProtocolVersion(): number {
    return this.#options.daveProtocolVersion ?? 1;
  }

  /** Encrypt one Opus packet for the bot with its session key, as the SFU would forward it. */
  sendRtpToBot(session: VoiceSession, fields: RtpHeaderFields, opus: Buffer): void {
    if (this.faults.dropUdp || !session.botAddress || !session.mode || !session.secretKey) return;
    session.nonce = (session.nonce + 1) >>> 0;
    const packet = encryptRtp(session.mode, session.secretKey, session.nonce, fields, opus);
    this.#udp.send(packet, session.botAddress.port, session.botAddress.address);
  }

  /** Send raw bytes to the bot's UDP socket (corrupt packets, padding tests). */
  sendRawToBot(session: VoiceSession, packet: Buffer): void {
    if (this.faults.dropUdp || !session.botAddress) return;
    this.#udp.send(packet, session.botAddress.port, session.botAddress.address);
  }

  async close(): Promise<void> {
    for (const session of this.sessions) session.dave?.close();
    for (const client of this.#wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    this.#https.closeAllConnections();
    await new Promise<void>((resolve) => this.#https.close(() => resolve()));
    await new Promise<void>((resolve) => this.#udp.close(() => resolve()));
  }

  #close(socket: WebSocket, code: number, reason: string): void {
    this.closeCodes.push(code);
    socket.close(code, reason);
  }

  #onConnection(socket: WebSocket): void {
    let session: VoiceSession | null = null;
    socket.send(JSON.stringify({ op: 8, d: { heartbeat_interval: this.#options.heartbeatIntervalMs ?? 13_750 } }));
    socket.on('message', (raw, isBinary) => {
      if (isBinary) {
        // Client → server binary: u8 opcode ‖ payload (DAVE ops 26 and 28).
        const bytes = rawDataBytes(raw);
        if (!session) return this.#close(socket, 4003, 'Not authenticated');
        if (bytes.length > 0) session.dave?.onBinary(bytes[0], bytes.subarray(1));
        return;
      }
      let message: { op?: unknown; d?: unknown };
      try {
        message = JSON.parse(raw.toString()) as { op?: unknown; d?: unknown };
      } catch {
        return this.#close(socket, 4002, 'Failed to decode payload');
      }
      const d = (message.d ?? {}) as Record<string, unknown>;
      if (message.op === 3) {
        if (session && typeof d.seq_ack === 'number') session.lastSeqAck = d.seq_ack;
        socket.send(JSON.stringify({ op: 6, d: { t: d.t } }));
        return;
      }
      if (message.op === 0) {
        session = this.#identify(socket, d);
        return;
      }
      if (message.op === 7) {
        session = this.#resume(socket, d);
        return;
      }
      if (!session) return this.#close(socket, 4003, 'Not authenticated');
      if (message.op === 1) this.#selectProtocol(session, d);
      else if (message.op === 5) session.botSpeaking.push(typeof d.speaking === 'number' ? d.speaking : 0);
      else if (message.op === 23 || message.op === 31) session.dave?.onJson(message.op, d);
    });
    socket.on('close', () => {
      if (session?.socket === socket) session.socket = null;
    });
  }

  #identify(socket: WebSocket, d: Record<string, unknown>): VoiceSession | null {
    this.identifies.push(d);
    const grant = typeof d.token === 'string' ? this.#grants.get(d.token) : undefined;
    if (!grant || grant.sessionId !== d.session_id || grant.userId !== d.user_id || grant.guildId !== d.server_id) {
      this.#close(socket, 4004, 'Authentication failed');
      return null;
    }
    if (this.faults.stickyCloseCode !== null) {
      this.#close(socket, this.faults.stickyCloseCode, 'Scripted failure');
      return null;
    }
    const daveVersion = typeof d.max_dave_protocol_version === 'number' ? d.max_dave_protocol_version : 0;
    if ((this.#options.requireDave ?? this.daveProtocolVersion >= 1) && daveVersion < 1) {
      this.#close(socket, 4017, 'E2EE/DAVE protocol required');
      return null;
    }
    for (const old of this.sessions) {
      if (old.userId !== grant.userId) continue;
      old.invalid = true;
      old.dave?.close();
    }
    const session: VoiceSession = {
      ...grant,
      ssrc: this.#nextSsrc++,
      mode: null,
      secretKey: null,
      socket,
      botAddress: null,
      seq: 0,
      lastSeqAck: -1,
      nonce: 0,
      invalid: false,
      botSpeaking: [],
      resumes: 0,
      identifiedAt: Date.now(),
      maxDaveVersion: daveVersion,
      dave: null,
      missedDaveOps: 0,
    };
    this.sessions.push(session);
    const modes = this.#options.modes ?? ENCRYPTION_MODES;
    this.sendJson(session, 2, {
      ssrc: session.ssrc,
      ip: '127.0.0.1',
      port: this.#udpPort,
      modes: [...modes],
      heartbeat_interval: 1,
    });
    return session;
  }

  #resume(socket: WebSocket, d: Record<string, unknown>): VoiceSession | null {
    const session = this.sessions.find(
      (s) => s.token === d.token && s.sessionId === d.session_id && s.guildId === d.server_id,
    );
    if (!session || session.invalid) {
      this.#close(socket, 4006, 'Session is no longer valid');
      return null;
    }
    if (this.faults.stickyCloseCode !== null) {
      this.#close(socket, this.faults.stickyCloseCode, 'Scripted failure');
      return null;
    }
    if (session.missedDaveOps > 0 && this.faults.staleEpochResumeCloses) {
      session.invalid = true;
      session.dave?.close();
      this.#close(socket, 4006, 'Session is no longer valid (stale DAVE epoch)');
      return null;
    }
    session.socket = socket;
    session.resumes += 1;
    this.sendJson(session, 9, null);
    return session;
  }

  #selectProtocol(session: VoiceSession, d: Record<string, unknown>): void {
    const data = (d.data ?? {}) as Record<string, unknown>;
    const modes = this.#options.modes ?? ENCRYPTION_MODES;
    const mode = modes.find((m) => m === data.mode);
    if (d.protocol !== 'udp' || !mode) {
      if (session.socket) this.#close(session.socket, 4016, 'Unknown encryption mode');
      return;
    }
    session.mode = mode;
    session.secretKey = randomBytes(32);
    if (typeof data.address === 'string' && typeof data.port === 'number' && !session.botAddress) {
      session.botAddress = { address: data.address, port: data.port };
    }
    const others = this.#options.usersInChannel(session.channelId).filter((id) => id !== session.userId);
    if (others.length > 0) this.sendJson(session, 11, { user_ids: others });
    const daveVersion = Math.min(session.maxDaveVersion, this.daveProtocolVersion);
    this.sendJson(session, 4, {
      mode,
      secret_key: [...session.secretKey],
      dave_protocol_version: daveVersion,
      media_session_id: randomBytes(8).toString('hex'),
    });
    if (daveVersion >= 1 && !session.dave) {
      // op 25 only after op 4: the client ignores binary ops until its Networking is Ready.
      session.dave = new DaveGroup(
        session.channelId,
        session.userId,
        {
          sendJson: (op, payload) => this.sendJson(session, op, payload),
          sendBinary: (op, payload) => this.sendBinary(session, op, payload),
        },
        this.faults.dave,
      );
      session.dave.start(others);
    }
  }

  #onUdp(msg: Buffer, rinfo: RemoteInfo): void {
    if (this.faults.dropUdp) return;
    if (msg.length === 74 && msg.readUInt16BE(0) === 1) {
      const ssrc = msg.readUInt32BE(4);
      const session = this.sessions.find((s) => s.ssrc === ssrc && !s.invalid);
      if (!session) return;
      session.botAddress = { address: rinfo.address, port: rinfo.port };
      const reply = Buffer.alloc(74);
      reply.writeUInt16BE(2, 0);
      reply.writeUInt16BE(70, 2);
      reply.writeUInt32BE(ssrc, 4);
      reply.write(rinfo.address, 8, 'ascii');
      reply.writeUInt16BE(rinfo.port, 72);
      this.#udp.send(reply, rinfo.port, rinfo.address);
      return;
    }
    if (msg.length <= 12 || (msg[0] & 0xc0) !== 0x80) return; // keep-alives and junk
    const ssrc = msg.readUInt32BE(8);
    const session = this.sessions.find((s) => s.ssrc === ssrc);
    if (!session?.mode || !session.secretKey) return;
    try {
      this.#options.onBotPacket(session, decryptRtp(session.mode, session.secretKey, msg));
    } catch (error) {
      this.udpDecryptErrors.push(error as Error);
    }
  }
}
