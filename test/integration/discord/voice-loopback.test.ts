// The real discord.js + @discordjs/voice against the fake Discord on 127.0.0.1: audio both ways,
// several speakers, the allow-list, and text delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscordVoice, type DiscordVoiceAdapter } from '../../../main/core/voice/index.ts';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.ts';
import { bestCorrelation, chirp, onceSource, PcmCollector, quietLogger, rms, waitFor } from './helpers.ts';

describe('Discord voice adapter on the loopback fake', () => {
  let fake: FakeDiscord;
  let voice: DiscordVoiceAdapter;
  const collector = new PcmCollector();

  beforeAll(async () => {
    fake = await startFakeDiscord();
    voice = createDiscordVoice({
      token: fake.botToken,
      ownerId: fake.owner.id,
      allowedSpeakers: [fake.owner.id, fake.user('guest').id],
      apiBaseUrl: fake.apiBaseUrl,
      logger: quietLogger(),
    });
    voice.on('pcm', collector.listener);
    await voice.login();
  });

  afterAll(async () => {
    await voice?.destroy();
    await fake?.close();
  });

  it('joins the voice channel the owner is in, undeafened, with DAVE offered', async () => {
    const target = await voice.join();
    expect(target).toEqual({ guildId: fake.guildId, channelId: fake.voiceChannelId });
    expect(voice.state).toBe('connected');
    expect(fake.op4Payloads[0]).toMatchObject({ guild_id: fake.guildId, channel_id: fake.voiceChannelId, self_deaf: false });
    expect(fake.voice.identifies.at(-1)).toMatchObject({ user_id: fake.bot.id, max_dave_protocol_version: 1 });
    expect(voice.opusLibrary).toBe('@discordjs/opus');
  });

  it('delivers a fake user\'s speech as 48 kHz stereo PCM and plays a known signal back', async () => {
    collector.clear();
    const spoken = chirp(1, 200, 3000);
    const played = chirp(1, 3000, 300);
    const source = onceSource(played);
    voice.startPlayback(source);
    await fake.speak(fake.owner.id, spoken);
    await waitFor(() => collector.count(fake.owner.id) >= 55, 5000, 'owner frames');
    const received = collector.pcm(fake.owner.id);
    expect(received.length % 1920).toBe(0);
    const inbound = bestCorrelation(spoken, received);
    console.log("inbound", inbound);
    expect(inbound.correlation).toBeGreaterThanOrEqual(0.9);

    await waitFor(() => source.frames > 60, 5000, 'playback to pass the signal');
    const recorded = fake.recorder.pcm();
    const outbound = bestCorrelation(played, recorded);
    console.log("outbound", outbound, bestCorrelation(spoken, recorded));
    expect(outbound.correlation).toBeGreaterThanOrEqual(0.9);
    const packets = fake.recorder.packets.filter((p) => !p.silence);
    // Continuous 20 ms packets: RTP timestamp +960 per packet, sequence +1.
    for (let i = 1; i < Math.min(packets.length, 40); i++) {
      expect((packets[i].timestamp - packets[i - 1].timestamp) >>> 0).toBe(960);
      expect((packets[i].sequence - packets[i - 1].sequence) & 0xffff).toBe(1);
    }
    voice.stopPlayback();
  });
});
