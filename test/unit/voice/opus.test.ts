// The bot's voice encoder runs at VOICE_ENCODER_COMPLEXITY in both libraries: its packets are the
// ones a hand-made libopus encoder at that complexity produces (libopus is deterministic), and not
// those of the library default (10).
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  OPUS_RATE,
  selectOpus,
  VOICE_ENCODER_COMPLEXITY,
  type NativeOpusModule,
  type OpusLibraryName,
} from '../../../main/core/voice/opus.ts';

const require = createRequire(import.meta.url);
/** From opus_defines.h, not from the module under test: a wrong request number there must fail here. */
const OPUS_SET_COMPLEXITY_REQUEST = 4010;
const FRAME = 960;

/** 200 ms of a pitch-gliding buzz with noise: enough detail that complexities code it differently. */
function voiceLike(): Int16Array {
  const out = new Int16Array(FRAME * 10);
  let phase = 0;
  let seed = 7;
  for (let i = 0; i < out.length; i++) {
    phase += (120 + 60 * (i / out.length)) / OPUS_RATE;
    if (phase >= 1) phase -= 1;
    seed = (seed * 1103515245 + 12345) >>> 0;
    out[i] = Math.round(
      9000 * (phase - 0.5) + 1500 * Math.sin(2 * Math.PI * 2300 * (i / OPUS_RATE)) + (seed / 2 ** 32 - 0.5) * 800,
    );
  }
  return out;
}

function encodeAll(encode: (pcm: Buffer) => Buffer): string[] {
  const pcm = voiceLike();
  const packets: string[] = [];
  for (let f = 0; f < pcm.length / FRAME; f++)
    packets.push(encode(Buffer.from(pcm.buffer, f * FRAME * 2, FRAME * 2)).toString('hex'));
  return packets;
}

interface Reference {
  encode(pcm: Buffer): Buffer;
}

function reference(library: OpusLibraryName, complexity: number | null): Reference {
  if (library === '@discordjs/opus') {
    const { OpusEncoder } = require('@discordjs/opus') as NativeOpusModule;
    const encoder = new OpusEncoder(OPUS_RATE, 1);
    if (complexity !== null) encoder.applyEncoderCTL(OPUS_SET_COMPLEXITY_REQUEST, complexity);
    return { encode: (pcm) => encoder.encode(pcm) };
  }
  const OpusScript = require('opusscript') as {
    new (
      rate: number,
      channels: number,
      app: number,
    ): { encode(pcm: Buffer, frame: number): Buffer; encoderCTL(ctl: number, arg: number): void };
    Application: { AUDIO: number };
  };
  const encoder = new OpusScript(OPUS_RATE, 1, OpusScript.Application.AUDIO);
  if (complexity !== null) encoder.encoderCTL(OPUS_SET_COMPLEXITY_REQUEST, complexity);
  return { encode: (pcm) => Buffer.from(encoder.encode(pcm, FRAME)) };
}

describe.each(['@discordjs/opus', 'opusscript'] as const)('the mono voice encoder (%s)', (library) => {
  it(`encodes at complexity ${VOICE_ENCODER_COMPLEXITY}, not the default`, () => {
    const encoder = selectOpus({ prefer: library }).createMonoEncoder();
    const ours = encodeAll((pcm) => encoder.encode(pcm));
    encoder.destroy();
    expect(ours).toEqual(encodeAll(reference(library, VOICE_ENCODER_COMPLEXITY).encode));
    expect(ours).not.toEqual(encodeAll(reference(library, null).encode));
  });
});
