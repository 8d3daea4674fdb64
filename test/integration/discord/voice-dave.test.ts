// DAVE (Discord's end-to-end encrypted voice) on the real discord.js + @discordjs/voice against the
// fake voice server at DAVE v1: the fake users are real MLS members (davey sessions), so every frame
// the bridge decodes was really E2EE-decrypted and every frame the listener hears was really
// E2EE-encrypted by the bot. Counts and orderings, never wall-clock times.
import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DiscordVoiceAdapter } from '../../../main/core/voice/index.ts';
import type { FakeDiscordOptions } from '../../../main/fakes/discord/index.ts';
import { bestCorrelation, chirp, fakeCallFixture, onceSource, waitFor } from './helpers.ts';

describe('DAVE end-to-end encryption on the loopback fake', () => {
  const fixture = fakeCallFixture();
  afterEach(fixture.stop);

  /** A joined call; the guest may speak too. */
  async function setup(fakeOptions: FakeDiscordOptions = {}) {
    const call = await fixture.start(fakeOptions, (fake) => ({
      readyTimeoutMs: 8000,
      allowedSpeakers: [fake.owner.id, fake.user('guest').id],
    }));
    await call.voice.join();
    return call;
  }

  const status = (v: DiscordVoiceAdapter) => {
    const s = v.daveStatus?.();
    if (!s) throw new Error('no DAVE status');
    return s;
  };

  it('is E2EE both ways from the first audible frame: correlation > 0.99, padded frames decoded, no plain frame reaches the listener', async () => {
    const { fake, voice, collector } = await setup();
    const group = fake.dave();
    expect(group).not.toBeNull();
    // join() resolved with the group ready: same epoch and privacy code on both sides.
    expect(status(voice)).toMatchObject({ protocol_version: 1, e2ee: true, ready: true, epoch: 1 });
    expect(status(voice).privacy_code).toBe(group!.member(fake.owner.id)!.voicePrivacyCode);
    expect(status(voice).privacy_code).toMatch(/^\d{30}$/);

    const spoken = chirp(1.2, 200, 3000);
    const played = chirp(1.2, 3000, 300);
    const source = onceSource(played);
    voice.startPlayback(source);
    // Every packet padded (P bit) and carrying a header extension, as the strictest client would send.
    const sent = await fake.speak(fake.owner.id, spoken, { paddingShare: 1 });
    await waitFor(
      () => collector.count(fake.owner.id) >= sent.packetsSent && source.frames > 75,
      8000,
      'audio both ways',
    );
    voice.stopPlayback();

    expect(sent.e2eeFrames).toBe(60);
    expect(sent.paddedFrames).toBe(sent.packetsSent);
    expect(sent.passthroughFrames).toBe(5); // the silence tail, never encrypted
    expect(collector.count(fake.owner.id)).toBe(sent.packetsSent);
    expect(bestCorrelation(spoken, collector.pcm(fake.owner.id)).correlation).toBeGreaterThan(0.99);

    const heard = fake.recorder.pcm();
    expect(bestCorrelation(played, heard).correlation).toBeGreaterThan(0.99);
    expect(bestCorrelation(spoken, heard).correlation).toBeLessThan(0.5); // negative control
    const listener = fake.recorder.listener;
    expect(listener.decrypted).toBeGreaterThanOrEqual(60);
    expect(listener.decrypted).toBe(listener.framesSent);
    expect(listener.plain).toBe(0);
    expect(listener.undecryptable).toBe(0);
    expect(fake.recorder.packets.filter((p) => !p.silence).every((p) => p.e2ee && p.heard)).toBe(true);
    expect(status(voice).decrypt_failures).toBe(0);
  });

  it('alone in the channel the bot holds its audio (silence frames only, source untouched), speaks E2EE once a member joins, and holds it again after the sole-member reset', async () => {
    const { fake, voice } = await fixture.start({ ownerInVoice: false }, (f) => ({
      guildId: f.guildId,
      channelId: f.voiceChannelId,
    }));
    await voice.join();
    expect(fake.dave()?.memberIds()).toEqual([]);
    expect(status(voice)).toMatchObject({ protocol_version: 1, e2ee: false, ready: false });
    const played = chirp(1, 3000, 300);
    const source = onceSource(played);
    voice.startPlayback(source);
    await waitFor(() => fake.recorder.packets.length >= 10, 5000, 'silence frames from the bot');
    expect(source.frames).toBe(0); // nothing of the reply was consumed while it could not be encrypted
    expect(fake.recorder.packets.every((p) => p.silence)).toBe(true);

    fake.userJoinVoice(fake.owner.id);
    await waitFor(
      () => source.frames > 60 && fake.recorder.listener.decrypted >= 50,
      8000,
      'E2EE audio after the owner joined',
    );
    voice.stopPlayback();
    expect(fake.recorder.listener.plain).toBe(0);
    const firstAudible = fake.recorder.packets.find((p) => !p.silence);
    expect(firstAudible).toMatchObject({ e2ee: true, heard: true });
    expect(bestCorrelation(played, fake.recorder.pcm()).correlation).toBeGreaterThan(0.99);

    // The last member leaves: the gateway resets the group (op 24, transition 0); no audio leaves the
    // bot, and since everyone left, what it would say is dropped rather than kept for whoever comes
    // back (issue #39: a reply to a room that no longer exists).
    fake.userLeaveVoice(fake.owner.id);
    await waitFor(
      () => status(voice).e2ee === false && status(voice).last_transition_id === 0,
      5000,
      'the sole-member reset',
    );
    fake.recorder.clear();
    const again = onceSource(played);
    voice.startPlayback(again);
    await waitFor(() => fake.recorder.packets.length >= 10, 5000, 'silence frames again');
    voice.stopPlayback();
    expect(again.frames).toBeGreaterThanOrEqual(fake.recorder.packets.length - 1);
    expect(fake.recorder.packets.every((p) => p.silence)).toBe(true);
  });

  it('joining while the owner talks: frames sealed for a group the bot is not in yet are dropped, never decoded into noise', async () => {
    const { fake, voice, collector } = await fixture.start({}, (f) => ({
      readyTimeoutMs: 8000,
      allowedSpeakers: [f.owner.id],
    }));
    // The handshake waits on the members' clients, as on Discord: the bot has its transport keys
    // (it receives the owner's packets) well before it can decrypt them.
    fake.voice.faults.dave.addDelayMs = 400;
    const amplitude = 2000;
    const spoken = chirp(4, 300, 300, amplitude);
    const joining = voice.join();
    // The owner is talking as the bot's voice session starts (speak() needs that session).
    await waitFor(() => fake.botSession() !== undefined, 8000, "the bot's voice session");
    const sent = await fake.speak(fake.owner.id, spoken);
    await joining;
    const heardFrames = sent.e2eeFrames + sent.passthroughFrames;
    await waitFor(() => collector.count(fake.owner.id) >= heardFrames - 2, 8000, 'the rest of the utterance');

    expect(sent.foreignE2eeFrames).toBeGreaterThan(0); // the owner talked before the bot was in the group
    expect(status(voice).undecrypted_frames).toBeGreaterThan(0); // ... and the bot received some of that
    expect(status(voice).undecrypted_frames).toBeLessThanOrEqual(sent.foreignE2eeFrames);
    // Only what the bot could decrypt was decoded: the tone, never ciphertext as loud noise.
    expect(collector.count(fake.owner.id)).toBeLessThanOrEqual(heardFrames);
    const heard = collector.pcm(fake.owner.id);
    let loudest = 0;
    for (const v of heard) loudest = Math.max(loudest, Math.abs(v));
    expect(loudest).toBeGreaterThan(amplitude / 2);
    expect(loudest).toBeLessThan(amplitude * 1.3);
    expect(status(voice).decrypt_failures).toBe(0);
  });

  it('a member joining and leaving mid-utterance changes the epoch twice and costs at most 3 frames', async () => {
    const { fake, voice, collector } = await setup();
    const group = fake.dave()!;
    const guest = fake.user('guest');
    const signal = chirp(3, 200, 2500);
    const speaking = fake.speak(fake.owner.id, signal);
    await waitFor(() => collector.count(fake.owner.id) >= 40, 5000, 'the utterance to start');
    fake.userJoinVoice(guest.id);
    await waitFor(() => group.epoch === 2n && group.canSpeak(guest.id), 5000, 'the guest in the group');
    await waitFor(() => collector.count(fake.owner.id) >= 90, 5000, 'more of the utterance');
    fake.userLeaveVoice(guest.id);
    await waitFor(() => group.epoch === 3n, 5000, 'the guest removed');
    const sent = await speaking;
    await waitFor(() => collector.count(fake.owner.id) >= sent.packetsSent - 3, 5000, 'the rest of the utterance');
    await sleep(200);
    expect(sent.packetsSent - collector.count(fake.owner.id)).toBeLessThanOrEqual(3);
    // op 27 → 28 → 29 → 23 → 22 for the add and for the remove, the bot committing both.
    const ops = group.events.filter((e) => e.dir !== 'member').map((e) => e.op);
    expect(ops.filter((op) => op === 27)).toHaveLength(3);
    expect(ops.filter((op) => op === 22)).toHaveLength(3);
    expect(status(voice)).toMatchObject({
      protocol_version: 1,
      e2ee: true,
      epoch: 3,
      transitions: 3,
      decrypt_failures: 0,
    });
    expect(fake.recorder.listener.plainWhileGroupReady).toBe(0);
  });

  it('downgrades to v0 (plain both ways) and upgrades back to E2EE', async () => {
    const { fake, voice, collector } = await setup();
    const group = fake.dave()!;
    group.downgrade();
    await waitFor(() => status(voice).protocol_version === 0 && group.protocolVersion === 0, 5000, 'the downgrade');
    fake.recorder.clear();
    const plain = await fake.speak(fake.owner.id, chirp(0.5, 300, 1500));
    expect(plain.e2eeFrames).toBe(0);
    voice.startPlayback(onceSource(chirp(0.4, 2000, 500)));
    await waitFor(
      () => collector.count(fake.owner.id) >= plain.packetsSent && fake.recorder.listener.plain >= 15,
      5000,
      'plain audio both ways',
    );
    voice.stopPlayback();

    group.upgrade();
    await waitFor(() => group.ready && status(voice).e2ee, 5000, 'the upgrade');
    expect(status(voice).protocol_version).toBe(1);
    collector.clear();
    const before = { ...fake.recorder.listener };
    const signal = chirp(0.6, 300, 2500);
    const sent = await fake.speak(fake.owner.id, signal);
    const played = chirp(0.5, 2500, 300);
    const source = onceSource(played);
    voice.startPlayback(source);
    await waitFor(
      () => collector.count(fake.owner.id) >= sent.packetsSent && source.frames > 30,
      5000,
      'E2EE audio after the upgrade',
    );
    voice.stopPlayback();
    expect(sent.e2eeFrames).toBe(30);
    expect(bestCorrelation(signal, collector.pcm(fake.owner.id)).correlation).toBeGreaterThan(0.99);
    expect(fake.recorder.listener.decrypted - before.decrypted).toBeGreaterThanOrEqual(25);
    expect(fake.recorder.listener.plainWhileGroupReady).toBe(0);
    const ops = group.events.filter((e) => e.dir === 'out').map((e) => e.op);
    expect(ops.slice(ops.indexOf(21))).toEqual(expect.arrayContaining([21, 22, 24, 27, 29, 22]));
  });

  it('answers an invalid commit with op 31 and is re-added through a member commit (welcome)', async () => {
    const { fake, voice, collector } = await setup();
    const group = fake.dave()!;
    group.sendInvalidCommit();
    await waitFor(
      () => group.counters.invalidCommitWelcomes === 1 && group.counters.welcomes === 1 && group.ready,
      5000,
      'the re-add',
    );
    await waitFor(() => status(voice).e2ee, 5000, 'E2EE again');
    expect(status(voice).epoch).toBe(2);
    expect(status(voice).privacy_code).toBe(group.member(fake.owner.id)!.voicePrivacyCode);
    const sent = await fake.speak(fake.owner.id, chirp(0.5, 300, 2000));
    await waitFor(() => collector.count(fake.owner.id) >= sent.packetsSent, 5000, 'audio after the re-add');
    expect(fake.recorder.listener.plainWhileGroupReady).toBe(0);
  });

  it('recovers from a run of decrypt failures at transition id 0: the stream is resubscribed and the session rebuilt', async () => {
    const { fake, voice, collector } = await setup();
    const group = fake.dave()!;
    // The next re-key is announced with transition id 0: the library keeps lastTransitionId 0 and,
    // after 36 failures, rethrows instead of recovering (DAVESession.ts:370-376).
    group.faults.nextTransitionIdZero = true;
    fake.userJoinVoice(fake.user('guest').id);
    await waitFor(
      () => group.epoch === 2n && group.ready && status(voice).epoch === 2,
      5000,
      'the transition-0 commit',
    );
    expect(status(voice).last_transition_id).toBe(0);

    const signal = chirp(4, 200, 2500);
    const sent = await fake.speak(fake.owner.id, signal, { corruptFrames: { from: 20, count: 60 } });
    expect(sent.corruptedFrames).toBe(60);
    await waitFor(() => status(voice).recoveries >= 1, 5000, 'the recovery');
    const s = status(voice);
    expect(s.decrypt_failures).toBeGreaterThan(36);
    expect(s.rebuilds).toBeGreaterThanOrEqual(1);
    expect(s.rejoins).toBe(0);
    expect(group.counters.invalidCommitWelcomes).toBeGreaterThanOrEqual(1);
    // 200 frames: 20 good, 60 damaged, 120 good. Recovery within 2 s = 100 frames after the damage ends.
    await sleep(300);
    expect(collector.count(fake.owner.id)).toBeGreaterThanOrEqual(20 + (120 - 100));
    // The stream was never given up on: the next utterance is decoded whole.
    collector.clear();
    const next = await fake.speak(fake.owner.id, chirp(0.6, 300, 2000));
    await waitFor(() => collector.count(fake.owner.id) >= next.packetsSent, 5000, 'the next utterance');
    expect(voice.state).toBe('connected');
  });

  it('when rebuilding does not help, rejoins voice at most 3 times a minute, and hears the speaker again once the damage stops', async () => {
    const { fake, voice, collector } = await setup();
    // Every commit at transition id 0 (the library never re-keys on its own), and 10 s of damaged frames.
    fake.voice.faults.dave.alwaysTransitionIdZero = true;
    fake.userJoinVoice(fake.user('guest').id);
    await waitFor(
      () => status(voice).last_transition_id === 0 && status(voice).epoch === 2,
      5000,
      'a transition-0 group',
    );
    const firstSession = fake.botSession();
    const sent = await fake.speak(fake.owner.id, chirp(11, 200, 2500), { corruptFrames: { from: 0, count: 500 } });
    const s = status(voice);
    expect(s.rebuilds).toBeGreaterThanOrEqual(1);
    expect(s.rejoins).toBeGreaterThanOrEqual(1);
    expect(s.rejoins).toBeLessThanOrEqual(3);
    expect(fake.botSession()).not.toBe(firstSession); // a real voice rejoin: a new session
    expect(fake.joinRequestCount).toBeLessThanOrEqual(1 + 3);
    expect(sent.corruptedFrames).toBeGreaterThan(300);
    fake.clearFaults();
    await waitFor(() => voice.state === 'connected' && status(voice).e2ee, 8000, 'connected and E2EE again');
    collector.clear();
    const next = await fake.speak(fake.owner.id, chirp(0.6, 300, 2000));
    await waitFor(() => collector.count(fake.owner.id) >= next.packetsSent, 8000, 'the speaker heard again');
  });

  it("recovers one speaker's run of decrypt failures at a non-zero transition id (op 31, re-key) at 8 packets, ahead of the library's 36", async () => {
    const { fake, voice, collector } = await setup();
    const group = fake.dave()!;
    expect(status(voice).last_transition_id).toBeGreaterThan(0);
    const sent = await fake.speak(fake.owner.id, chirp(4, 200, 2500), { corruptFrames: { from: 20, count: 60 } });
    await waitFor(() => status(voice).recoveries >= 1, 5000, 'the recovery');
    expect(group.counters.invalidCommitWelcomes).toBeGreaterThanOrEqual(1);
    // Ours, on the speaker's counted failures (speaker-health.ts); the library's own would come at 36 and not be counted.
    expect(status(voice).rebuilds).toBe(1);
    expect(collector.count(fake.owner.id)).toBeGreaterThanOrEqual(sent.packetsSent - 60 - 100);
    expect(voice.state).toBe('connected');
  });

  it('DAVE v0 stays an option on the fake; at v1 a bot offering no DAVE is closed with 4017 by default', async () => {
    const v0 = await setup({ daveProtocolVersion: 0 });
    expect(v0.fake.dave()).toBeNull();
    expect(status(v0.voice)).toMatchObject({ protocol_version: 0, e2ee: false, ready: true });
    const sent = await v0.fake.speak(v0.fake.owner.id, chirp(0.5, 300, 2000));
    expect(sent.e2eeFrames).toBe(0);
    await waitFor(() => v0.collector.count(v0.fake.owner.id) >= sent.packetsSent, 5000, 'plain audio');

    const strict = await fixture.start({}, { daveEncryption: false });
    await expect(strict.voice.join()).rejects.toThrow(/DAVE/);
    expect(strict.fake.voice.closeCodes).toContain(4017);
  });
});
