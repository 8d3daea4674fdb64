// The end of a GPT-Live reply streamed in real time, on the fakes (real core, fake Discord, fake
// GPT-Live). GPT-Live has no end-of-turn event: the adapter closes a turn after 700 ms without model
// audio, so each reply's audio runs out while its turn is still open. What a listener in the channel
// gets after that: five silence frames, then nothing until the next reply (not 700 ms of packets);
// and the next reply starts as soon as its first frame is there (a reply's end is not an underrun
// that would add start margin to every next reply).
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlaybackStats } from '../../../main/core/audio/playback-buffer.ts';
import type { HealthReport } from '../../../main/core/api-types.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { waitFor } from './signals.ts';

let call: CoreOnFakes | null = null;
afterEach(async () => {
  await call?.close();
  call = null;
});

const REPLY_MS = 400;
/** The adapter's turn gap (openai/live/provider.ts default) and some slack for the loopback. */
const AFTER_REPLY_MS = 700 + 500;

describe('GPT-Live reply ends, streamed in real time', () => {
  it('the bot stops sending five frames after each reply, and no reply end counts as an underrun', async () => {
    const c = await startCoreOnFakes({ env: () => ({ DISCORD_VOICE_LIVE_PROVIDER: 'openai-live' }) });
    call = c;
    expect((await c.post('/join')).status).toBe(200);
    const model = await c.openaiLive.connection(0);
    const playback = async (): Promise<PlaybackStats> =>
      ((await c.get('/health')).json as HealthReport).metrics.playback as unknown as PlaybackStats;

    const perReply: number[] = [];
    for (let reply = 0; reply < 3; reply++) {
      c.discord.recorder.clear();
      // 40 ms chunks every 10 ms: faster than it plays, as the services send, so no chunk comes
      // late mid-reply even on a loaded machine (at 40 ms per 30 ms, four CPU hogs on two cores made
      // a real gap: one underrun); the audio still runs out while the turn is open, 700 ms before
      // the adapter's turn gap is over.
      expect(await model.reply({ toneMs: REPLY_MS, chunkMs: 40, paceMs: 10 })).toBe('completed');
      await sleep(AFTER_REPLY_MS);
      await waitFor(async () => (await playback()).turnState === 'idle', 'the adapter to close the turn');
      perReply.push(c.discord.recorder.packets.length);
    }
    // Each reply: its 20 frames (plus a frame of the filter's tail), then five silence frames, and
    // a little slack for the loopback. Before, the player ran on until the turn closed: about 25
    // more packets of silence per reply.
    // The player's own figures go with a failure: an underrun mid-reply (a starved process) adds its
    // five silence frames to that reply's count, which is another defect than a run-on after the end.
    const stats = await playback();
    const why = `packets per reply: ${perReply.join(', ')}; underruns ${stats.underruns}, margin ${stats.marginMs} ms, load ${loadavg()[0]!.toFixed(1)}`;
    for (const packets of perReply) {
      expect(packets, why).toBeGreaterThanOrEqual(REPLY_MS / 20);
      expect(packets, why).toBeLessThanOrEqual(REPLY_MS / 20 + 1 + 5 + 4);
    }
    expect(stats.turns).toBe(3);
    expect(stats.underruns).toBe(0);
    expect(stats.marginMs).toBe(0);
  }, 60_000);
});
