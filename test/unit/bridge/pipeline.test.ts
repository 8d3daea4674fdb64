// The call's pipeline (main/core/bridge/pipeline.ts): a Bridge's stages, as they report their own
// wiring, are the declared list in order; a stage's output can only be connected through
// connectListed, which refuses an edge the list does not have (Stage.connect takes a token that
// pipeline.ts does not export: a call without it does not compile, a forged one throws); in product
// code connectListed is called only by wireCall, and wireCall only by the call's assembly; the
// assembly builds its parts in dependency order; and neighbours whose rates disagree do not compile.
// What this does not prove: that a stage's code pushes only to its own outlet (a stage could still
// call another part directly; the stages' files are small enough to read for that).
import { EventEmitter } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Bridge } from '../../../main/core/bridge/bridge.ts';
import { Upsampler24kTo48k } from '../../../main/core/audio/upsampler.ts';
import { CallAudio } from '../../../main/core/bridge/call-audio.ts';
import { ModelAudioStage } from '../../../main/core/bridge/call-stages.ts';
import { ReceiveStage } from '../../../main/core/bridge/input-stages.ts';
import { CallMetrics } from '../../../main/core/bridge/metrics.ts';
import {
  assertWiredAsListed,
  CALL_INPUT,
  CALL_OUTPUT,
  connectListed,
  lastStage,
  stageOf,
  Outlet,
  wireCall,
  type PipelineView,
  type SpeechSink,
} from '../../../main/core/bridge/pipeline.ts';
import { EventHub } from '../../../main/core/event-hub.ts';
import type {
  LiveModelProvider,
  PlaybackSource,
  VoiceChannelEvents,
  VoiceChannelPort,
} from '../../../main/core/ports.ts';
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
  return new Bridge({
    voice: new IdleVoice(),
    model: noModel,
    tools: new ToolRegistry(),
    notes,
    hub: new EventHub(),
    logger: pino({ level: 'silent' }),
  });
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
  const wake = stageOf(
    'wake',
    {
      stage: 'wake',
      caps: 'speech@16k',
      push: (c: Int16Array) => wakeOut.next.push(c),
      end: () => wakeOut.next.end(),
    } as SpeechSink,
    wakeOut,
  );
  const chunks: number[] = [];
  const model = lastStage('model', {
    stage: 'model',
    caps: 'speech@16k',
    push: (c: Int16Array) => chunks.push(c.length),
    end: () => undefined,
  } as SpeechSink);
  const modelAudio = new ModelAudioStage();
  /** What the encoder stand-in was started on: the source it would pull. */
  const player: { source: PlaybackSource | null; starts: number; stops: number } = {
    source: null,
    starts: 0,
    stops: 0,
  };
  const encode = lastStage('encode', {
    stage: 'encode',
    caps: 'pull@48k',
    start: (source: PlaybackSource) => {
      player.source = source;
      player.starts += 1;
    },
    stop: () => {
      player.source = null;
      player.stops += 1;
    },
  } as const);
  return { audio, receive, wake, model, modelAudio, encode, chunks, player };
}

/** parts(), wired by wireCall as a Bridge is. */
function wired() {
  const p = parts();
  wireCall(
    {
      receive: p.receive.stage,
      mix: p.audio.mix,
      resample: p.audio.resample.stage,
      gate: p.audio.gate.stage,
      wake: p.wake,
      model: p.model,
    },
    {
      'model-audio': p.modelAudio.stage,
      playback: p.audio.playback,
      upsample: p.audio.upsample.stage,
      encode: p.encode,
    },
  );
  return p;
}

