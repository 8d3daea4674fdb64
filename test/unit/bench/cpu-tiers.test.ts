// bench/cpu-tiers.ts reads `perf script` call chains and says which tier of code spent the CPU.
// A wrong reading would blame the wrong thing: a baseline function's inline-cache builtins counted
// as "native", a TurboFan frame counted as unoptimized, or the kernel counted as JavaScript.
import { describe, expect, it } from 'vitest';
import {
  classifySample,
  originOf,
  parsePerfScript,
  PerfMap,
  tierReport,
  timerCallbackOf,
  wakeSourceOf,
} from '../../../bench/lib/cpu-tiers.ts';

const NODE = '(/opt/node/bin/node)';
const MAP = '(/tmp/perf-100.map)';
const PERF_SCRIPT = [
  // A baseline (^) function's inline cache: counts for baseline JS.
  '100 ',
  `\t         19746dc Builtins_LoadIC ${NODE}`,
  `\t    7f5c240bb529 JS:^onUdpMessage file:///x/node_modules/@discordjs/voice/dist/index.mjs:2059:15 ${MAP}`,
  `\t    7f5c240bb530 JS:*emit node:events:466:44 ${MAP}`,
  // TurboFan code itself.
  '100 ',
  `\t    7f5c24034e72 JS:*process file:///x/dist/main/core/audio/downsampler.js:49:12 ${MAP}`,
  // The Opus library, called from optimized code: counts as Opus.
  '100 ',
  `\t           1234 celt_encode_with_ec (/x/node_modules/@discordjs/opus/prebuild/opus.node)`,
  `\t    7f5c24034e99 JS:*encodeNext file:///x/dist/main/core/voice/playback.js:19:15 ${MAP}`,
  // The kernel, under a baseline UDP send.
  '100 ',
  `\t ffffffff81000000 finish_task_switch.isra.0 ([kernel.kallsyms])`,
  `\t    7f5c24034eaa JS:^doSend node:dgram:716:16 ${MAP}`,
  // OpenSSL inside the node binary, and libc.
  '  101 ',
  `\t         2234567 ossl_aes_gcm_encrypt_avx512 ${NODE}`,
  `\t    7f5c24034ebb JS:^final node:internal/crypto/cipher:183:40 ${MAP}`,
  '100 ',
  `\t           5678 malloc (/usr/lib/x86_64-linux-gnu/libc.so.6)`,
  // The event loop with no JS on the stack.
  '100 ',
  `\t         194d574 uv__io_poll ${NODE}`,
  // Interpreted and Maglev code.
  '100 ',
  `\t         195f8de Builtins_InterpreterEntryTrampoline ${NODE}`,
  `\t    7f5c24034ecc JS:~pcm file:///x/dist/main/core/voice/discord-voice.js:163:22 ${MAP}`,
  '100 ',
  `\t    7f5c24034edd JS:+pushSpeakerFrame file:///x/dist/main/core/bridge/call-audio.js:202:21 ${MAP}`,
  '',
].join('\n');

