// The `sileroVad` setting reaches the call's gate (GateStage.useClassifier) and the core loads the
// check once (VoiceCheck): with a check that calls nothing speech, a loud onset opens no turn and
// nothing reaches the model; with none, or one that calls it speech, the same onset does. A check that
// cannot load is said once, and the call runs on the energy gate alone.
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { VoiceActivityClassifier } from '../../../main/core/audio/index.ts';
import { VoiceCheck } from '../../../main/core/audio/index.ts';
import { GateStage } from '../../../main/core/bridge/input-stages.ts';
import { CallMetrics } from '../../../main/core/bridge/metrics.ts';
import { connectListed, type SpeechSink } from '../../../main/core/bridge/pipeline.ts';

/** A check that answers every window at once with `probability`. */
function fixedCheck(probability: number): VoiceActivityClassifier {
  return { windowSamples: 512, reset: () => undefined, classify: (_w, onResult) => onResult(probability) };
}

/** A gate stage whose output counts what would reach the model. */
function gateStage(): { gate: GateStage; chunks: () => number } {
  const gate = new GateStage({ chunkMs: 100, metrics: new CallMetrics(), now: () => 0 });
  let chunks = 0;
  const sink: SpeechSink = { stage: 'wake', caps: 'speech@16k', push: () => void chunks++, end: () => undefined };
  connectListed(gate.stage, sink);
  return { gate, chunks: () => chunks };
}

/** 600 ms of a loud 200 Hz tone, in 20 ms frames, then a second of silence as time. */
function speak(gate: GateStage): void {
  const frame = new Int16Array(320);
  for (let f = 0; f < 30; f++) {
    for (let i = 0; i < frame.length; i++)
      frame[i] = Math.round(8000 * Math.sin((2 * Math.PI * 200 * (f * 320 + i)) / 16_000));
    gate.stage.input.push(frame, 0);
  }
  gate.stage.input.silence(16_000);
}

describe('the voice check in the call gate', () => {
  it('a check that hears no speech keeps the onset out; none, or one that hears speech, lets it through', () => {
    const none = gateStage();
    speak(none.gate);
    expect(none.chunks()).toBeGreaterThan(0);

    const refusing = gateStage();
    refusing.gate.useClassifier(fixedCheck(0.05));
    expect(refusing.gate.voiceCheck).toBe(true);
    speak(refusing.gate);
    expect(refusing.chunks()).toBe(0);

    const confirming = gateStage();
    confirming.gate.useClassifier(fixedCheck(0.9));
    speak(confirming.gate);
    expect(confirming.chunks()).toBeGreaterThan(0);

    // Off again at the next call: the energy gate alone.
    refusing.gate.useClassifier(null);
    expect(refusing.gate.voiceCheck).toBe(false);
    speak(refusing.gate);
    expect(refusing.chunks()).toBeGreaterThan(0);
  });

  it('the core loads the check once when the setting is on, and none when it is off', async () => {
    let on = false;
    const notes: string[] = [];
    const check = new VoiceCheck(
      () => on,
      pino({ level: 'silent' }),
      (text) => notes.push(text),
    );
    expect(await check.forCall()).toBeNull();
    on = true;
    const first = await check.forCall();
    const second = await check.forCall();
    expect(second).toBe(first);
    // The optional packages are in the lock (installed with the project): Silero v5 loads, nothing said.
    expect(first?.windowSamples).toBe(512);
    expect(notes).toEqual([]);
  });
});
