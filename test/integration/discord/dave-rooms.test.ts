// DAVE in rooms that change (issue #39): the real adapter (discord.js + @discordjs/voice) against the
// fake voice server playing the rooms Discord bots were reported to fail in during 2026
// (shared/research/field-2026-11.md §2). Each test asserts what the user hears: frames decoded per
// speaker at the adapter, bot frames decrypted by the fake listener. Counts, never wall-clock times.
import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DiscordVoiceAdapter } from '../../../main/core/voice/index.ts';
import type { FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { bestCorrelation, chirp, fakeCallFixture, onceSource, rms, waitFor } from './helpers.ts';

const status = (v: DiscordVoiceAdapter) => {
  const s = v.daveStatus?.();
  if (!s) throw new Error('no DAVE status');
  return s;
};

describe('DAVE in rooms that change', () => {
  const fixture = fakeCallFixture();
  afterEach(fixture.stop);

  async function call(options: { ownerInVoice?: boolean } = {}) {
    const c = await fixture.start({ ownerInVoice: options.ownerInVoice }, (f) => ({
      readyTimeoutMs: 8000,
      guildId: f.guildId,
      channelId: f.voiceChannelId,
      allowedSpeakers: [f.owner.id, f.user('guest').id, f.user('stranger').id],
    }));
    await c.voice.join();
    return c;
  }

  /** `userId` joins the bot's channel; resolves once the fake's DAVE group is ready with them in it. */
  async function joinsTheGroup(fake: FakeDiscord, userId: string, what: string): Promise<void> {
    fake.userJoinVoice(userId);
    await waitFor(() => fake.dave()?.ready === true && fake.dave()!.leaves.includes(userId), 8000, what);
  }

  /** The bot plays `seconds` of tone; resolves with what the listener decrypted of it. */
  async function botIsHeard(fake: FakeDiscord, voice: DiscordVoiceAdapter, seconds = 0.6): Promise<number> {
    const before = fake.recorder.listener.decrypted;
    const played = chirp(seconds, 2500, 400);
    const source = onceSource(played);
    voice.startPlayback(source);
    await waitFor(
      () => fake.recorder.listener.decrypted - before >= seconds * 50 - 2,
      10_000,
      'the bot heard by the listener',
    );
    voice.stopPlayback();
    // Nothing of ours left unencrypted while the group was ready (E2EE).
    expect(fake.recorder.listener.plainWhileGroupReady).toBe(0);
    return fake.recorder.listener.decrypted - before;
  }

  it('a user who leaves and comes back is heard again: op 5 is announced again before their audio', async () => {
    const { fake, collector } = await call();
    const guest = fake.user('guest').id;
    await joinsTheGroup(fake, guest, 'the guest in the group');
    await fake.speak(guest, chirp(0.4, 300, 900));
    await waitFor(() => collector.count(guest) >= 20, 5000, 'the guest heard');
    fake.userLeaveVoice(guest);
    await waitFor(() => fake.dave()?.ready === true && !fake.dave()!.leaves.includes(guest), 8000, 'the guest removed');
    await joinsTheGroup(fake, guest, 'the guest back in the group');
    collector.clear();
    const spoken = chirp(1, 400, 1600);
    const sent = await fake.speak(guest, spoken);
    await waitFor(() => collector.count(guest) >= sent.packetsSent - 2, 5000, 'the guest heard after coming back');
    expect(bestCorrelation(spoken, collector.pcm(guest)).correlation).toBeGreaterThan(0.9);
    expect(fake.recorder.listener.plainWhileGroupReady).toBe(0);
  });

  it('a user who leaves in the middle of a phrase stops sending there: nothing of theirs arrives sealed outside the group', async () => {
    const { fake, collector } = await call();
    const guest = fake.user('guest').id;
    await joinsTheGroup(fake, guest, 'the guest in the group');
    collector.clear();
    const speaking = fake.speak(guest, chirp(3, 400, 1600)); // 150 frames
    await waitFor(() => collector.count(guest) >= 20, 5000, 'the guest heard');
    fake.userLeaveVoice(guest);
    const sent = await speaking;
    // Before, the other ~120 frames went on after the leave, sealed for a group the guest had left:
    // the day soak counted such a phrase as one the bridge lost.
    expect(sent.foreignE2eeFrames).toBe(0);
    expect(sent.leftMidway).toBe(true);
    expect(sent.packetsSent).toBeLessThan(sent.packetsPlanned / 2);
  });

  it('the bot alone, then the owner joins (new group), and a guest joining much later is committed by another member, not the bot', async () => {
    const { fake, voice, collector } = await call({ ownerInVoice: false });
    expect(status(voice).e2ee).toBe(false);
    fake.userJoinVoice(fake.owner.id);
    await waitFor(() => status(voice).e2ee && fake.dave()?.ready === true, 8000, 'the group formed with the owner');
    expect(await botIsHeard(fake, voice)).toBeGreaterThanOrEqual(28);
    // The late joiner (46 s in on Discord; compressed here) is committed by the owner's client.
    fake.voice.faults.dave.memberCommitsJoins = true;
    await sleep(1500);
    const epochBefore = fake.dave()!.epoch;
    const guest = fake.user('guest').id;
    await joinsTheGroup(fake, guest, 'the guest committed in');
    expect(fake.dave()!.epoch).toBe(epochBefore + 1n);
    expect(fake.dave()!.counters.rejectedCommits).toBeGreaterThanOrEqual(1); // the bot's own commit lost
    await waitFor(() => status(voice).epoch === Number(fake.dave()!.epoch), 5000, 'the bot at the new epoch');
    const [owner, guestSent] = await Promise.all([
      fake.speak(fake.owner.id, chirp(1, 300, 1200)),
      fake.speak(guest, chirp(1, 1500, 500)),
    ]);
    await waitFor(
      () =>
        collector.count(guest) >= guestSent.packetsSent - 2 && collector.count(fake.owner.id) >= owner.packetsSent - 2,
      5000,
      'both heard',
    );
    expect(await botIsHeard(fake, voice)).toBeGreaterThanOrEqual(28);
    expect(status(voice).speakers?.find((s) => s.user_id === guest)?.decrypt_ratio).toBeGreaterThan(0.95);
    expect(status(voice).speakers?.find((s) => s.user_id === guest)?.epoch).toBe(Number(fake.dave()!.epoch));
    expect(fake.recorder.listener.plainWhileGroupReady).toBe(0);
  });

  it("a silent re-key (one member's frames stop decrypting while another keeps talking) is noticed and healed within 2 s", async () => {
    const { fake, voice, collector } = await call();
    const guest = fake.user('guest').id;
    await joinsTheGroup(fake, guest, 'the guest in the group');
    await waitFor(() => status(voice).epoch === Number(fake.dave()!.epoch), 5000, 'the bot at the group epoch');
    // From now on the owner's client seals with a key the bot does not hold; the guest's frames still decrypt.
    fake.voice.faults.room.silentRekey(fake.owner.id, fake.dave()!);
    const [owner] = await Promise.all([
      fake.speak(fake.owner.id, chirp(5, 300, 1200), { silenceTail: false }),
      fake.speak(guest, chirp(5, 1500, 500), { silenceTail: false }),
    ]);
    await sleep(300);
    const heard = collector.count(fake.owner.id);
    // Deaf for at most 2 s (100 frames) of the 5 s utterance.
    expect(heard).toBeGreaterThanOrEqual(owner.packetsSent - 100);
    const ownerHealth = status(voice).speakers?.find((s) => s.user_id === fake.owner.id);
    expect(ownerHealth?.max_deaf_ms).toBeGreaterThan(0);
    expect(ownerHealth?.last_transition?.to).toBe('heard');
    expect(ownerHealth?.recoveries.rebuild).toBeGreaterThanOrEqual(1);
    // Their own packets failed to decrypt: straight to the rebuild (a new stream cannot open them).
    expect(ownerHealth?.recoveries.resubscribe).toBe(0);
    expect(ownerHealth?.deaf).toBe(false);
    expect(fake.voice.faults.room.silentRekeyFrames).toBeGreaterThan(0);
    expect(await botIsHeard(fake, voice)).toBeGreaterThanOrEqual(28);
  });

  it('a silent re-key of someone talking alone is healed by our rebuild on their counted failures, not by the library at 36', async () => {
    const { fake, voice, collector } = await call();
    const guest = fake.user('guest').id;
    await joinsTheGroup(fake, guest, 'the guest in the group');
    await waitFor(() => status(voice).epoch === Number(fake.dave()!.epoch), 5000, 'the bot at the group epoch');
    const rebuildsBefore = status(voice).rebuilds;
    fake.voice.faults.room.silentRekey(guest, fake.dave()!);
    const sent = await fake.speak(guest, chirp(1.2, 300, 1200), { silenceTail: false });
    await sleep(300);
    const guestHealth = status(voice).speakers?.find((s) => s.user_id === guest);
    expect(guestHealth).toMatchObject({ deaf: false, last_transition: { to: 'heard', step: 'rebuild' } });
    expect(guestHealth?.recoveries).toMatchObject({ resubscribe: 0, rebuild: 1 });
    // Ours (counted in /health), not the library's own re-key after 36 failures in a row.
    expect(status(voice).rebuilds).toBe(rebuildsBefore + 1);
    const unopened = fake.voice.faults.room.silentRekeyFrames;
    expect(unopened).toBeGreaterThan(0);
    // What was not sealed with the missing key is all heard.
    expect(collector.count(guest)).toBeGreaterThanOrEqual(sent.packetsSent - unopened - 2);
    expect(await botIsHeard(fake, voice)).toBeGreaterThanOrEqual(28);
  });

  it('joined but not ready: a re-key whose key package is lost is offered again, and the owner is heard within 2 s', async () => {
    const { fake, voice, collector } = await call();
    await waitFor(() => status(voice).e2ee && fake.dave()?.ready === true, 8000, 'E2EE');
    // The bot re-keys (op 31 + a new key package) and the gateway never acts on that key package.
    fake.voice.faults.dave.dropKeyPackages = 1;
    fake.dave()!.sendInvalidCommit();
    await waitFor(() => fake.dave()!.counters.invalidCommitWelcomes >= 1, 5000, 'the op 31');
    const sent = await fake.speak(fake.owner.id, chirp(5, 300, 1200), { silenceTail: false });
    await sleep(300);
    expect(collector.count(fake.owner.id)).toBeGreaterThanOrEqual(sent.packetsSent - 100);
    expect(status(voice).rebuilds).toBeGreaterThanOrEqual(1);
    expect(status(voice).e2ee).toBe(true);
    expect(await botIsHeard(fake, voice)).toBeGreaterThanOrEqual(28);
  });

  it('everyone leaves mid-reply: the rest of the reply is dropped, not played to whoever comes back (channel emptied → 4006, fresh join)', async () => {
    const { fake, voice, collector, states } = await call();
    fake.voice.faults.room.emptyChannel = 'close4006';
    const reply = chirp(2.5, 600, 1800);
    const source = onceSource(reply);
    voice.startPlayback(source);
    await waitFor(() => fake.recorder.listener.decrypted >= 30, 8000, '600 ms of the reply heard');
    fake.userLeaveVoice(fake.owner.id);
    await waitFor(() => fake.voice.closeCodes.includes(4006), 5000, 'the 4006 close of an emptied channel');
    await sleep(3000);
    // The rest of the reply (about 1.9 s) was read and dropped while nobody was there.
    expect(source.frames).toBeGreaterThanOrEqual(reply.length / 1920);
    fake.recorder.clear();
    const decryptedBefore = fake.recorder.listener.decrypted;
    fake.userJoinVoice(fake.owner.id);
    await waitFor(
      () => voice.state === 'connected' && status(voice).e2ee && fake.dave()?.ready === true,
      10_000,
      'the call E2EE again',
    );
    await sleep(600);
    // What the owner hears on return: nothing of the old reply (kept, it would play at full level).
    expect(rms(fake.recorder.pcm())).toBeLessThan(rms(reply) / 100);
    expect(states.some((s) => s.startsWith('error'))).toBe(false);
    // And the room works again both ways.
    const spoken = chirp(0.8, 300, 900);
    const sent = await fake.speak(fake.owner.id, spoken);
    await waitFor(() => collector.count(fake.owner.id) >= sent.packetsSent - 2, 5000, 'the owner heard');
    expect(fake.recorder.listener.decrypted).toBeGreaterThanOrEqual(decryptedBefore);
    expect(await botIsHeard(fake, voice)).toBeGreaterThanOrEqual(28);
  });

  it('a resume after missing DAVE messages is closed 4006 (stale epoch) and the bot joins afresh, with a new transport key', async () => {
    const { fake, voice, collector } = await call();
    const firstKey = fake.botSession()!.secretKey!;
    const firstSession = fake.botSession()!;
    const guest = fake.user('guest').id;
    fake.closeVoice(4015); // resumable
    fake.userJoinVoice(guest); // the group re-keys while the bot is away
    await waitFor(() => fake.voice.closeCodes.includes(4006), 8000, 'the stale-epoch 4006');
    await waitFor(
      () =>
        fake.botSession() !== undefined &&
        fake.botSession() !== firstSession &&
        fake.dave()?.ready === true &&
        voice.state === 'connected',
      10_000,
      'a fresh join',
    );
    expect(fake.botSession()!.secretKey!.equals(firstKey)).toBe(false);
    await waitFor(() => fake.dave()!.leaves.includes(guest), 5000, 'the guest in the new group');
    const sent = await fake.speak(guest, chirp(1, 500, 1500));
    await waitFor(() => collector.count(guest) >= sent.packetsSent - 2, 5000, 'the guest heard');
    expect(await botIsHeard(fake, voice)).toBeGreaterThanOrEqual(28);
  });

  for (const [code, words] of [
    [4021, 'rate limited'],
    [4022, 'call terminated'],
  ] as const) {
    it(`close ${code} ends the call with a clear reason and no rejoin`, async () => {
      const { fake, voice, states } = await call();
      const joins = fake.joinRequestCount;
      fake.closeVoice(code);
      await waitFor(() => voice.state === 'error', 5000, 'the call ended');
      await sleep(1500);
      expect(voice.stateReason).toContain(words);
      expect(fake.joinRequestCount).toBe(joins);
      expect(states.filter((s) => s.startsWith('error'))).toHaveLength(1);
    });
  }

  it('a night of rotations (200 commits) leaves both directions working', async () => {
    const { fake, voice, collector } = await call();
    const stranger = fake.user('stranger').id;
    const commitsBefore = fake.dave()!.counters.commits;
    for (let i = 0; i < 100; i++) {
      fake.userJoinVoice(stranger);
      await waitFor(() => fake.dave()!.leaves.includes(stranger) && fake.dave()!.ready, 8000, `rotation ${i} join`);
      fake.userLeaveVoice(stranger);
      await waitFor(() => !fake.dave()!.leaves.includes(stranger) && fake.dave()!.ready, 8000, `rotation ${i} leave`);
    }
    expect(fake.dave()!.counters.commits - commitsBefore).toBeGreaterThanOrEqual(200);
    await waitFor(() => status(voice).epoch === Number(fake.dave()!.epoch), 5000, 'the bot at the last epoch');
    const spoken = chirp(1, 300, 1200);
    const sent = await fake.speak(fake.owner.id, spoken);
    await waitFor(() => collector.count(fake.owner.id) >= sent.packetsSent - 2, 5000, 'the owner heard');
    expect(await botIsHeard(fake, voice)).toBeGreaterThanOrEqual(28);
    expect(status(voice).rejoins).toBe(0);
  }, 120_000);
});
