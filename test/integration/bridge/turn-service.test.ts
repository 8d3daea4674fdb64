// The service decides when a turn ends (issue #52), on the fakes, for every provider: a speaker
// says half a sentence, pauses 700 ms (Discord sends no packets in it) and finishes. The bridge
// must (1) keep the service's audio clock running through the pause, never ahead of real time (a
// burst of silence would make the service's detector see a longer pause than there was: an end of
// turn of the bridge's own), and (2) send no end of input of its own in the pause: the service's
// detector ends the turn after the speaker is done, and only then does the bridge end the stream.
// Before #52 the gate's close 500 ms into the pause was the end on every provider (audioStreamEnd on
// Gemini, 600 ms of silence in one burst on the others). The fakes end turns from the audio they
// receive (Gemini's activity detection, server_vad, GPT-Live's own 500 ms window: docs/providers.md).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Patience } from '../../../main/core/contracts/patience.ts';
import { startFakeXai, type FakeXai } from '../../../main/fakes/xai/server.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { chirpStereo, waitFor } from './signals.ts';

let call: CoreOnFakes | null = null;
let xai: FakeXai | null = null;
afterEach(async () => {
  await call?.close();
  await xai?.close();
  call = null;
  xai = null;
});

/** What the test reads of the fake service a call is on. */
interface ServiceProbe {
  /** ms of user audio the service has received. */
  receivedMs(): number;
  /** Times the service's own detector ended a user turn (null: the fake does not say). */
  serviceTurnEnds(): number | null;
  /** End-of-input signals the bridge sent (Gemini audioStreamEnd, a Realtime commit). */
  bridgeEnds(): number;
}

const PAUSE_MS = 700;
/** The send granularity (the default 100 ms chunk) and the loopback's scheduling: the most the service may be ahead of the clock. */
const AHEAD_TOLERANCE_MS = 300;

interface Case {
  provider: 'gemini' | 'openai-realtime' | 'openai-live' | 'xai';
  patience: Patience;
  /** The service's window is longer than the pause: its detector must not end the turn in it. */
  windowOverPause: boolean;
  probe(c: CoreOnFakes): Promise<ServiceProbe>;
}

const counted = (events: { type?: unknown }[], type: string): number => events.filter((e) => e.type === type).length;

const CASES: Case[] = [
  {
    provider: 'gemini',
    patience: 'natural',
    windowOverPause: true,
    async probe(c) {
      const m = await c.gemini.connection(0);
      // 3.8 reports its activity detection's end (voiceActivity ACTIVITY_END).
      const activityEnds = () =>
        m.sent.filter(
          (x) => (x.voiceActivity as { voiceActivityType?: string } | undefined)?.voiceActivityType === 'ACTIVITY_END',
        ).length;
      return {
        receivedMs: () => m.inputSamples / 16,
        serviceTurnEnds: activityEnds,
        bridgeEnds: () => m.audioStreamEnds,
      };
    },
  },
  {
    // An explicit window: server_vad silence_duration_ms 1000 (the fake's semantic_vad stand-in is the fakes' own work).
    provider: 'openai-realtime',
    patience: 1000,
    windowOverPause: true,
    async probe(c) {
      const m = await c.openai.connection(0);
      return {
        receivedMs: () => m.inputSamples / 24,
        serviceTurnEnds: () => counted(m.sent, 'input_audio_buffer.speech_stopped'),
        bridgeEnds: () => counted(m.received, 'input_audio_buffer.commit'),
      };
    },
  },
  {
    // GPT-Live's window is its own (no setting): only the clock and the bridge's silence are pinned.
    provider: 'openai-live',
    patience: 'natural',
    windowOverPause: false,
    async probe(c) {
      const m = await c.openaiLive.connection(0);
      return {
        receivedMs: () => (m.audio.reduce((n, a) => n + a.length, 0) * 1000) / m.rate,
        serviceTurnEnds: () => null,
        bridgeEnds: () => 0,
      };
    },
  },
  {
    provider: 'xai',
    patience: 'natural',
    windowOverPause: true,
    async probe() {
      const m = await xai!.connection(0);
      // The Realtime engine under the xAI fake counts at its own 24 kHz, whatever rate we send.
      return {
        receivedMs: () => m.inputSamples / 24,
        serviceTurnEnds: () => counted(m.sent, 'input_audio_buffer.speech_stopped'),
        bridgeEnds: () => counted(m.received, 'input_audio_buffer.commit'),
      };
    },
  },
];

