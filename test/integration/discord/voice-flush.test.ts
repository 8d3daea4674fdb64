// pokePlayback(urgent) (barge-in): the source's next frame goes out at once rather than at the end
// of its 20 ms slot. Each packet is read, encoded, sealed and sent in one step (main/core/voice/playback.ts),
// so nothing read before the poke is held back or lost: every loud frame read reaches the wire, the
// poke-time frame follows with no RTP gap, and no slot is sent twice. At DAVE v1, the fake's default.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PlaybackSource } from '../../../main/core/ports.ts';
import { createDiscordVoice, type DiscordVoiceAdapter } from '../../../main/core/voice/index.ts';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { quietLogger, waitFor } from './helpers.ts';

let fake: FakeDiscord;
let voice: DiscordVoiceAdapter;

beforeAll(async () => {
  fake = await startFakeDiscord();
  voice = createDiscordVoice({
    token: fake.botToken,
    ownerId: fake.owner.id,
    apiBaseUrl: fake.apiBaseUrl,
    logger: quietLogger(),
  });
  await voice.login();
  await voice.join();
});
afterAll(async () => {
  await voice?.destroy();
  await fake?.close();
});

it('sends the poke-time frame next, with every frame read before it on the wire and no gap', async () => {
  // A loud tone until the flush, digital silence from the frame read at flush time on.
  let loud = true;
  let reads = 0;
  let phase = 0;
  const source: PlaybackSource = {
    readFrame(out) {
      reads++;
      for (let i = 0; i < out.length; i++) {
        out[i] = loud ? Math.round(10_000 * Math.sin(phase)) : 0;
        phase += (2 * Math.PI * 440) / 48_000;
      }
    },
  };
  voice.startPlayback(source);
  await waitFor(() => reads > 30 && fake.recorder.packets.length > 25, 5000, 'steady playback');
  const loudReads = reads;
  loud = false;
  voice.pokePlayback!(true);
  voice.pokePlayback!(); // a chunk's poke in the same turn: the next slot has not begun, nothing more goes
  // One read, the fade's frame; two when the process was already a slot behind at the poke (a busy
  // machine: the overdue slot goes out on this wake-up, as it would on the timer's). That a poke never
  // sends a slot early beyond its limit is unit-tested on a fake clock (test/unit/voice/playback.test.ts).
  expect(reads - loudReads).toBeGreaterThanOrEqual(1);
  expect(reads - loudReads).toBeLessThanOrEqual(2);
  await waitFor(() => fake.recorder.packets.length > loudReads + 15, 5000, 'playback after the flush');
  voice.stopPlayback();
  // The last packet sent is still on its way through the loopback socket to the fake (this same
  // process hears it on a later turn): wait for it, then count. A packet never sent times out here;
  // one sent twice makes the count below too high.
  await waitFor(() => fake.recorder.packets.length >= reads, 2000, 'the last packet sent');
  await new Promise((resolve) => setTimeout(resolve, 50));

  const seqs = fake.recorder.packets.map((p) => p.sequence);
  expect(seqs.slice(1).every((s, i) => (s - seqs[i]! + 65536) % 65536 === 1)).toBe(true);
  const pcm = fake.recorder.pcm();
  const frameRms = (k: number) => {
    let sum = 0;
    for (let i = k * 1920; i < (k + 1) * 1920; i++) sum += pcm[i]! * pcm[i]!;
    return Math.sqrt(sum / 1920);
  };
  // A whole loud frame decodes at RMS ≈ 7000; the codec's few-ms tail after the last one stays
  // well under 5000, digital silence near 0.
  const loudSent = seqs.map((_, k) => frameRms(k)).filter((r) => r > 5000).length;
  expect(loudSent).toBe(loudReads);
  // One packet per frame read: none held back, none sent twice.
  expect(fake.recorder.packets.length).toBe(reads);
  // All of it under DAVE: the flush-time packet is E2EE-encrypted like any other, and the listener
  // (a member of the MLS group) decrypted every frame.
  expect(fake.voice.activeSession(fake.bot.id)?.dave?.ready).toBe(true);
  expect(fake.recorder.packets.every((p) => p.silence || (p.e2ee && p.heard))).toBe(true);
  expect(fake.recorder.listener.plain).toBe(0);
});
