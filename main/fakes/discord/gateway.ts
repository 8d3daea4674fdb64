// Fake Discord gateway (v10, JSON encoding, no compression): HELLO, IDENTIFY → READY +
// GUILD_CREATE, heartbeats, op 4 (voice state update) handed to the owner of the fake, and drops
// after login as Discord does them. A session outlives its socket: events dispatched while the
// bot is away are kept with their sequence numbers and replayed on RESUME (op 6 with `seq`), then
// RESUMED. A session Discord ended (4009, op 9, unknown id, seq ahead of the server) cannot be
// resumed: RESUME is answered with op 9 `d: false` and the bot must IDENTIFY again.
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
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
  /** RESUME payloads that resumed a session (events replayed, RESUMED sent). */
  readonly resumes: { sessionId: string; seq: number; replayed: number }[];
  /** RESUME payloads answered with op 9 (session not resumable). */
  readonly refusedResumes: number;
  dispatch(event: string, data: unknown): void;
  /**
   * Ends the bot's gateway connection(s) as Discord does after login:
   * - `abrupt`: the TCP connection dies without a close frame (the bot sees 1006); resumable;
   * - `4000`: close 4000 "Unknown error."; resumable;
   * - `4009`: close 4009 "Session timed out."; the session is gone (a RESUME gets op 9 false);
   * - `invalidSession`: op 9 `d: false` on the open socket; the session is gone, IDENTIFY again.
   * Returns how many connections were ended.
   */
  dropBot(kind: GatewayDrop): number;
  /** Holds the handshakes that reach `step` from now on (null: hold nothing new); see GatewayHold. */
  hold(step: GatewayHold | null): void;
  /** WebSocket upgrade requests received, held or not. */
  readonly upgradeRequests: number;
  /** Gateway sockets open now (a held upgrade is not one yet). */
  readonly openSockets: number;
  close(): Promise<void>;
}

export type GatewayDrop = 'abrupt' | 4000 | 4009 | 'invalidSession';

/**
 * A handshake step the fake leaves unanswered, as a slow network or a busy gateway does (the client
 * gives up only at its own timeouts): `upgrade` never answers the HTTP upgrade (the client's socket
 * stays CONNECTING), `hello` opens the socket but sends no HELLO, `ready` answers IDENTIFY with no
 * READY. Held sockets are cut (TCP reset) when the fake closes.
 */
export type GatewayHold = 'upgrade' | 'hello' | 'ready';

/** A gateway session: it outlives its socket until Discord ends it. */
interface Session {
  socket: WebSocket | null;
  id: string;
  sequence: number;
  /** Dispatches by sequence number, for replay on RESUME (bounded like Discord's buffer). */
  readonly backlog: { s: number; frame: string }[];
  resumable: boolean;
  /** The IDENTIFY intents bitfield; a resumed session keeps it. */
  intents: number;
}

/** A connected socket, with the session it identified or resumed (null before that). */
interface Link {
  socket: WebSocket;
  session: Session | null;
}

const BACKLOG_MAX = 1000;

/** GUILD_VOICE_STATES: without it Discord sends no other user's VOICE_STATE_UPDATE. */
const GUILD_VOICE_STATES = 1 << 7;
/** GUILD_MESSAGE_REACTIONS: without it Discord sends no MESSAGE_REACTION_* event. */
const GUILD_MESSAGE_REACTIONS = 1 << 10;

const resumeSchema = z.object({
  token: z.string(),
  session_id: z.string(),
  seq: z.number().int().nonnegative().nullable(),
});

export interface GatewayOptions {
  heartbeatIntervalMs?: number;
  onVoiceStateRequest(payload: Op4Payload): void;
}