/**
 * Polls the service's received audio against the wall clock: the most it ran ahead of real time
 * since the watch began (just before the speech). Measured from the watch's start, not from the
 * first chunk seen: a first chunk that arrives late (the machine busy) would make every chunk after
 * it that arrives on time read as "ahead", though the service never got audio faster than it was said.
 */
function clockWatch(probe: ServiceProbe): { maxAheadMs: () => number; stop: () => void } {
  const start = { at: performance.now(), ms: probe.receivedMs() };
  let maxAhead = 0;
  const timer = setInterval(() => {
    const ms = probe.receivedMs();
    const at = performance.now();
    maxAhead = Math.max(maxAhead, ms - start.ms - (at - start.at));
  }, 5);
  return { maxAheadMs: () => maxAhead, stop: () => clearInterval(timer) };
}

describe.each(CASES)('the service ends the turn ($provider, patience $patience)', (tc) => {
  it(`a ${PAUSE_MS} ms pause mid-sentence is not a turn end: the service hears it in real time, the bridge ends nothing before the service does`, async () => {
    if (tc.provider === 'xai') xai = await startFakeXai({ autoReply: false });
    const c = await startCoreOnFakes({
      env: () => ({
        DISCORD_VOICE_LIVE_PROVIDER: tc.provider,
        ...(xai ? { XAI_API_KEY: `fake-xai-key-${process.pid}`, XAI_BASE_URL: xai.url } : {}),
      }),
    });
    call = c;
    expect((await c.post('/join', { patience: tc.patience })).status).toBe(200);
    const probe = await tc.probe(c);
    const clock = clockWatch(probe);
    try {
      await c.discord.speak(c.discord.owner.id, chirpStereo(0.6, 300, 3000, 48_000));
      await sleep(PAUSE_MS);
      // Mid-sentence: nothing has ended the turn, neither the bridge nor (its window being longer) the service.
      expect(probe.bridgeEnds(), 'the bridge ended the input in the pause').toBe(0);
      if (tc.windowOverPause)
        expect(probe.serviceTurnEnds() ?? 0, "the service's detector ended the turn in the pause").toBe(0);
      // The pause reached the service as it happened: at least most of it, as silence, while it lasted.
      expect(probe.receivedMs()).toBeGreaterThanOrEqual(600 + PAUSE_MS - 400);
      await c.discord.speak(c.discord.owner.id, chirpStereo(0.6, 300, 3000, 48_000));
      // Done: the service's detector (or, where the fake has none, the bridge's silence cap) ends it.
      await waitFor(
        () => (probe.serviceTurnEnds() ?? 0) + probe.bridgeEnds() > 0 || tc.provider === 'openai-live',
        'the turn to end',
        10_000,
      );
      if (tc.windowOverPause && probe.serviceTurnEnds() !== null)
        expect(probe.serviceTurnEnds(), 'one turn, not two').toBe(1);
      // The service ended it: a Realtime bridge sends no commit of its own on top; Gemini's audioStreamEnd follows the service's end.
      if (tc.provider === 'gemini')
        await waitFor(() => probe.bridgeEnds() === 1, 'audioStreamEnd after the service ended the turn');
      else if (probe.serviceTurnEnds()) expect(probe.bridgeEnds()).toBe(0);
      expect(clock.maxAheadMs(), 'ms the service was ahead of real time').toBeLessThan(AHEAD_TOLERANCE_MS);
    } finally {
      clock.stop();
    }
  }, 40_000);
});
