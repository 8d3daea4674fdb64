// The latency bench's turn clock (bench/lib/latency-turn.ts): end of speech is the utterance's last
// sounding packet (not the silence tail the fake client adds), a turn the service ends while the
// owner is still talking is counted as a cut, and each reply's first audio is measured from both ends;
// an utterance's onset (where a barge-in starts) is its first sounding packet.
import { describe, expect, it } from 'vitest';
import { TurnClock, turnLatencies } from '../../../bench/lib/latency-turn.ts';
import { SERVICE_TIMING } from '../../../main/fakes/shared/service-timing.ts';

/** 48 kHz stereo: `packets` × 20 ms. */
const utterance = (packets: number) => new Int16Array(packets * 1920);

describe('TurnClock', () => {
  it('ends speech at the last sounding packet and measures to the stream end and first audio', () => {
    const clock = new TurnClock();
    const { onSent } = clock.utterance(utterance(3));
    for (const at of [1000, 1020, 1040, 1060, 1080]) onSent(at); // 3 speech packets, then 2 of the silence tail
    const timing = clock.turnEnded(1540, 400);
    expect(timing).toEqual({ endOfSpeechAt: 1040, streamEndAt: 1540, serviceQuietMs: 400 });
    const result = turnLatencies('gemini', clock, [timing], [1960]);
    expect(result.endOfSpeechToStreamEnd.p95_ms).toBe(500);
    // The service counted 400 ms of quiet: the other 100 ms is the bridge's share.
    expect(result.bridgeTurnShare.p95_ms).toBe(100);
    expect(result.endOfSpeechToFirstAudio.p95_ms).toBe(920);
    expect(result.streamEndToFirstAudio.p95_ms).toBe(420);
    expect(result.modelledFirstAudioMs).toBe(SERVICE_TIMING.gemini.firstAudioAfterTurnEndMs);
  });

  it("marks each utterance's onset at its first sounding packet, not at leading silence", () => {
    const clock = new TurnClock();
    const pcm = utterance(4);
    pcm.fill(3000, 2 * 1920 + 500, 4 * 1920); // silent for two packets, then sound
    const { onSent } = clock.utterance(pcm);
    for (const at of [2000, 2020, 2040, 2060]) onSent(at);
    const { onSent: second } = clock.utterance(utterance(2).fill(3000));
    for (const at of [3000, 3020]) second(at);
    expect(clock.onsets).toEqual([2040, 3000]);
  });

  it('counts a turn ended mid-utterance as a cut, not as a latency', () => {
    const clock = new TurnClock();
    const { onSent } = clock.utterance(utterance(10));
    onSent(1000);
    expect(clock.turnEnded(1100, 500)).toBeNull();
    expect(clock.cutMidUtterance).toBe(1);
    expect(turnLatencies('openai-live', clock, [], []).endOfSpeechToStreamEnd.count).toBe(0);
  });
});
