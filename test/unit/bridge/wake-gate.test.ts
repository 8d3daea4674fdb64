// The wake-name gate with a scripted screener: what reaches the model, in which order, and when
// an utterance is kept from it (screener says no, answers too late, or the hold would overflow).
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { WakeGate, type WakeSettings } from '../../../main/core/bridge/wake-gate.ts';
import { connectListed } from '../../../main/core/bridge/pipeline.ts';
import type { ScreeningStream } from '../../../main/core/ports.ts';

const CHUNK = 320; // 20 ms at 16 kHz

class ScriptedStream implements ScreeningStream {
  isOpen = true;
  sent = 0;
  asks: ((text: string | null) => void)[] = [];
  sendAudio(pcm: Int16Array): void {
    this.sent += pcm.length;
  }
  transcribe(): Promise<string | null> {
    return new Promise((resolve) => this.asks.push(resolve));
  }
  close(): void {
    this.isOpen = false;
  }
}

function setup(settings: Partial<WakeSettings> = {}, humans = 3) {
  const stream = new ScriptedStream();
  let t = 0;
  const forwarded: number[] = [];
  const events: string[] = [];
  const gate = new WakeGate({
    settings: { names: ['Gemini'], auto: true, followUpMs: 8000, ...settings },
    screener: { open: async () => stream },
    humansInCall: () => humans,
    now: () => t,
    logger: pino({ level: 'silent' }),
  });
  gate.connectVerdicts({
    accepted: () => events.push('accepted'),
    notForBot: (_at, why) => events.push(`dropped: ${why}`),
  });
  connectListed(gate.stage, {
    stage: 'model',
    caps: 'speech@16k',
    push: (chunk) => forwarded.push(chunk[0]!),
    end: () => events.push('end'),
  });
  const speak = (first: number, chunks: number) => {
    for (let i = 0; i < chunks; i++) {
      t += 20;
      gate.speech(new Int16Array(CHUNK).fill(first + i));
    }
  };
  return { gate, stream, forwarded, events, speak, advance: (ms: number) => (t += ms) };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('WakeGate', () => {
  it('holds an utterance, asks after its first 1.5 s, and flushes all of it in order when it starts with a name', async () => {
    const { gate, stream, forwarded, events, speak } = setup();
    gate.start();
    await flush();
    speak(1, 100); // 2 s
    expect(forwarded).toEqual([]);
    expect(stream.sent).toBe(75 * CHUNK); // the head only
    expect(stream.asks).toHaveLength(1);
    stream.asks[0]!('Gemini, lights off');
    await flush();
    expect(forwarded).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    speak(101, 5); // the rest passes straight through
    gate.end();
    expect(forwarded.slice(-5)).toEqual([101, 102, 103, 104, 105]);
    expect(events).toEqual(['accepted', 'end']);
  });

  it('drops an utterance without a name, and one whose verdict never comes', async () => {
    const { gate, stream, forwarded, events, speak } = setup();
    gate.start();
    await flush();
    speak(1, 20);
    gate.end(); // short: asked at its end
    stream.asks[0]!('about lunch');
    await flush();
    speak(50, 20);
    gate.end();
    stream.asks[1]!(null);
    await flush();
    expect(forwarded).toEqual([]);
    expect(events).toEqual(['dropped: it did not start with a wake name', 'dropped: it could not be screened in time']);
    expect(gate.view()).toMatchObject({ on: true, screened: 2, dropped: 2, accepted: 0 });
  });

  it('a verdict after the utterance ended flushes it and ends the input', async () => {
    const { gate, stream, forwarded, events, speak } = setup();
    gate.start();
    await flush();
    speak(1, 10);
    gate.end();
    stream.asks[0]!('hey Gemini');
    await flush();
    expect(forwarded).toHaveLength(10);
    expect(events).toEqual(['accepted', 'end']);
  });

  it('drops an utterance that outgrows the hold while the screener is slow', async () => {
    const { gate, events, speak, forwarded } = setup();
    gate.start();
    await flush();
    speak(1, 301); // 6.02 s > 6 s of hold
    expect(events).toEqual(['dropped: held too long waiting for the screener']);
    expect(forwarded).toEqual([]);
  });

  it('passes utterances in the follow-up window after the bot spoke, without screening', async () => {
    const { gate, stream, forwarded, speak, advance } = setup();
    gate.start();
    await flush();
    gate.botSpoke();
    advance(7000);
    speak(1, 10);
    gate.end();
    expect(forwarded).toHaveLength(10);
    expect(stream.asks).toHaveLength(0);
    advance(9000);
    speak(20, 10);
    expect(stream.asks).toHaveLength(0);
    gate.end();
    expect(stream.asks).toHaveLength(1);
  });

  it('is off without names, off in auto mode with one human, always on with auto off', async () => {
    expect(setup({ names: [] }).gate.view()).toMatchObject({ on: false, reason: 'no wake names set' });
    const alone = setup({}, 1);
    alone.gate.start();
    expect(alone.gate.view()).toMatchObject({ on: false, reason: 'auto: 1 person in the call', screening: 'off' });
    alone.speak(1, 5);
    expect(alone.forwarded).toHaveLength(5);
    const always = setup({ auto: false }, 1);
    always.gate.start();
    expect(always.gate.view()).toMatchObject({ on: true, reason: 'wake names always on (auto off)' });
    always.gate.stop();
    expect(always.gate.view()).toMatchObject({ on: false, reason: 'not in a call', screening: 'off' });
  });

  it('without a screener it stays closed (never fails open), says so, and passes only the follow-up window', () => {
    const forwarded: number[] = [];
    const dropped: string[] = [];
    let now = 0;
    const gate = new WakeGate({
      settings: { names: ['Gemini'], auto: false, followUpMs: 5000 },
      screener: null,
      humansInCall: () => 2,
      now: () => now,
      logger: pino({ level: 'silent' }),
    });
    gate.connectVerdicts({ accepted: () => undefined, notForBot: (_at, why) => dropped.push(why) });
    connectListed(gate.stage, {
      stage: 'model',
      caps: 'speech@16k',
      push: (chunk) => forwarded.push(chunk.length),
      end: () => undefined,
    });
    gate.start();
    expect(gate.withholding).toBe(true);
    gate.speech(new Int16Array(CHUNK));
    gate.speech(new Int16Array(CHUNK));
    gate.end();
    expect(forwarded).toEqual([]);
    expect(dropped).toEqual([
      'the wake-name gate is closed (no screener (set OPENAI_API_KEY for the transcription session))',
    ]);
    expect(gate.view()).toMatchObject({ on: true, screening: 'unavailable', dropped: 1 });
    expect(gate.view().reason).toContain('closed: no screener');
    // The bot spoke (a notification, a reply to text): an answer within the follow-up window passes.
    now = 10_000;
    gate.botSpoke();
    now = 12_000;
    gate.speech(new Int16Array(CHUNK));
    expect(forwarded).toEqual([CHUNK]);
  });
});
