// Fake Discord gateway (v10, JSON encoding, no compression): HELLO, IDENTIFY → READY +
// GUILD_CREATE, heartbeats, RESUME, and op 4 (voice state update) handed to the owner of the fake.
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { randomToken, type FakeWorld } from './world.ts';

export interface Op4Payload {
  guild_id: string;
  channel_id: string | null;
  self_deaf: boolean;
  self_mute: boolean;
  receivedAt: number;
}

export interface GatewayServer {
  readonly url: string;
  /** Every gateway op 4 the bot sent, in order (joins, rejoins, leaves). */
  readonly op4Payloads: Op4Payload[];
  /** IDENTIFY payloads received (intents, shard...). */
  readonly identifies: Record<string, unknown>[];
  dispatch(event: string, data: unknown): void;
  close(): Promise<void>;
}

interface Session {
  socket: WebSocket;
  id: string;
  sequence: number;
  identified: boolean;
  /** The IDENTIFY intents bitfield (0 until identified). */
  intents: number;
}

/** GUILD_VOICE_STATES: without it Discord sends no other user's VOICE_STATE_UPDATE. */
const GUILD_VOICE_STATES = 1 << 7;

export interface GatewayOptions {
  heartbeatIntervalMs?: number;
  onVoiceStateRequest(payload: Op4Payload): void;
}

export async function startGatewayServer(world: FakeWorld, botToken: string, options: GatewayOptions): Promise<GatewayServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const { port } = wss.address() as AddressInfo;
  const url = `ws://127.0.0.1:${port}`;
  const sessions = new Set<Session>();
  const op4Payloads: Op4Payload[] = [];
  const identifies: Record<string, unknown>[] = [];

  function sendDispatch(session: Session, event: string, data: unknown): void {
    session.sequence += 1;
    session.socket.send(JSON.stringify({ op: 0, t: event, s: session.sequence, d: data }));
  }

  function onIdentify(session: Session, d: Record<string, unknown>): void {
    if (d.token !== botToken) {
      session.socket.close(4004, 'Authentication failed.');
      return;
    }
    identifies.push(d);
    session.identified = true;
    session.intents = typeof d.intents === 'number' ? d.intents : 0;
    sendDispatch(session, 'READY', {
      v: 10,
      user: { ...world.userJson(world.bot), verified: true, flags: 0, mfa_enabled: false },
      guilds: [{ id: world.guild.id, unavailable: true }],
      session_id: session.id,
      resume_gateway_url: url,
      shard: [0, 1],
      application: { id: world.bot.id, flags: 0 },
      private_channels: [],
      relationships: [],
      user_settings: {},
      presences: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: [],
    });
    sendDispatch(session, 'GUILD_CREATE', world.guildCreateJson());
  }

  wss.on('connection', (socket) => {
    const session: Session = { socket, id: randomToken('gw-session'), sequence: 0, identified: false, intents: 0 };
    sessions.add(session);
    socket.on('close', () => sessions.delete(session));
    socket.send(JSON.stringify({ op: 10, s: null, t: null, d: { heartbeat_interval: options.heartbeatIntervalMs ?? 41_250 } }));
    socket.on('message', (raw, isBinary) => {
      if (isBinary) return socket.close(4002, 'Decode error.');
      let message: { op?: unknown; d?: unknown };
      try {
        message = JSON.parse(raw.toString()) as { op?: unknown; d?: unknown };
      } catch {
        return socket.close(4002, 'Decode error.');
      }
      const d = (message.d ?? {}) as Record<string, unknown>;
      switch (message.op) {
        case 1:
          socket.send(JSON.stringify({ op: 11, s: null, t: null, d: null }));
          break;
        case 2:
          onIdentify(session, d);
          break;
        case 6:
          if (d.token !== botToken) return socket.close(4004, 'Authentication failed.');
          session.identified = true;
          // A resumed session keeps the intents it identified with.
          session.intents = Number(identifies.at(-1)?.intents ?? 0);
          session.sequence = typeof d.seq === 'number' ? d.seq : session.sequence;
          sendDispatch(session, 'RESUMED', {});
          break;
        case 4: {
          if (!session.identified) return socket.close(4003, 'Not authenticated.');
          const payload: Op4Payload = {
            guild_id: String(d.guild_id),
            channel_id: typeof d.channel_id === 'string' ? d.channel_id : null,
            self_deaf: d.self_deaf === true,
            self_mute: d.self_mute === true,
            receivedAt: Date.now(),
          };
          op4Payloads.push(payload);
          options.onVoiceStateRequest(payload);
          break;
        }
        case 3: // presence update: accepted, nothing to do
        case 8: // request guild members
          break;
        default:
          socket.close(4001, 'Unknown opcode.');
      }
    });
  });

  return {
    url,
    op4Payloads,
    identifies,
    dispatch(event, data) {
      // Another user's voice state goes only to sessions that asked for GUILD_VOICE_STATES (the
      // bot's own always comes: it answers the bot's op 4).
      const othersVoiceState = event === 'VOICE_STATE_UPDATE' && (data as { user_id?: unknown }).user_id !== world.bot.id;
      for (const session of sessions) {
        if (!session.identified) continue;
        if (othersVoiceState && (session.intents & GUILD_VOICE_STATES) === 0) continue;
        sendDispatch(session, event, data);
      }
    },
    close: () => new Promise<void>((resolve) => {
      for (const session of sessions) session.socket.terminate();
      wss.close(() => resolve());
    }),
  };
}