describe('cpu tiers from perf script', () => {
  const samples = parsePerfScript(PERF_SCRIPT);

  it('reads one sample per header line, with its frames leaf first', () => {
    expect(samples).toHaveLength(9);
    expect(samples[0]).toEqual({
      tid: 100,
      frames: [
        `Builtins_LoadIC ${NODE}`,
        expect.stringMatching(/^JS:\^onUdpMessage/),
        expect.stringMatching(/^JS:\*emit/),
      ],
    });
    expect(samples[4]!.tid).toBe(101);
  });

  it('counts builtins for the tier of the JS that called them, and native libraries and the kernel as themselves', () => {
    expect(samples.map(classifySample)).toEqual([
      'JS, baseline (Sparkplug)',
      'JS, optimized (TurboFan)',
      'Opus (native)',
      'kernel',
      'OpenSSL',
      'libc',
      'Node/V8 runtime, no JS on the stack',
      'JS, interpreted (Ignition)',
      'JS, optimized (Maglev)',
    ]);
  });

  it('says where unoptimized code lives: our core area, a package, or Node', () => {
    expect(originOf('JS:^pcm file:///x/dist/main/core/voice/discord-voice.js:163:22')).toBe('ours: core/voice');
    expect(originOf('JS:^onUdpMessage file:///x/node_modules/@discordjs/voice/dist/index.mjs:2059:15')).toBe(
      '@discordjs/voice',
    );
    expect(originOf('JS:^final node:internal/crypto/cipher:183:40')).toBe('node: crypto');
    expect(originOf('JS:^doSend node:dgram:716:16')).toBe('node: dgram');
  });

  it('reports shares of all samples; only baseline and interpreted JS in the unoptimized tables', () => {
    const report = tierReport(samples, 100);
    expect(report.samples).toBe(9);
    expect(report.byTier[0]).toEqual(['JS, baseline (Sparkplug)', 100 / 9]);
    expect(report.byTier.reduce((sum, [, share]) => sum + share, 0)).toBeCloseTo(100, 9);
    // The kernel under doSend and OpenSSL under final are not unoptimized JS's own time.
    expect(report.unoptimizedByOrigin).toEqual([
      ['@discordjs/voice', 100 / 9],
      ['ours: core/voice', 100 / 9],
    ]);
    expect(report.unoptimizedByFunction.map(([name]) => name)).toEqual([
      'JS:^onUdpMessage @discordjs/voice/dist/index.mjs:2059:15',
      'JS:~pcm core/voice/discord-voice.js:163:22',
    ]);
  });

  it('says what woke the main thread for each sample, and which callback a timer ran', () => {
    const wake = parsePerfScript(
      [
        // A speaker's packet: the UDP receive callback at the root.
        '100 ',
        `\t    7f5c240bb529 JS:^onUdpMessage file:///x/node_modules/@discordjs/voice/dist/index.mjs:2059:15 ${MAP}`,
        `\t          d4c70d node::UDPWrap::OnRecv ${NODE}`,
        `\t         194d574 uv__io_poll ${NODE}`,
        // A model message: a stream read.
        '100 ',
        `\t    7f5c240bb600 JS:^getData file:///x/node_modules/ws/lib/receiver.js:480:10 ${MAP}`,
        `\t          aa47f7 node::LibuvStreamWrap::OnUvRead ${NODE}`,
        // A playback slot sent by its own timer: the callback is the frame listOnTimeout called.
        '100 ',
        `\t           1234 celt_encode_with_ec (/x/opus.node)`,
        `\t    7f5c24034e99 JS:^#sendSlot file:///x/dist/main/core/voice/playback.js:81:14 ${MAP}`,
        `\t    7f5c24034f00 JS:^ file:///x/dist/main/core/voice/playback.js:107:34 ${MAP}`,
        `\t    7f5c24034f10 JS:^listOnTimeout node:internal/timers:526:25 ${MAP}`,
        `\t    7f5c24034f20 JS:^processTimers node:internal/timers:506:25 ${MAP}`,
        `\t          aa1111 node::Environment::RunTimers ${NODE}`,
        // Node's timer list with no callback yet; an immediate; the loop waiting; another thread.
        '100 ',
        `\t    7f5c24034f20 JS:^processTimers node:internal/timers:506:25 ${MAP}`,
        `\t          aa1111 node::Environment::RunTimers ${NODE}`,
        '100 ',
        `\t          aa2222 node::Environment::CheckImmediate ${NODE}`,
        '100 ',
        `\t ffffffff81000000 finish_task_switch.isra.0 ([kernel.kallsyms])`,
        `\t         194d574 uv__io_poll ${NODE}`,
        '107 ',
        `\t         2222222 v8::internal::compiler::GraphReducer::ReduceTop ${NODE}`,
        '',
      ].join('\n'),
    );
    expect(wake.map((sample) => wakeSourceOf(sample, 100))).toEqual([
      'UDP receive (speaker packets, voice keepalives)',
      'socket read (model sockets, Discord gateways, sidecar)',
      'timers',
      'timers',
      'setImmediate',
      'event loop, no callback (polling, waking)',
      'other threads (V8 compiler and GC, libuv pool)',
    ]);
    expect(timerCallbackOf(wake[2]!)).toBe('JS:^ core/voice/playback.js:107:34');
    expect(timerCallbackOf(wake[3]!)).toBeNull();
    const report = tierReport(wake, 100);
    expect(report.byWakeSource[0]).toEqual(['timers', 200 / 7]);
    expect(report.byWakeSource.reduce((sum, [, share]) => sum + share, 0)).toBeCloseTo(100, 9);
    expect(report.timersByCallback).toEqual([
      ['JS:^ core/voice/playback.js:107:34', 100 / 7],
      ['(no callback on the stack: the timer list itself, or a stack perf cut short)', 100 / 7],
    ]);
  });

  it('names code by the latest map entry covering its address: V8 reuses the range of code it freed', () => {
    const map = new PerfMap(
      [
        '1000 100 JS:*validate3 :3:94', // start-up code, later freed
        '2000 10 Builtin:Something',
        '1000 80 JS:^onUdpMessage file:///x/node_modules/@discordjs/voice/dist/index.mjs:2059:15', // reused the range
        'not a map line',
      ].join('\n'),
    );
    expect(map.resolve(0x1010)).toMatch(/^JS:\^onUdpMessage/);
    expect(map.resolve(0x1090)).toBe('JS:*validate3 :3:94'); // only the old entry reaches here
    expect(map.resolve(0x2008)).toBe('Builtin:Something');
    expect(map.resolve(0x0fff)).toBeNull();
    expect(map.resolve(0x2010)).toBeNull();
    // perf named the frame after the freed code; the map's latest entry renames it, and its tier with it.
    const [sample] = parsePerfScript(`100 \n\t    1010 JS:*validate3 :3:94 ${MAP}\n`, map);
    expect(sample!.frames).toEqual([
      'JS:^onUdpMessage file:///x/node_modules/@discordjs/voice/dist/index.mjs:2059:15 (/tmp/perf-100.map)',
    ]);
    expect(classifySample(sample!)).toBe('JS, baseline (Sparkplug)');
  });
});
