// What the conformance suites share (providers.test.ts, rules-2026.test.ts): the key, a logger that
// keeps its lines, the voice gate's tone, a recorder of a session's events, and the persona/tools
// every session is opened with.
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import type { LiveModelSession, ToolCallRequest } from '../../main/core/ports.ts';

/** Built at run time so no literal in the source looks like a real key. */
export function fakeKey(label: string): string {
  return ['conformance', label, 'key', process.pid.toString(36)].join('-');
}

export function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

/** 16 kHz mono tone, the voice gate's output format. */
export function tone16k(ms: number, hz = 440, amplitude = 12_000): Int16Array {
  const out = new Int16Array((16 * ms) | 0);
  for (let i = 0; i < out.length; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / 16_000));
  return out;
}

export class Recorder {
  audioSamples = 0;
  audioChunks = 0;
  inputTranscripts: string[] = [];
  outputTranscripts: string[] = [];
  states: string[] = [];
  toolCalls: ToolCallRequest[] = [];
  interrupted = 0;
  turnCompletes = 0;
  order: string[] = [];
  /** `order` with the audio in it: one 'audio' per run of chunks between turn events. */
  timeline: string[] = [];
  constructor(session: LiveModelSession) {
    session.on('audio', (pcm) => {
      this.audioSamples += pcm.length;
      this.audioChunks++;
      if (this.timeline.at(-1) !== 'audio') this.timeline.push('audio');
    });
    session.on('inputTranscript', (t) => this.inputTranscripts.push(t));
    session.on('outputTranscript', (t) => this.outputTranscripts.push(t));
    session.on('state', (s) => this.states.push(s));
    session.on('toolCall', (c) => this.toolCalls.push(c));
    session.on('interrupted', () => {
      this.interrupted++;
      this.order.push('interrupted');
      this.timeline.push('interrupted');
    });
    session.on('turnComplete', () => {
      this.turnCompletes++;
      this.order.push('turnComplete');
      this.timeline.push('turnComplete');
    });
  }
}

export async function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const TOOLS = [
  {
    name: 'lookup_weather',
    description: 'Weather for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];
export const PERSONA = 'You are the conformance persona.';

/**
 * The pause after speech as the bridge sends it (issue #52: paced silence until the service ends
 * the turn), `ms` of digital silence in 40 ms chunks: a session appends nothing at its end of
 * input, so the service's detector hears the pause only from this.
 */
export async function pause(session: LiveModelSession, ms = 700): Promise<void> {
  const silence = new Int16Array(640);
  for (let left = (ms * 16) / 640; left > 0; left--) {
    session.sendAudio(silence);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Sends `ms` of a continuous 440 Hz tone in 40 ms chunks, as the voice gate would. */
export async function speak(session: LiveModelSession, ms: number, amplitude = 12_000): Promise<void> {
  const pcm = tone16k(ms, 440, amplitude);
  for (let at = 0; at < pcm.length; at += 640) {
    session.sendAudio(pcm.slice(at, at + 640));
    await new Promise((r) => setTimeout(r, 2));
  }
}