describe('the call pipeline', () => {
  it('a Bridge is wired as the list says: receive → mix → resample → gate → wake → model; model-audio → playback → upsample → encode', () => {
    expect(CALL_INPUT).toEqual(['receive', 'mix', 'resample', 'gate', 'wake', 'model']);
    expect(CALL_OUTPUT).toEqual(['model-audio', 'playback', 'upsample', 'encode']);
    const { pipeline } = bridge();
    expect(pipeline).toEqual(listed());
    expect(pipeline.input.map((s) => s.stage)).toEqual([...CALL_INPUT]);
    expect(pipeline.output.map((s) => s.stage)).toEqual([...CALL_OUTPUT]);
  });

  it('frames go through the listed stages: a speaker frame into receive comes out of the gate as a chunk at the model', () => {
    const p = wired();
    p.audio.start();
    const loud = Int16Array.from({ length: 960 }, (_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 48_000)),
    );
    for (let f = 0; f < 20; f++) p.receive.pcm('owner', loud);
    p.audio.stop();
    expect(p.chunks.length).toBeGreaterThan(0);
    expect(p.chunks.every((n) => n === 320)).toBe(true); // 20 ms at 16 kHz: the resample stage ran
  });

  it('model audio goes through the listed stages: a 24 kHz chunk into model-audio is pulled out of upsample by the encoder, at 48 kHz', () => {
    const p = wired();
    p.audio.start();
    const reply = Int16Array.from({ length: 2400 }, (_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24_000)),
    );
    const out = new Int16Array(960);
    // As from a call's start (EncoderStage.begin), the player pulls silence until the output goes idle.
    for (let f = 0; f < 5; f++) p.audio.playbackSource.readFrame(out);
    expect(p.player).toMatchObject({ starts: 0, stops: 1 });
    expect(p.modelAudio.play(reply), 'a reply starts').toBe(true);
    // playback started upsample, which started the encoder on its own (48 kHz) output.
    expect(p.player.starts).toBe(1);
    const source = p.player.source!;
    expect(source).toBe(p.audio.playbackSource);
    const played: number[] = [];
    for (let f = 0; f < 5; f++) {
      source.readFrame(out);
      played.push(...out);
    }
    expect(played).toEqual([...new Upsampler24kTo48k().process(reply)]);
    p.audio.stop();
  });

  it('a stage wired outside the list (gate straight to the model, skipping wake) is refused, however it is tried', () => {
    const p = parts();
    expect(() => connectListed(p.audio.gate.stage, p.model.input)).toThrow('gate feeds wake in the list, not model');
    // @ts-expect-error Stage.connect takes pipeline.ts's token, which it does not export
    expect(() => p.audio.gate.stage.connect(p.model.input)).toThrow(
      'gate: stages are connected only from the list (connectListed)',
    );
    // @ts-expect-error nor does a look-alike symbol pass for it
    expect(() => p.audio.gate.stage.connect(p.model.input, Symbol('connectListed'))).toThrow(
      'connected only from the list',
    );
    expect(p.audio.gate.stage.downstream).toBeNull();
    // Wired once from the list, a stage cannot be wired again.
    connectListed(p.audio.gate.stage, p.wake.input);
    expect(() => connectListed(p.audio.gate.stage, p.wake.input)).toThrow('gate is already wired to wake');
  });

  it('in product code, stages are connected only by wireCall, and wireCall is called only by the call assembly', () => {
    const root = new URL('../../../main/', import.meta.url);
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const callers = (name: string) =>
      files
        .filter((f) =>
          new RegExp(`(?<![\\w.])${name}\\(`).test(
            readFileSync(new URL(f, root), 'utf8').replace(/export function \w+/g, ''),
          ),
        )
        .sort();
    expect(callers('connectListed')).toEqual(['core/bridge/pipeline.ts']);
    expect(callers('wireCall')).toEqual(['core/bridge/call-assembly.ts']);
    const pipeline = readFileSync(new URL('core/bridge/pipeline.ts', root), 'utf8');
    const wiring = pipeline.slice(pipeline.indexOf('export function wireCall'));
    // wireCall's edges, in order, are the list's: each stage to the next one of its direction.
    const edges = [
      ...wiring.matchAll(
        /connectListed\((?:input|output)(?:\.(\w+)|\['([\w-]+)'\]), (?:input|output)(?:\.(\w+)|\['([\w-]+)'\])\.input\)/g,
      ),
    ].map((m) => `${m[1] ?? m[2]}→${m[3] ?? m[4]}`);
    const chain = (list: readonly string[]) => list.slice(1).map((to, i) => `${list[i]}→${to}`);
    expect(edges).toEqual([...chain(CALL_INPUT), ...chain(CALL_OUTPUT)]);
  });

  it("the call's assembly builds each part from parts built before it (no forward reference)", () => {
    const source = readFileSync(new URL('../../../main/core/bridge/call-assembly.ts', import.meta.url), 'utf8');
    // assembleCall and the steps it runs in order (each from the results of the ones before it),
    // each function checked on its own: a part is used only on the lines after the one that builds it.
    const functions = source
      .slice(source.indexOf('export function assembleCall'))
      .split(/\n(?=(?:export )?function \w+)/)
      .map((body) => body.split('\n').map((line) => line.replace(/\/\/.*$/, '').replace(/'[^']*'/g, "''")));
    expect(functions.length).toBeGreaterThanOrEqual(4);
    let parts = 0;
    const early: string[] = [];
    for (const body of functions) {
      const name = /function (\w+)/.exec(body[0]!)![1];
      const declared = new Map<string, number>();
      body.forEach((line, i) => {
        const single = /^\s*const (\w+)(?::[^=]+)? =/.exec(line);
        const destructured = /^\s*const \{([^}]+)\} =/.exec(line);
        for (const n of single ? [single[1]!] : (destructured?.[1]!.split(',').map((m) => m.trim()) ?? []))
          if (!declared.has(n)) declared.set(n, i);
      });
      parts += declared.size;
      for (const [part, at] of declared) {
        // A use is the name not read as a property (o.name) nor written as an object key (name: …).
        const use = new RegExp(`(?<![\\w.])${part}\\b(?!\\s*:(?!:))`);
        body.slice(1, at).forEach((line, i) => {
          if (use.test(line)) early.push(`${name}: ${part} used on line ${i + 1} before it is built`);
        });
      }
    }
    expect(parts).toBeGreaterThan(20);
    expect(early).toEqual([]);
  });

  it('the Bridge constructor is an assembly of at most 40 lines', () => {
    const source = readFileSync(new URL('../../../main/core/bridge/bridge.ts', import.meta.url), 'utf8').split('\n');
    const start = source.findIndex((line) => line.startsWith('  constructor('));
    const end = source.findIndex((line, i) => i > start && line === '  }');
    expect(start).toBeGreaterThan(0);
    expect(end - start + 1).toBeLessThanOrEqual(40);
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
    expect(() => connectListed(audio.mix, audio.gate.stage.input)).toThrow('mix feeds resample in the list, not gate');
    // @ts-expect-error nor can the gate's speech chunks feed playback (24 kHz model audio)
    expect(() => connectListed(audio.gate.stage, audio.playback.input)).toThrow(
      'gate feeds wake in the list, not playback',
    );
    const { encode } = parts();
    // @ts-expect-error playback's 24 kHz frames cannot go to the encoder's 48 kHz pull (upsample sits between them)
    expect(() => connectListed(audio.playback, encode.input)).toThrow(
      'playback feeds upsample in the list, not encode',
    );
  });
});
