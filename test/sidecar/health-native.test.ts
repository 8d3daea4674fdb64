// The Opus codec choice (and sharp/davey) is reported before any call: in the start-up log and in
// GET /health. Both outcomes: the native addon loads, and it fails to load (a broken .node file,
// as after `npm ci` under another Node) so the core falls back to WASM and says why.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { HealthReport } from '../../main/core/api-types.ts';
import { selectOpus, type NativeOpusModule } from '../../main/core/voice/opus.ts';
import { startTestCore, type TestCore } from '../helpers/core.ts';

function capturingLogger(): { logger: pino.Logger; lines: () => { level: number; msg: string }[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const logger = pino({ level: 'info' }, stream);
  return {
    logger,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { level: number; msg: string }),
  };
}

async function healthOf(test: TestCore): Promise<HealthReport> {
  const response = await fetch(`http://127.0.0.1:${test.port}/health`);
  expect(response.status).toBe(200);
  return (await response.json()) as HealthReport;
}

const scratch = mkdtempSync(path.join(tmpdir(), 'lvb-opus-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('/health names the Opus codec before any call', () => {
  it('native: the @discordjs/opus addon, logged once at start-up', async () => {
    const log = capturingLogger();
    const test = await startTestCore({}, { logger: log.logger });
    try {
      const health = await healthOf(test);
      expect(health.bridge.state).toBe('idle');
      expect(health.audio.opus).toEqual({
        impl: 'native',
        library: '@discordjs/opus',
        reason: 'the native @discordjs/opus addon loaded',
      });
      expect(health.native.sharp.available).toBe(true);
      expect(health.native.davey.available).toBe(true);
      expect(log.lines().filter((l) => l.msg.startsWith('native pieces: Opus native'))).toHaveLength(1);
    } finally {
      await test.close();
    }
  });

  it('wasm: a native addon that fails to load gives opusscript, with the loader error in /health and a warning', async () => {
    // A .node file that is not a shared object: what the dynamic loader says then is the reason.
    const broken = path.join(scratch, 'opus.node');
    writeFileSync(broken, 'not an ELF file');
    const loadNative = (): NativeOpusModule => {
      const module = { exports: {} as NativeOpusModule };
      process.dlopen(module, broken);
      return module.exports;
    };
    const log = capturingLogger();
    const test = await startTestCore({}, { logger: log.logger, opus: selectOpus({ loadNative }) });
    try {
      const health = await healthOf(test);
      expect(health.audio.opus.impl).toBe('wasm');
      expect(health.reasons.some((r) => r.startsWith('Opus WASM fallback'))).toBe(true);
      expect(health.audio.opus.library).toBe('opusscript');
      expect(health.audio.opus.reason).toMatch(/^the native @discordjs\/opus addon failed to load: .*opus\.node/);
      const warnings = log.lines().filter((l) => l.level === 40 && l.msg.includes('WASM codec'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toContain(health.audio.opus.reason);
    } finally {
      await test.close();
    }
  });

  it('the WASM fallback still encodes and decodes a 20 ms frame', () => {
    const codec = selectOpus({
      loadNative: () => {
        throw new Error('NODE_MODULE_VERSION 115 does not match 127');
      },
    });
    expect(codec.choice).toEqual({
      impl: 'wasm',
      library: 'opusscript',
      reason: 'the native @discordjs/opus addon failed to load: NODE_MODULE_VERSION 115 does not match 127',
    });
    const stream = codec.create();
    expect(stream.decode(stream.encode(Buffer.alloc(3840))).length).toBe(3840);
    stream.destroy();
  });
});
