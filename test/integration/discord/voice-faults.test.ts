// Fault injection against the real @discordjs/voice: socket closes, refused rejoins, DAVE
// required, packet loss, the owner leaving, the XChaCha-only server and the opusscript fallback.
import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { bestCorrelation, chirp, fakeCallFixture, onceSource, waitFor } from './helpers.ts';

describe('Discord voice adapter under faults', () => {
  const fixture = fakeCallFixture();
  const setup = fixture.start;
  afterEach(fixture.stop);

  it('resumes after close 4015 and keeps receiving audio', async () => {
    const { fake, voice, states, collector } = await setup();
    await voice.join();
    const session = fake.botSession();
    expect(fake.closeVoice(4015)).toBe(true);
    await waitFor(() => (session?.resumes ?? 0) >= 1 && voice.state === 'connected', 5000, 'resume');
    expect(fake.botSession()).toBe(session); // same session: resumed (op 7 → op 9), not rejoined
    expect(fake.joinRequestCount).toBe(1);
    expect(states).toContain('reconnecting');
    const signal = chirp(0.8, 300, 2000);
    await fake.speak(fake.owner.id, signal);
    await waitFor(() => collector.count(fake.owner.id) >= 40, 5000, 'audio after resume');
    expect(bestCorrelation(signal, collector.pcm(fake.owner.id)).correlation).toBeGreaterThanOrEqual(0.9);
  });

  it('rejoins after close 4006 (session no longer valid) with a new session', async () => {
    const { fake, voice, collector } = await setup();
    await voice.join();
    const first = fake.botSession();
    fake.closeVoice(4006);
    await waitFor(
      () => {
        const current = fake.botSession();
        return current !== undefined && current !== first && current.mode !== null && voice.state === 'connected';
      },
      5000,
      'rejoin',
    );
    expect(fake.joinRequestCount).toBe(2);
    await fake.speak(fake.owner.id, chirp(0.5, 300, 2000));
    await waitFor(() => collector.count(fake.owner.id) >= 25, 5000, 'audio after rejoin');
  });

  it('stops with a clear error on 4017 instead of a rejoin storm', async () => {
    const { fake, voice, states } = await setup();
    await voice.join();
    fake.closeVoice(4017);
    await waitFor(() => voice.state === 'error', 5000, 'error state');
    await sleep(1500); // a storm would send dozens of op 4 payloads in this time
    expect(voice.stateReason).toMatch(/4017/);
    expect(fake.joinRequestCount).toBeLessThanOrEqual(2);
    expect(fake.op4Payloads.at(-1)?.channel_id).toBeNull(); // left the channel cleanly
    expect(states.at(-1)).toMatch(/^error:.*DAVE/);
  });

  it('gives up after a handful of rejoins when the server keeps refusing', async () => {
    const { fake, voice } = await setup();
    await voice.join();
    fake.closeVoice(4006, { sticky: true });
    await waitFor(() => voice.state === 'error', 8000, 'error state');
    await sleep(1000);
    expect(voice.stateReason).toMatch(/rejoin limit/);
    // 1 join + at most 4 rejoins (the default budget).
    expect(fake.joinRequestCount).toBeLessThanOrEqual(5);
    expect(fake.voice.identifies.length).toBeLessThanOrEqual(5);
  });

  it('fails the join clearly when the server requires DAVE and the bot offers none', async () => {
    const { fake, voice } = await setup({ requireDave: true }, { daveEncryption: false });
    await expect(voice.join()).rejects.toThrow(/DAVE/);
    await sleep(1000);
    expect(voice.state).toBe('error');
    expect(fake.voice.closeCodes).toContain(4017);
    expect(fake.joinRequestCount).toBeLessThanOrEqual(2);
  });

  it('keeps the stream going with 5 % packet loss and jitter', async () => {
    const { fake, voice, collector } = await setup();
    await voice.join();
    const result = await fake.speak(fake.owner.id, chirp(2, 200, 2000), { loss: 0.05, jitterMs: 8, seed: 7 });
    const dropped = result.packetsPlanned - result.packetsSent;
    expect(dropped).toBeGreaterThan(0);
    // Every packet that arrived is decoded: 100 audio frames + 5 silence frames minus the lost ones.
    // (2 frames of slack: on a loaded machine the first packet can beat the op 5 SSRC mapping.)
    await waitFor(() => collector.count(fake.owner.id) >= result.packetsSent - 2, 5000, 'all surviving frames');
    expect(collector.count(fake.owner.id)).toBeLessThanOrEqual(result.packetsSent);
    await fake.speak(fake.owner.id, chirp(0.4, 300, 900));
    await waitFor(() => collector.count(fake.owner.id) >= result.packetsSent + 20, 5000, 'the next utterance');
  });

  it('survives a UDP outage: nothing arrives while dropped, audio flows again after', async () => {
    const { fake, voice, collector } = await setup();
    await voice.join();
    fake.dropUdp(true);
    await fake.speak(fake.owner.id, chirp(0.4, 300, 900));
    await sleep(200);
    expect(collector.count(fake.owner.id)).toBe(0);
    fake.dropUdp(false);
    await fake.speak(fake.owner.id, chirp(0.4, 300, 900));
    await waitFor(() => collector.count(fake.owner.id) >= 20, 5000, 'audio after the outage');
    expect(voice.state).toBe('connected');
  });

  it('emits ownerLeft and, when asked, leaves with the owner', async () => {
    const { fake, voice, states } = await setup({}, { leaveWhenOwnerLeaves: true });
    await voice.join();
    let ownerLeft = 0;
    voice.on('ownerLeft', () => ownerLeft++);
    fake.userLeaveVoice(fake.owner.id);
    await waitFor(() => voice.state === 'disconnected', 5000, 'leave');
    expect(ownerLeft).toBe(1);
    expect(states.at(-1)).toBe('disconnected:left');
    await waitFor(() => fake.botChannelId() === null, 2000, 'bot out of the channel');
    expect(fake.op4Payloads.at(-1)?.channel_id).toBeNull();
  });

  it('works with an XChaCha20-only server and the opusscript fallback', async () => {
    const { fake, voice, collector } = await setup(
      { modes: ['aead_xchacha20_poly1305_rtpsize'] },
      { opusLibrary: 'opusscript' },
    );
    await voice.join();
    expect(voice.opusLibrary).toBe('opusscript');
    expect(fake.botSession()?.mode).toBe('aead_xchacha20_poly1305_rtpsize');
    const played = chirp(0.6, 2500, 400);
    const source = onceSource(played);
    voice.startPlayback(source);
    const spoken = chirp(0.6, 300, 2500);
    await fake.speak(fake.owner.id, spoken, { extensionWords: 1 });
    await waitFor(() => collector.count(fake.owner.id) >= 30 && source.frames > 40, 5000, 'audio both ways');
    expect(bestCorrelation(spoken, collector.pcm(fake.owner.id)).correlation).toBeGreaterThanOrEqual(0.9);
    expect(bestCorrelation(played, fake.recorder.pcm()).correlation).toBeGreaterThanOrEqual(0.9);
  });
});
