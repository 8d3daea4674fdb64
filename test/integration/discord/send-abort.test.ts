// A Discord send whose time is up is aborted, not abandoned: with the channel's rate-limit bucket
// spent, the next post waits in discord.js's REST queue; when the notifier's bound passes, that
// post is dropped and never reaches Discord later (no late DM after `auto` moved on). The "Discord"
// here is a minimal loopback REST endpoint that answers like Discord's rate-limit headers do.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { REST } from 'discord.js';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createNotifier } from '../../../main/core/notify/dispatcher.ts';
import { DiscordText } from '../../../main/core/voice/text.ts';

const CHANNEL = '300000000000000001';
const posts: string[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      posts.push(body);
      // Every post spends the bucket for 3 s: the next one must wait in the client's queue.
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-ratelimit-limit': '1',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset-after': '3',
        'x-ratelimit-reset': String(Date.now() / 1000 + 3),
        'x-ratelimit-bucket': 'channel-bucket',
      });
      res.end(JSON.stringify({ id: String(400000000000000000n + BigInt(posts.length)), channel_id: CHANNEL }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it('a post queued behind a spent rate-limit bucket is dropped when its time is up, and never lands later', async () => {
  const rest = new REST({ api: base, version: '10' }).setToken(['fake', 'bot', 'token', process.pid].join('-'));
  const notifier = createNotifier({
    voice: () => null,
    discordText: new DiscordText(() => rest),
    textChannelId: CHANNEL,
    sfxEnabled: false,
    logger: pino({ level: 'silent' }),
    discordTimeoutMs: 500,
  });
  // discord.js learns the bucket from the first answers; from then on it queues until the reset.
  let queued = await notifier.deliver({ text: 'first', mode: 'channel' });
  for (let i = 0; i < 3 && queued.status === 'ok'; i++) {
    queued = await notifier.deliver({ text: `next ${i}`, mode: 'channel' });
  }
  // From outside, a send aborted in the REST queue cannot be told from one aborted after its request
  // left: both are `unknown` (it may have reached Discord), so `auto` never sends it elsewhere too.
  expect(queued.results.channel).toEqual({
    status: 'unknown',
    detail:
      'timeout after 500 ms, twice (sent again with the same nonce); it may have reached Discord (not sent elsewhere)',
  });
  const sentBefore = posts.length;
  // Past the bucket's reset: a send that was only abandoned would go out now.
  await new Promise((r) => setTimeout(r, 4000));
  expect(posts).toHaveLength(sentBefore);
}, 20_000);
