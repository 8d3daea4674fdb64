// The resamplers' filter loops, run in WebAssembly SIMD (fir-kernel.wat: why, and the memory
// layout). One FirKernel per resampler: its own memory (128 KiB, never grown), its own ring and
// phase. The module is compiled once, on first use, synchronously (4 KB).
import { FIR_KERNEL_WASM_BASE64 } from './fir-kernel-wasm.ts';

/** s16 values one kernel call takes (the input region's size); longer inputs go in several calls. */
export const KERNEL_INPUT_CAPACITY = 8192;
/** Floats between the starts of two polyphase branches in the taps region (68 taps, zero-padded). */
export const KERNEL_BRANCH_STRIDE = 68;

const INPUT_BYTE = 4096;
const OUTPUT_BYTE = 20480;

// TypeScript declares WebAssembly in lib.dom, which the core does not load; what this file uses:
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
};

interface KernelExports {
  memory: { buffer: ArrayBuffer };
  reset(startPhase: number): void;
  decimate3(count: number): number;
  interpolate2(count: number, silent: number): void;
  resample3to2(count: number): number;
}

let compiled: object | null = null;

export class FirKernel {
  /**
   * The filter taps (write once, before the first call): one filter of up to 196 taps, or branches
   * KERNEL_BRANCH_STRIDE apart; unwritten taps stay zero.
   */
  readonly taps: Float32Array;
  /** Where a call's input goes: s16, up to KERNEL_INPUT_CAPACITY values. */
  readonly input: Int16Array;
  /** A call's output as s16 (decimate3, resample3to2). */
  readonly outputInt16: Int16Array;
  /** A call's output as f32 (interpolate2). */
  readonly outputFloat32: Float32Array;
  readonly #exports: KernelExports;
  readonly #startPhase: number;

  /** `startPhase`: the decimator's first phase, or the 16 -> 24 kHz resampler's parity (see the .wat). */
  constructor(startPhase = 0) {
    this.#startPhase = startPhase;
    compiled ??= new WebAssembly.Module(Buffer.from(FIR_KERNEL_WASM_BASE64, 'base64'));
    this.#exports = new WebAssembly.Instance(compiled, {}).exports as unknown as KernelExports;
    const buffer = this.#exports.memory.buffer;
    this.taps = new Float32Array(buffer, 0, 3 * KERNEL_BRANCH_STRIDE);
    this.input = new Int16Array(buffer, INPUT_BYTE, KERNEL_INPUT_CAPACITY);
    this.outputInt16 = new Int16Array(buffer, OUTPUT_BYTE, 2 * KERNEL_INPUT_CAPACITY);
    this.outputFloat32 = new Float32Array(buffer, OUTPUT_BYTE, 2 * KERNEL_INPUT_CAPACITY);
    this.reset();
  }

  /** Forget all history (silence in, as if freshly constructed). */
  reset(): void {
    this.#exports.reset(this.#startPhase);
  }

  /** 48 -> 16 kHz: `count` samples from `input`; returns the outputs in outputInt16. */
  decimate3(count: number): number {
    return this.#exports.decimate3(count);
  }

  /** 24 -> 48 kHz: `count` samples from `input` (or zeros if `silent`), 2 * count floats in outputFloat32. */
  interpolate2(count: number, silent: boolean): void {
    this.#exports.interpolate2(count, silent ? 1 : 0);
  }

  /** 16 -> 24 kHz: `count` samples from `input`; returns the outputs in outputInt16. */
  resample3to2(count: number): number {
    return this.#exports.resample3to2(count);
  }

  /**
   * Runs an s16 → s16 pass over `pcm` of any length, KERNEL_INPUT_CAPACITY samples at a time, and
   * writes what it makes to `out` from index 0; returns how many samples that is. `out` must hold
   * them (the caller sizes it from the pass's ratio).
   */
  runInt16(pass: Int16Pass, pcm: Int16Array, out: Int16Array): number {
    const n = pcm.length;
    let produced = 0;
    let i = 0;
    do {
      const take = Math.min(n - i, KERNEL_INPUT_CAPACITY);
      // The whole input in one copy (the 20 ms case), no view to allocate.
      this.input.set(take === n ? pcm : pcm.subarray(i, i + take));
      i += take;
      const made = pass === 'decimate3' ? this.#exports.decimate3(take) : this.#exports.resample3to2(take);
      const result = this.outputInt16;
      for (let k = 0; k < made; k++) out[produced + k] = result[k]!;
      produced += made;
    } while (i < n);
    return produced;
  }
}

/** The kernel's passes from s16 to s16. */
export type Int16Pass = 'decimate3' | 'resample3to2';
