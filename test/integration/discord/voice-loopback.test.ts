// The real discord.js + @discordjs/voice against the fake Discord on 127.0.0.1: audio both ways,
// several speakers, the allow-list, and text delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscordVoice, type DiscordVoiceAdapter } from '../../../main/core/voice/index.ts';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { bestCorrelation, chirp, onceSource, PcmCollector, quietLogger, waitFor } from './helpers.ts';

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
    expect(fake.op4Payloads[0]).toMatchObject({
      guild_id: fake.guildId,
      channel_id: fake.voiceChannelId,
      self_deaf: false,
    });
    expect(fake.voice.identifies.at(-1)).toMatchObject({ user_id: fake.bot.id, max_dave_protocol_version: 1 });
    expect(voice.opusLibrary).toBe('@discordjs/opus');
  });

  it("delivers a fake user's speech as 48 kHz mono PCM and plays a known signal back", async () => {
    collector.clear();
    const spoken = chirp(1, 200, 3000);
    const played = chirp(1, 3000, 300);
    const source = onceSource(played);
    voice.startPlayback(source);
    await fake.speak(fake.owner.id, spoken);
    await waitFor(() => collector.count(fake.owner.id) >= 52, 5000, 'owner frames');
    // 20 ms mono frames (the stereo packets are decoded to mono: docs/audio.md "Mono inside").
    expect(collector.frames.get(fake.owner.id)!.every((frame) => frame.length === 960)).toBe(true);
    const received = collector.pcm(fake.owner.id);
    const inbound = bestCorrelation(spoken, received);
    expect(inbound.correlation).toBeGreaterThanOrEqual(0.9);

    await waitFor(() => source.frames > 60, 5000, 'playback to pass the signal');
    const recorded = fake.recorder.pcm();
    const outbound = bestCorrelation(played, recorded);
    expect(outbound.correlation).toBeGreaterThanOrEqual(0.9);
    // Negative control: the other signal does not match, so the check above can fail.
    expect(bestCorrelation(spoken, recorded).correlation).toBeLessThan(0.5);
    const packets = fake.recorder.packets.filter((p) => !p.silence);
    // The bot codes its (mono) voice as mono Opus, which the listener's stereo decoder played above.
    expect(packets.length).toBeGreaterThan(40);
    expect(new Set(packets.map((p) => p.opusChannels))).toEqual(new Set([1]));
    // Continuous 20 ms packets: RTP timestamp +960 per packet, sequence +1.
    for (let i = 1; i < Math.min(packets.length, 40); i++) {
      expect((packets[i].timestamp - packets[i - 1].timestamp) >>> 0).toBe(960);
      expect((packets[i].sequence - packets[i - 1].sequence) & 0xffff).toBe(1);
    }
    voice.stopPlayback();
  });

  it('keeps two simultaneous speakers apart', async () => {
    const guest = fake.user('guest');
    fake.userJoinVoice(guest.id);
    collector.clear();
    const ownerSignal = chirp(1, 250, 2500);
    const guestSignal = chirp(1, 2800, 400, 9000);
    await Promise.all([fake.speak(fake.owner.id, ownerSignal), fake.speak(guest.id, guestSignal)]);
    await waitFor(
      () => collector.count(fake.owner.id) >= 52 && collector.count(guest.id) >= 52,
      5000,
      'frames of both speakers',
    );
    const ownerPcm = collector.pcm(fake.owner.id);
    const guestPcm = collector.pcm(guest.id);
    expect(bestCorrelation(ownerSignal, ownerPcm).correlation).toBeGreaterThanOrEqual(0.9);
    expect(bestCorrelation(guestSignal, guestPcm).correlation).toBeGreaterThanOrEqual(0.9);
    expect(bestCorrelation(guestSignal, ownerPcm).correlation).toBeLessThan(0.5);
  });

  it('ignores a speaker who is not allowed, and never hears itself', async () => {
    const stranger = fake.user('stranger');
    fake.userJoinVoice(stranger.id);
    collector.clear();
    const starts: string[] = [];
    const onStart = (id: string) => starts.push(id);
    voice.on('speakingStart', onStart);
    voice.startPlayback(onceSource(chirp(0.5, 500, 900)));
    const result = await fake.speak(stranger.id, chirp(0.6, 300, 1200));
    await fake.speak(fake.owner.id, chirp(0.3, 300, 1200));
    await waitFor(() => collector.count(fake.owner.id) >= 15, 5000, 'owner frames after the stranger');
    voice.stopPlayback();
    voice.off('speakingStart', onStart);
    expect(result.packetsSent).toBeGreaterThan(30);
    expect(collector.count(stranger.id)).toBe(0);
    expect(starts).not.toContain(stranger.id);
    for (const speaker of collector.frames.keys()) expect([fake.owner.id, fake.user('guest').id]).toContain(speaker);
    expect(collector.count(fake.bot.id)).toBe(0);
  });

  it('stops playback at once for barge-in', async () => {
    const loud = { readFrame: (out: Int16Array) => out.fill(8000) };
    voice.startPlayback(loud);
    await waitFor(() => fake.recorder.packets.length > 0 && !fake.recorder.packets.at(-1)!.silence, 3000, 'playback');
    voice.stopPlayback();
    const stoppedAt = fake.recorder.packets.length;
    await new Promise((r) => setTimeout(r, 300));
    // At most the frame already handed to the socket plus one in flight; then nothing more.
    expect(fake.recorder.packets.length - stoppedAt).toBeLessThanOrEqual(2);
    expect(fake.voice.activeSession(fake.bot.id)?.botSpeaking.at(-1)).toBe(0);
  });

  it('sends a DM and a channel post with mentions disabled, split at 2000 characters', async () => {
    const dm = await voice.sendDirectMessage(fake.owner.id, 'Build finished @everyone');
    const post = await voice.postToChannel(fake.textChannelId, 'Deploy done <@&123> ok');
    const dmMessage = fake.messages.find((m) => m.id === dm.messageId);
    expect(dmMessage).toMatchObject({ dmRecipientId: fake.owner.id, content: 'Build finished @everyone' });
    expect(dmMessage?.body).toEqual({ content: 'Build finished @everyone', allowed_mentions: { parse: [] } });
    expect(post.channelId).toBe(fake.textChannelId);
    expect(fake.messages.find((m) => m.id === post.messageId)?.body).toEqual({
      content: 'Deploy done <@&123> ok',
      allowed_mentions: { parse: [] },
    });

    const before = fake.messages.length;
    const long = Array.from({ length: 300 }, (_, i) => `line ${i} of a long report`).join('\n');
    await voice.postToChannel(fake.textChannelId, long);
    const parts = fake.messages.slice(before);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.content.length).toBeLessThanOrEqual(2000);
    expect(parts.map((p) => p.content).join('\n')).toBe(long);

    // Beyond 4 messages the text is truncated with a visible mark instead of flooding the channel.
    const huge = await voice.postToChannel(fake.textChannelId, 'word '.repeat(3000));
    const hugeParts = fake.messages.slice(fake.messages.findIndex((m) => m.id === huge.messageId));
    expect(hugeParts).toHaveLength(4);
    expect(hugeParts[3].content.endsWith('… (truncated)')).toBe(true);
    expect(hugeParts.every((p) => p.content.length <= 2000)).toBe(true);
  });
});
