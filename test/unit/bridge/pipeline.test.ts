// The call's pipeline (main/core/bridge/pipeline.ts): a Bridge's stages, as they report their own
// wiring, are the declared list in order; a stage wired anywhere but from that list fails the
// assembly; and neighbours whose rates disagree do not compile.
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Bridge } from '../../../main/core/bridge/bridge.ts';
import { CallAudio } from '../../../main/core/bridge/call-audio.ts';
import { ReceiveStage } from '../../../main/core/bridge/input-stages.ts';
import { CallMetrics } from '../../../main/core/bridge/metrics.ts';
import {
  assertWiredAsListed,
  CALL_INPUT,
  CALL_OUTPUT,
  lastStage,
  stageOf,
  Outlet,
  wireCall,
  type ModelAudioSink,
  type PipelineView,
  type SpeechSink,
} from '../../../main/core/bridge/pipeline.ts';
import { EventHub } from '../../../main/core/event-hub.ts';
import type { LiveModelProvider, VoiceChannelEvents, VoiceChannelPort } from '../../../main/core/ports.ts';
import { ToolRegistry } from '../../../main/core/tools/registry.ts';
import { openNotesDb } from '../../helpers/notes-db.ts';

/** A voice port that is never joined: the bridge is only assembled here. */
class IdleVoice extends EventEmitter<VoiceChannelEvents> implements VoiceChannelPort {
  state = 'disconnected' as const;
  opusLibrary = null;
  join(): Promise<never> {
    return Promise.reject(new Error('not in these tests'));
  }
  async leave(): Promise<void> {}
  startPlayback(): void {}
  stopPlayback(): void {}
}

const noModel: LiveModelProvider = { name: 'none', connect: () => Promise.reject(new Error('not in these tests')) };

function bridge(): Bridge {
  const notes = openNotesDb(mkdtempSync(path.join(tmpdir(), 'lvb-pipeline-'))).log();
  return new Bridge({ voice: new IdleVoice(), model: noModel, tools: new ToolRegistry(), notes, hub: new EventHub(), logger: pino({ level: 'silent' }) });
}

/** The view a pipeline wired exactly as listed has. */
function listed(): PipelineView {
  const chain = (names: readonly string[]) => names.map((stage, i) => ({ stage, downstream: names[i + 1] ?? null }));
  return { input: chain(CALL_INPUT), output: chain(CALL_OUTPUT) } as PipelineView;
}

/** Every stage of a call, unwired, with a speech sink standing in for the wake gate and the model. */
function parts() {
  const audio = new CallAudio({ inputChunkMs: 20, metrics: new CallMetrics(), now: () => 0 });
  const receive = new ReceiveStage();
  const wakeOut = new Outlet<SpeechSink>('wake');
  const wake = stageOf('wake', { stage: 'wake', caps: 'speech@16k', push: (c: Int16Array) => wakeOut.next.push(c), end: () => wakeOut.next.end() } as SpeechSink, wakeOut);
  const chunks: number[] = [];
  const model = lastStage('model', { stage: 'model', caps: 'speech@16k', push: (c: Int16Array) => chunks.push(c.length), end: () => undefined } as SpeechSink);
  const modelAudio = stageOf('model-audio', null, new Outlet<ModelAudioSink>('model-audio'));
  const encode = lastStage('encode', { stage: 'encode', caps: 'pull@48k', start: () => undefined, stop: () => undefined } as const);
  return { audio, receive, wake, model, modelAudio, encode, chunks };
}

describe('the call pipeline', () => {
  it('a Bridge is wired as the list says: receive → mix → resample → gate → wake → model; model-audio → playback → encode', () => {
    expect(CALL_INPUT).toEqual(['receive', 'mix', 'resample', 'gate', 'wake', 'model']);
    expect(CALL_OUTPUT).toEqual(['model-audio', 'playback', 'encode']);
    const { pipeline } = bridge();
    expect(pipeline).toEqual(listed());
    expect(pipeline.input.map((s) => s.stage)).toEqual([...CALL_INPUT]);
    expect(pipeline.output.map((s) => s.stage)).toEqual([...CALL_OUTPUT]);
  });

  it('frames go through the listed stages: a speaker frame into receive comes out of the gate as a chunk at the model', () => {
    const p = parts();
    wireCall(
      { receive: p.receive.stage, mix: p.audio.mix, resample: p.audio.resample.stage, gate: p.audio.gate.stage, wake: p.wake, model: p.model },
      { 'model-audio': p.modelAudio, playback: p.audio.playback, encode: p.encode },
    );
    p.audio.start();
    const loud = Int16Array.from({ length: 960 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 48_000)));
    for (let f = 0; f < 20; f++) p.receive.pcm('owner', loud);
    p.audio.stop();
    expect(p.chunks.length).toBeGreaterThan(0);
    expect(p.chunks.every((n) => n === 320)).toBe(true); // 20 ms at 16 kHz: the resample stage ran
  });

  it('a stage wired outside the list (gate straight to the model, skipping wake) fails the assembly', () => {
    const p = parts();
    p.audio.gate.stage.connect(p.model.input);
    expect(() =>
      wireCall(
        { receive: p.receive.stage, mix: p.audio.mix, resample: p.audio.resample.stage, gate: p.audio.gate.stage, wake: p.wake, model: p.model },
        { 'model-audio': p.modelAudio, playback: p.audio.playback, encode: p.encode },
      ),
    ).toThrow('gate is already wired to model');
  });

  it('a wiring that is not the list is refused: a stage feeding another than the next one, or stages out of order', () => {
    const skipped = listed();
    skipped.input[3] = { stage: 'gate', downstream: 'model' };
    expect(() => assertWiredAsListed(skipped)).toThrow('gate feeds model, the list says wake');
    const swapped = listed();
    [swapped.output[0], swapped.output[1]] = [swapped.output[1]!, swapped.output[0]!];
    expect(() => assertWiredAsListed(swapped)).toThrow('stage 0 is playback, the list says model-audio');
    expect(() => assertWiredAsListed(listed())).not.toThrow();
  });

  it('rates are part of the edge types: neighbours that disagree do not compile', () => {
    const { audio } = parts();
    // @ts-expect-error the mix's 48 kHz output cannot feed the gate's 16 kHz input (resample sits between them)
    expect(() => audio.mix.connect(audio.gate.stage.input)).not.toThrow();
    // @ts-expect-error nor can the gate's speech chunks feed playback (24 kHz model audio)
    expect(() => audio.gate.stage.connect(audio.playback.input)).not.toThrow();
  });
});