export async function startGatewayServer(
  world: FakeWorld,
  botToken: string,
  options: GatewayOptions,
): Promise<GatewayServer> {
  let holding: GatewayHold | null = null;
  let upgradeRequests = 0;
  const heldUpgrades = new Set<Duplex>();
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    verifyClient: (info, accept) => {
      upgradeRequests++;
      if (holding !== 'upgrade') return accept(true);
      heldUpgrades.add(info.req.socket);
      info.req.socket.once('close', () => heldUpgrades.delete(info.req.socket));
    },
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const { port } = wss.address() as AddressInfo;
  const url = `ws://127.0.0.1:${port}`;
  const links = new Set<Link>();
  const sessions = new Map<string, Session>();
  const op4Payloads: Op4Payload[] = [];
  const identifies: Record<string, unknown>[] = [];
  const resumes: GatewayServer['resumes'] = [];
  let refusedResumes = 0;

  function sendDispatch(session: Session, event: string, data: unknown): void {
    session.sequence += 1;
    const frame = JSON.stringify({ op: 0, t: event, s: session.sequence, d: data });
    session.backlog.push({ s: session.sequence, frame });
    if (session.backlog.length > BACKLOG_MAX) session.backlog.shift();
    if (session.socket?.readyState === session.socket?.OPEN) session.socket?.send(frame);
  }

  function endSession(session: Session): void {
    session.resumable = false;
    sessions.delete(session.id);
  }

  function onIdentify(link: Link, d: Record<string, unknown>): void {
    if (d.token !== botToken) {
      link.socket.close(4004, 'Authentication failed.');
      return;
    }
    if (link.session) {
      link.socket.close(4005, 'Already authenticated.');
      return;
    }
    identifies.push(d);
    if (holding === 'ready') return;
    const session: Session = {
      socket: link.socket,
      id: randomToken('gw-session'),
      sequence: 0,
      backlog: [],
      resumable: true,
      intents: typeof d.intents === 'number' ? d.intents : 0,
    };
    sessions.set(session.id, session);
    link.session = session;
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

  function onResume(link: Link, raw: Record<string, unknown>): void {
    const parsed = resumeSchema.safeParse(raw);
    if (!parsed.success) return link.socket.close(4002, 'Decode error.');
    const d = parsed.data;
    if (d.token !== botToken) return link.socket.close(4004, 'Authentication failed.');
    if (link.session) return link.socket.close(4005, 'Already authenticated.');
    const session = sessions.get(d.session_id);
    const seq = d.seq ?? 0;
    const oldest = session?.backlog[0]?.s ?? (session ? session.sequence + 1 : 0);
    // Unknown or ended session, a seq the server never sent, or events no longer buffered.
    if (!session || !session.resumable || seq > session.sequence || seq + 1 < oldest) {
      refusedResumes++;
      // Discord answers op 9 after a short delay; the client waits 1-5 s, then IDENTIFYs.
      setTimeout(
        () =>
          link.socket.readyState === link.socket.OPEN &&
          link.socket.send(JSON.stringify({ op: 9, s: null, t: null, d: false })),
        50,
      );
      return;
    }
    // A session has one socket: an older one still open is replaced (Discord closes it).
    if (session.socket && session.socket !== link.socket && session.socket.readyState === session.socket.OPEN)
      session.socket.close(4000, 'Unknown error.');
    session.socket = link.socket;
    link.session = session;
    const missed = session.backlog.filter((entry) => entry.s > seq);
    for (const entry of missed) link.socket.send(entry.frame);
    resumes.push({ sessionId: session.id, seq, replayed: missed.length });
    sendDispatch(session, 'RESUMED', {});
  }

  wss.on('connection', (socket) => {
    const link: Link = { socket, session: null };
    links.add(link);
    socket.on('close', () => {
      links.delete(link);
      if (link.session?.socket === socket) link.session.socket = null;
    });
    if (holding !== 'hello')
      socket.send(
        JSON.stringify({ op: 10, s: null, t: null, d: { heartbeat_interval: options.heartbeatIntervalMs ?? 41_250 } }),
      );
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
          onIdentify(link, d);
          break;
        case 6:
          onResume(link, d);
          break;
        case 4: {
          if (!link.session) return socket.close(4003, 'Not authenticated.');
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
    resumes,
    get refusedResumes() {
      return refusedResumes;
    },
    // Every live session gets the event; one whose bot is away keeps it for the RESUME.
    dispatch(event, data) {
      // Another user's voice state goes only to sessions that asked for GUILD_VOICE_STATES (the
      // bot's own always comes: it answers the bot's op 4).
      const othersVoiceState =
        event === 'VOICE_STATE_UPDATE' && (data as { user_id?: unknown }).user_id !== world.bot.id;
      for (const session of sessions.values()) {
        if (othersVoiceState && (session.intents & GUILD_VOICE_STATES) === 0) continue;
        if (event.startsWith('MESSAGE_REACTION_') && (session.intents & GUILD_MESSAGE_REACTIONS) === 0) continue;
        sendDispatch(session, event, data);
      }
    },
    dropBot(kind) {
      let ended = 0;
      for (const link of links) {
        const session = link.session;
        if (!session) continue;
        ended++;
        if (kind === 'abrupt') link.socket.terminate();
        else if (kind === 4000) link.socket.close(4000, 'Unknown error.');
        else if (kind === 4009) {
          endSession(session);
          link.socket.close(4009, 'Session timed out.');
        } else {
          endSession(session);
          link.session = null;
          session.socket = null;
          link.socket.send(JSON.stringify({ op: 9, s: null, t: null, d: false }));
        }
      }
      return ended;
    },
    hold(step) {
      holding = step;
    },
    get upgradeRequests() {
      return upgradeRequests;
    },
    get openSockets() {
      return links.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of heldUpgrades) socket.destroy();
        for (const link of links) link.socket.terminate();
        wss.close(() => resolve());
      }),
  };
}
