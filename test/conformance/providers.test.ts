// The provider conformance suite: every live-model adapter, against its own protocol-faithful fake,
// through the LiveModelSession contract only. A scenario that does not apply to a protocol says so
// in `notApplicable` (and in docs/providers.md), it is never silently skipped.
import pino from 'pino';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultInjectedText } from '../../main/core/model/injected-text.ts';
import { attachToolDispatcher } from '../../main/core/model/tool-dispatcher.ts';
import type { LiveModelSession } from '../../main/core/ports.ts';
import { defineTool, ToolRegistry } from '../../main/core/tools/registry.ts';
import {
  ADAPTERS,
  type FakeConnectionControls,
  type FakeService,
  type ProviderAdapter,
  type ProviderName,
} from './adapters.ts';
import { captureLogger, fakeKey, pause, PERSONA, Recorder, speak, tone16k, TOOLS, until } from './harness.ts';

/** Zero crossings per second / 2: the tone's frequency, whatever the sample rate. */
function dominantHz(pcm: Int16Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < pcm.length; i++) if (pcm[i - 1]! < 0 !== pcm[i]! < 0) crossings++;
  return crossings / 2 / (pcm.length / rate);
}

interface Ctx {
  fake: FakeService;
  session: LiveModelSession;
  rec: Recorder;
  lines: string[];
  key: string;
}

/** Scenarios keyed by id; `notApplicable` names providers whose protocol has no such thing, with why. */
interface Scenario {
  id: string;
  title: string;
  autoReply?: boolean;
  notApplicable?: Partial<Record<ProviderName, string>>;
  /** A defect the suite found in a provider and that its owner has not fixed yet (listed in docs/providers.md). */
  knownGap?: Partial<Record<ProviderName, string>>;
  /** Scenarios that build their own session (bad key, fallback) set connect: false. */
  connect?: boolean;
  playedMs?: () => number;
  run(ctx: Ctx, adapter: ProviderAdapter): Promise<void>;
}

async function jpeg(width = 64, height = 48): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .jpeg()
    .toBuffer();
}

/**
 * After an odd server message the call must go on: a provider may skip the message (OpenAI) or
 * replace the socket (Gemini resumes, since its SDK's state is unknown after a bad frame). Either
 * way the next reply, on whichever socket is current, reaches the client.
 */
async function callGoesOn(fake: FakeService, session: LiveModelSession, rec: Recorder): Promise<void> {
  await new Promise((r) => setTimeout(r, 200));
  await until(() => session.state === 'connected', 'connected after the odd message');
  const current = await fake.connection(fake.established() - 1);
  await current.reply({ transcript: 'Still here.', toneMs: 200 });
  await until(() => rec.turnCompletes >= 1, 'reply after the odd message');
  expect(rec.outputTranscripts.join('')).toContain('Still here.');
  expect(session.state).toBe('connected');
}

/** The model asks for a tool on the first socket, which then drops; resolves with the next one, connected. */
async function toolCallThenDrop(
  fake: FakeService,
  session: LiveModelSession,
  rec: Recorder,
): Promise<FakeConnectionControls> {
  const c0 = await fake.connection(0);
  void c0.toolCall('lookup_weather', { city: 'Oslo' }).catch(() => undefined);
  await until(() => rec.toolCalls.length === 1, 'tool call');
  c0.drop();
  const c1 = await fake.connection(1);
  await until(() => session.state === 'connected', 'reconnected');
  return c1;
}

/**
 * Drops `c0` and runs `during` synchronously when the session notices (before the next socket is
 * up: what a client gets while no socket is open); resolves with the next socket, connected.
 */
async function dropAndDuringTheGap(
  fake: FakeService,
  session: LiveModelSession,
  c0: FakeConnectionControls,
  during: () => void,
): Promise<FakeConnectionControls> {
  const onState = (state: string): void => {
    if (state === 'connected') return;
    session.off('state', onState);
    during();
  };
  session.on('state', onState);
  c0.drop();
  const c1 = await fake.connection(1);
  await until(() => session.state === 'connected', 'reconnected');
  return c1;
}

export const SCENARIOS: Scenario[] = [
  {
    id: 'setup-connects',
    title: 'setup: connect() resolves connected with the configured model',
    async run({ session, fake }) {
      expect(session.state).toBe('connected');
      expect(session.model).toBe(fake.knownModel);
      expect(fake.established()).toBe(1);
    },
  },
  {
    id: 'setup-instruction',
    title: 'setup: the system instruction reaches the service',
    async run({ fake }) {
      expect((await fake.connection(0)).systemInstruction()).toContain(PERSONA);
    },
  },
  {
    id: 'setup-tools',
    title: 'setup: tools are declared by name',
    async run({ fake }) {
      expect((await fake.connection(0)).declaredTools()).toEqual(['lookup_weather']);
    },
  },
  {
    id: 'setup-clean',
    title: 'setup: the service rejected nothing the client sent',
    async run({ fake, session }) {
      await speak(session, 200);
      const c = await fake.connection(0);
      await new Promise((r) => setTimeout(r, 100));
      expect(c.rejections()).toEqual([]);
    },
  },
  {
    id: 'audio-in-duration',
    title: 'audio in: 1 s of speech reaches the service as 1 s at its input rate',
    async run({ fake, session }) {
      const c = await fake.connection(0);
      await speak(session, 1000);
      const expected = c.inputRate;
      await c.waitFor(() => c.inputPcm().length >= expected * 0.97, 'one second of input');
      expect(c.inputPcm().length).toBeLessThanOrEqual(expected * 1.03);
    },
  },
  {
    id: 'audio-in-pitch',
    title: 'audio in: a 440 Hz tone is still 440 Hz at the service (resampling keeps pitch)',
    async run({ fake, session }) {
      const c = await fake.connection(0);
      await speak(session, 1000);
      await c.waitFor(() => c.inputPcm().length >= c.inputRate * 0.97, 'input');
      const pcm = c.inputPcm().subarray(c.inputRate / 10);
      expect(dominantHz(pcm, c.inputRate)).toBeGreaterThan(430);
      expect(dominantHz(pcm, c.inputRate)).toBeLessThan(450);
    },
  },
  {
    id: 'audio-out',
    title: 'audio out: every sample of the reply arrives as 24 kHz mono',
    async run({ fake, rec }) {
      const c = await fake.connection(0);
      expect(await c.reply({ transcript: 'One two three.', toneMs: 600 })).toMatch(/complete/);
      await until(() => rec.audioSamples >= 24 * 600, 'reply audio');
      expect(rec.audioSamples).toBe(24 * 600);
    },
  },
  {
    id: 'audio-out-transcript',
    title: 'transcripts: output transcript pieces join to the spoken sentence',
    async run({ fake, rec }) {
      const c = await fake.connection(0);
      await c.reply({ transcript: 'The quick brown fox jumps.', toneMs: 400 });
      await until(() => rec.turnCompletes >= 1, 'turn complete');
      expect(rec.outputTranscripts.join('')).toBe('The quick brown fox jumps.');
    },
  },
  {
    id: 'turn-complete',
    title: 'turns: exactly one turnComplete per finished reply',
    async run({ fake, rec }) {
      const c = await fake.connection(0);
      await c.reply({ transcript: 'First.', toneMs: 200 });
      await until(() => rec.turnCompletes >= 1, 'first turn');
      await c.reply({ transcript: 'Second.', toneMs: 200 });
      await until(() => rec.turnCompletes >= 2, 'two turns');
      await new Promise((r) => setTimeout(r, 100));
      expect(rec.turnCompletes).toBe(2);
      expect(rec.interrupted).toBe(0);
    },
  },
  {
    id: 'user-turn-reply',
    title: 'audio both ways: user speech, then end of speech, gets a spoken reply',
    autoReply: true,
    async run({ session, rec }) {
      await speak(session, 600);
      await pause(session);
      session.endAudioInput();
      await until(() => rec.turnCompletes >= 1, 'reply to speech');
      expect(rec.audioSamples).toBeGreaterThan(0);
      expect(rec.outputTranscripts.join('')).toBe('Hello from the fake model.');
    },
  },
  {
    id: 'input-transcript',
    title: 'transcripts: the user speech is transcribed back to the client',
    autoReply: true,
    async run({ session, rec }) {
      await speak(session, 600);
      await pause(session);
      session.endAudioInput();
      await until(() => rec.turnCompletes >= 1, 'the reply (the transcript may arrive in pieces before it)');
      expect(rec.inputTranscripts.join('').replace(/\s+/g, ' ')).toContain('hello model');
    },
  },
  {
    id: 'barge-in-event',
    title: 'barge-in: loud user speech during a reply emits interrupted',
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      const outcome = c.reply({ transcript: 'A long answer that goes on and on.', toneMs: 4000, paceMs: 40 });
      await until(() => rec.audioSamples > 24 * 200, 'reply started');
      await speak(session, 400);
      session.bargedIn?.(); // the bridge heard the user over the reply (bridge/barge-in.ts)
      await until(() => rec.interrupted >= 1, 'interrupted');
      expect(await outcome).toMatch(/interrupted|cancelled/);
    },
  },
  {
    id: 'barge-in-stops-audio',
    title: 'barge-in: no audio of the interrupted reply arrives after interrupted',
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      void c.reply({ transcript: 'Long.', toneMs: 4000, paceMs: 40 });
      await until(() => rec.audioSamples > 24 * 200, 'reply started');
      await speak(session, 400);
      session.bargedIn?.(); // the bridge heard the user over the reply (bridge/barge-in.ts)
      await until(() => rec.interrupted >= 1, 'interrupted');
      const at = rec.audioSamples;
      await new Promise((r) => setTimeout(r, 300));
      expect(rec.audioSamples).toBe(at);
      expect(rec.audioSamples).toBeLessThan(24 * 4000);
    },
  },
  {
    id: 'barge-in-turn-ends',
    title: 'barge-in: interrupted is followed by turnComplete (playback can resume next turn)',
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      void c.reply({ transcript: 'Long.', toneMs: 4000, paceMs: 40 });
      await until(() => rec.audioSamples > 24 * 200, 'reply started');
      await speak(session, 400);
      session.bargedIn?.(); // the bridge heard the user over the reply (bridge/barge-in.ts)
      await until(() => rec.turnCompletes >= 1, 'turn complete');
      expect(rec.order.slice(0, 2)).toEqual(['interrupted', 'turnComplete']);
    },
  },
  {
    id: 'barge-in-truncate',
    title: 'barge-in: the service is told how much audio was actually played',
    notApplicable: {
      gemini: 'Gemini truncates its own context at the interruption; the protocol has no truncate message',
      'openai-live': 'GPT-Live is full duplex and yields by itself; the protocol has no truncate message',
    },
    playedMs: () => 120,
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      void c.reply({ transcript: 'Long.', toneMs: 4000, paceMs: 40 });
      await until(() => rec.audioSamples > 24 * 400, 'reply started');
      await speak(session, 400);
      await until(() => rec.interrupted >= 1, 'interrupted');
      await c.waitFor(() => c.conversation().some((t) => t.includes('[truncated at 120 ms]')), 'truncation');
      expect(c.rejections()).toEqual([]);
    },
  },
  {
    id: 'text-injection',
    title: 'text injection: sendText is delivered and spoken next turn',
    autoReply: true,
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      // The notifier's voice mode reports `ok` from this settle (and claims a reminder in
      // beforeHandOver): a provider that ignores the delivery leaves the caller waiting it out.
      const settled: unknown[] = [];
      let asked = 0;
      session.sendText('Your build finished.', {
        deadlineMs: 20_000,
        beforeHandOver: async () => (asked++, true),
        onSettled: (o) => settled.push(o),
      });
      await c.waitFor(() => c.injectedTexts().some((t) => t.includes('Your build finished.')), 'injected text');
      expect(asked).toBe(1);
      expect(settled).toEqual([{ delivered: true }]);
      await until(() => rec.turnCompletes >= 1, 'spoken');
      expect(rec.outputTranscripts.join('')).toContain('Your build finished.');
    },
  },
  {
    id: 'text-waits-for-turn',
    title: 'text injection: nothing is delivered while the model is speaking',
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      const reply = c.reply({ transcript: 'Busy talking.', toneMs: 800, paceMs: 40 });
      await until(() => rec.audioSamples > 0, 'reply started');
      session.sendText('Later please.');
      await new Promise((r) => setTimeout(r, 150));
      expect(c.injectedTexts().some((t) => t.includes('Later please.'))).toBe(false);
      await reply;
      await c.waitFor(() => c.injectedTexts().some((t) => t.includes('Later please.')), 'text after the turn');
    },
  },
  {
    id: 'text-batched',
    title: 'text injection: texts queued during a reply go out as one turn',
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      const reply = c.reply({ transcript: 'Busy.', toneMs: 600, paceMs: 40 });
      await until(() => rec.audioSamples > 0, 'reply started');
      session.sendText('First note.');
      session.sendText('Second note.');
      await reply;
      await c.waitFor(() => c.injectedTexts().some((t) => t.includes('Second note.')), 'texts');
      const turns = c.injectedTexts().filter((t) => t.includes('note.'));
      expect(turns).toHaveLength(1);
      expect(turns[0]).toContain('First note.');
    },
  },
  {
    id: 'text-verbs',
    title: 'text injection: an announcement goes in the announce wording, a message (asMessage) as it is',
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      const reply = c.reply({ transcript: 'Busy.', toneMs: 600, paceMs: 40 });
      await until(() => rec.audioSamples > 0, 'reply started');
      session.sendText('The build is green.');
      session.sendText('Tell me a one-line joke', { asMessage: true });
      await reply;
      await c.waitFor(() => c.injectedTexts().some((t) => t.includes('one-line joke')), 'texts');
      expect(c.injectedTexts().filter((t) => t.includes('one-line joke'))).toEqual([
        `${defaultInjectedText('The build is green.')}\nTell me a one-line joke`,
      ]);
    },
  },
  {
    id: 'tool-round-trip',
    title: 'tools: a call reaches the client with its arguments; the result goes back by id',
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      session.on('toolCall', (call) =>
        session.sendToolResult({ id: call.id, name: call.name, response: { result: { tempC: 21 } } }),
      );
      const response = await c.toolCall('lookup_weather', { city: 'Oslo' });
      expect(rec.toolCalls[0]).toMatchObject({ name: 'lookup_weather', args: { city: 'Oslo' } });
      expect(response).toEqual({ result: { tempC: 21 } });
      expect(c.rejections()).toEqual([]);
    },
  },
  {
    id: 'tool-error',
    title: 'tools: a failing tool returns an error the model can talk about',
    async run({ fake, session }) {
      const c = await fake.connection(0);
      session.on('toolCall', (call) =>
        session.sendToolResult({
          id: call.id,
          name: call.name,
          response: { error: { code: 'tool_failed', message: 'weather service down' } },
        }),
      );
      expect(await c.toolCall('lookup_weather', { city: 'Oslo' })).toEqual({
        error: { code: 'tool_failed', message: 'weather service down' },
      });
    },
  },
  {
    id: 'tool-registry',
    title: 'tools: the shared registry and dispatcher run the call and answer it',
    async run({ fake, session }) {
      const c = await fake.connection(0);
      const registry = new ToolRegistry().register(
        defineTool({
          name: 'lookup_weather',
          description: 'd',
          args: z.object({ city: z.string() }),
          run: ({ city }) => ({ city, tempC: 7 }),
        }),
      );
      const dispatcher = attachToolDispatcher(session, registry, { logger: pino({ level: 'silent' }) });
      expect(await c.toolCall('lookup_weather', { city: 'Bergen' })).toEqual({ result: { city: 'Bergen', tempC: 7 } });
      dispatcher.detach();
    },
  },
  {
    id: 'tool-bad-args',
    title: 'tools: arguments that fail the schema come back as invalid_args, the session lives on',
    async run({ fake, session }) {
      const c = await fake.connection(0);
      const registry = new ToolRegistry().register(
        defineTool({ name: 'lookup_weather', description: 'd', args: z.object({ city: z.string() }), run: () => 'x' }),
      );
      const dispatcher = attachToolDispatcher(session, registry, { logger: pino({ level: 'silent' }) });
      const response = (await c.toolCall('lookup_weather', { town: 3 })) as { error?: { code: string } };
      expect(response.error?.code).toBe('invalid_args');
      expect(session.state).toBe('connected');
      dispatcher.detach();
    },
  },
  {
    id: 'tool-unknown',
    title: 'tools: a call to an unknown tool is answered with unknown_tool',
    async run({ fake, session }) {
      const c = await fake.connection(0);
      const dispatcher = attachToolDispatcher(session, new ToolRegistry(), { logger: pino({ level: 'silent' }) });
      const response = (await c.toolCall('no_such_tool', {})) as { error?: { code: string } };
      expect(response.error?.code).toBe('unknown_tool');
      dispatcher.detach();
    },
  },
  {
    id: 'frame-sent',
    notApplicable: {
      'openai-live':
        'GPT-Live accepts no images: sendFrame answers dropped/unsupported_by_model (see frame-unsupported)',
    },
    title: 'frames: an image reaches the service and reports its size',
    async run({ fake, session }) {
      const c = await fake.connection(0);
      const result = await session.sendFrame(await jpeg(64, 48));
      expect(result).toMatchObject({ status: 'sent', width: 64, height: 48 });
      await c.waitFor(() => c.frames() === 1, 'frame');
      expect(c.rejections()).toEqual([]);
    },
  },
  {
    id: 'frame-invalid',
    title: 'frames: bytes that are not an image are refused before anything is sent',
    async run({ fake, session }) {
      const c = await fake.connection(0);
      await expect(session.sendFrame(Buffer.from('not an image at all'))).rejects.toThrow();
      expect(c.frames()).toBe(0);
    },
  },
  {
    id: 'frame-rate-limited',
    notApplicable: {
      'openai-live':
        'GPT-Live accepts no images: sendFrame answers dropped/unsupported_by_model (see frame-unsupported)',
    },
    title: 'frames: a burst keeps only the newest picture (1 fps)',
    async run({ fake, session }) {
      const c = await fake.connection(0);
      const image = await jpeg();
      const results = await Promise.all([session.sendFrame(image), session.sendFrame(image), session.sendFrame(image)]);
      expect(results.map((r) => r.status)).toEqual(['sent', 'dropped', 'sent']);
      await c.waitFor(() => c.frames() === 2, 'two frames');
    },
  },
  {
    id: 'frame-unsupported',
    title: 'frames: a model that takes no images says so instead of pretending',
    notApplicable: {
      gemini: 'Gemini accepts images (frame-sent)',
      'openai-realtime': 'Realtime accepts images (frame-sent)',
    },
    async run({ session }) {
      expect(await session.sendFrame(await jpeg())).toEqual({ status: 'dropped', reason: 'unsupported_by_model' });
    },
  },
  {
    id: 'usage-reported',
    title: 'usage: the provider reports what the call used (GPT-Live: per-minute billing)',
    notApplicable: {
      gemini: 'Gemini bills tokens, not minutes (usage-tokens)',
      'openai-realtime': 'Realtime bills tokens, not minutes (usage-tokens)',
    },
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      await c.reply({ transcript: 'Counting.', toneMs: 1200 });
      await until(() => rec.turnCompletes >= 1, 'turn');
      await until(() => (session.usage?.().audioSeconds ?? 0) > 0, 'usage reported');
      expect(session.usage?.().billedMinutes).toBe(1);
    },
  },
  {
    id: 'usage-tokens',
    title: "usage: tokens by modality from the provider's usage messages, each turn counted once",
    notApplicable: { 'openai-live': 'GPT-Live bills per minute (usage-reported), no token counts' },
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      const tokens = () => session.usage?.().tokens;
      const input = (t = tokens()) => (t ? t.input.audio + t.input.text + t.input.image : 0);
      await c.reply({ transcript: 'One.', toneMs: 1200 });
      await until(() => (tokens()?.output.audio ?? 0) > 0, 'the first turn counted');
      const first = tokens()!;
      await c.reply({ transcript: 'Two.', toneMs: 1200 });
      await until(
        () => rec.turnCompletes >= 2 && tokens()!.output.audio > first.output.audio,
        'the second turn counted',
      );
      // The same reply again: its output counted once more, not twice, not zero; the input re-reads a longer context.
      expect(tokens()!.output.audio).toBe(2 * first.output.audio);
      expect(input()).toBeGreaterThan(2 * input(first));
    },
  },
  {
    id: 'usage-across-reconnect',
    title:
      'usage: a new socket (reconnect, resume) restarts its counts; the call total neither loses nor repeats a turn',
    notApplicable: {
      'openai-live': 'GPT-Live bills per minute: cumulative seconds summed over sockets (usage-reported)',
    },
    async run({ fake, session, rec }) {
      const output = () => session.usage?.().tokens?.output.audio ?? 0;
      const c0 = await fake.connection(0);
      await c0.reply({ transcript: 'Before.', toneMs: 1200 });
      await until(() => output() > 0, 'the first socket counted');
      const perTurn = output();
      c0.drop();
      const c1 = await fake.connection(1);
      await until(() => session.state === 'connected' && rec.states.includes('reconnecting'), 'reconnected');
      await c1.reply({ transcript: 'After.', toneMs: 1200 });
      await until(() => output() > perTurn, 'the new socket counted');
      expect(output()).toBe(2 * perTurn);
    },
  },
  {
    id: 'reconnect',
    title: 'reconnect: a dropped socket is replaced and the session is connected again',
    async run({ fake, session, rec }) {
      (await fake.connection(0)).drop();
      await fake.connection(1);
      await until(() => session.state === 'connected' && rec.states.includes('reconnecting'), 'reconnected');
    },
  },
  {
    id: 'reconnect-context',
    title: 'reconnect: the conversation so far survives the drop',
    autoReply: true,
    async run({ fake, session, rec }) {
      const c0 = await fake.connection(0);
      session.sendText('Remember the codeword pineapple.');
      await until(() => rec.turnCompletes >= 1, 'first turn');
      await new Promise((r) => setTimeout(r, 100));
      c0.drop();
      const c1 = await fake.connection(1);
      await until(() => session.state === 'connected', 'reconnected');
      await c1.waitFor(() => c1.conversation().some((t) => t.includes('pineapple')), 'context on the new socket');
    },
  },
  {
    id: 'reconnect-unanswered-speech',
    title: 'reconnect: speech the dropped socket heard but never answered is heard by the new one',
    autoReply: true,
    async run({ fake, session, rec }) {
      const c0 = await fake.connection(0);
      await speak(session, 600);
      await c0.waitFor(() => c0.inputPcm().length > 0, 'speech at the first socket');
      c0.drop();
      const c1 = await fake.connection(1);
      await until(() => session.state === 'connected', 'reconnected');
      await pause(session);
      session.endAudioInput();
      await until(() => rec.turnCompletes >= 1, 'a reply to the speech, from the new socket');
      // The 600 ms tone (amplitude 12 000) again at the new socket, not just the end-of-speech silence.
      const loud = c1.inputPcm().filter((v) => Math.abs(v) > 3000).length;
      expect(loud).toBeGreaterThan(0.3 * c1.inputRate);
    },
  },
  {
    id: 'gives-up-hands-over',
    title:
      'a session that gives up hands over the speech no service answered (said while it retried): whole, in order, with its end, once',
    async run({ fake, session }) {
      await fake.connection(0);
      // The service goes away for good: its socket ends, every reconnect is refused, the session gives up.
      await fake.close();
      const words = tone16k(600);
      for (let at = 0; at < words.length; at += 640) session.sendAudio(words.slice(at, at + 640));
      session.endAudioInput();
      await until(() => session.state === 'error', 'the session giving up');
      // What the bridge's model link asks for then (bridge/model-link.ts), for the session it opens next.
      const taken = session.takeUnanswered?.() ?? [];
      const said = taken.filter((chunk): chunk is Int16Array => chunk !== null);
      expect(Int16Array.from(said.flatMap((chunk) => [...chunk]))).toEqual(words);
      expect(taken.at(-1)).toBeNull();
      expect(session.takeUnanswered?.()).toEqual([]);
    },
  },
  {
    id: 'reconnect-before-first-audio',
    title:
      'reconnect: a socket that drops after the user finished but before the reply spoke: the reply comes once, from the new socket',
    autoReply: true,
    async run({ fake, session, rec }) {
      const c0 = await fake.connection(0);
      await speak(session, 600);
      await c0.waitFor(() => c0.inputPcm().length > 0, 'speech at the first socket');
      await pause(session);
      session.endAudioInput();
      // The service took the turn and is about to answer (its modelled first-audio delay): drop now.
      await until(() => c0.replies().started >= 1, 'the first socket beginning its reply');
      expect(c0.replies().spoken).toBe(0);
      c0.drop();
      const c1 = await fake.connection(1);
      await until(() => c1.replies().spoken >= 1, 'the reply spoken on the new socket');
      await until(() => rec.audioSamples >= 24 * 400, 'the whole reply heard');
      await new Promise((r) => setTimeout(r, 1000));
      // The user heard one reply: nothing from the dropped socket, one from the new one.
      expect(c0.replies().spoken).toBe(0);
      expect(c1.replies()).toEqual({ started: 1, spoken: 1 });
      expect(rec.audioSamples).toBe(24 * 400);
      const loud = c1.inputPcm().filter((v) => Math.abs(v) > 3000).length;
      expect(loud).toBeGreaterThan(0.3 * c1.inputRate);
    },
  },
  {
    id: 'session-end',
    title: 'session end: the service ends the session at its time limit; a new one carries the conversation on',
    autoReply: true,
    async run({ fake, session, rec }) {
      const c0 = await fake.connection(0);
      session.sendText('Remember the codeword mango.');
      await until(() => rec.turnCompletes >= 1, 'first turn');
      await new Promise((r) => setTimeout(r, 100));
      c0.endSession();
      const c1 = await fake.connection(1);
      await until(() => session.state === 'connected', 'connected to the new session');
      await c1.waitFor(() => c1.conversation().some((t) => t.includes('mango')), 'context in the new session');
      expect(c1.rejections()).toEqual([]);
    },
  },
  {
    id: 'reconnect-audio',
    title: 'reconnect: audio flows on the new socket',
    async run({ fake, session }) {
      (await fake.connection(0)).drop();
      const c1 = await fake.connection(1);
      await until(() => session.state === 'connected', 'reconnected');
      await speak(session, 400);
      await c1.waitFor(() => c1.inputPcm().length > 0, 'audio on the new socket');
    },
  },
  {
    id: 'reconnect-tool-result',
    title: 'reconnect: a tool result that finishes after a drop is not lost',
    notApplicable: {
      gemini:
        'Gemini resumes the same session; a result for a call of the old socket is covered by the Gemini resumption tests',
    },
    async run({ fake, session, rec }) {
      const c1 = await toolCallThenDrop(fake, session, rec);
      session.sendToolResult({ id: rec.toolCalls[0]!.id, name: 'lookup_weather', response: { result: 'sunny' } });
      await c1.waitFor(() => c1.conversation().some((t) => t.includes('sunny')), 'result on the new socket');
      expect(c1.rejections()).toEqual([]);
    },
  },
  {
    id: 'reconnect-tool-result-offline',
    title: 'reconnect: a tool result that comes while no socket is open is answered on the next one',
    notApplicable: {
      gemini:
        'Gemini resumes the same session; results across a resume are covered by test/integration/gemini/tool-resume.test.ts',
    },
    async run({ fake, session, rec }, adapter) {
      const c0 = await fake.connection(0);
      void c0.toolCall('lookup_weather', { city: 'Oslo' }).catch(() => undefined);
      await until(() => rec.toolCalls.length === 1, 'tool call');
      // The result lands in the gap between the drop and the next socket.
      const c1 = await dropAndDuringTheGap(fake, session, c0, () =>
        session.sendToolResult({ id: rec.toolCalls[0]!.id, name: 'lookup_weather', response: { result: 'sunny' } }),
      );
      // Asked to answer it: Realtime with response.create, GPT-Live with the result as speakable commentary.
      if (adapter.name === 'openai-live')
        await c1.waitFor(() => c1.injectedTexts().some((t) => t.includes('sunny')), 'the result handed over');
      else
        await c1.waitFor(
          () => c1.replyRequests() >= 1 && c1.conversation().some((t) => t.includes('sunny')),
          'an answer asked for',
        );
      expect(c1.rejections()).toEqual([]);
    },
  },
  {
    id: 'reconnect-tool-result-while-replying',
    title:
      "reconnect: a result for the old socket's call, while the new socket replies, asks for its answer after that reply (never refused)",
    notApplicable: {
      gemini:
        'Gemini resumes the same session; results across a resume are covered by test/integration/gemini/tool-resume.test.ts',
      'openai-live': 'GPT-Live hands such a result over as commentary, with no response request to refuse',
    },
    async run({ fake, session, rec }) {
      const c1 = await toolCallThenDrop(fake, session, rec);
      const reply = c1.reply({ transcript: 'Talking meanwhile.', toneMs: 600, paceMs: 40 });
      await until(() => rec.audioSamples > 0, 'the new socket replying');
      session.sendToolResult({ id: rec.toolCalls[0]!.id, name: 'lookup_weather', response: { result: 'sunny' } });
      await reply;
      await c1.waitFor(() => c1.replyRequests() >= 1, 'the answer asked for after the reply');
      expect(c1.rejections()).toEqual([]);
    },
  },
  {
    id: 'reconnect-ends-turn',
    title: 'reconnect: a reply cut off by a drop ends its turn, and the next reply is heard',
    async run({ fake, session, rec }) {
      const c0 = await fake.connection(0);
      void c0.reply({ transcript: 'A long answer that gets cut.', toneMs: 3000, paceMs: 40 }).catch(() => undefined);
      await until(() => rec.audioSamples > 0, 'reply started');
      c0.drop();
      await until(() => rec.turnCompletes >= 1, 'the cut turn ended');
      const c1 = await fake.connection(1);
      await until(() => session.state === 'connected', 'reconnected');
      const before = rec.audioSamples;
      await c1.reply({ transcript: 'Next answer.', toneMs: 300 });
      await until(() => rec.turnCompletes >= 2, 'the next turn');
      expect(rec.audioSamples).toBeGreaterThan(before);
    },
  },
  {
    id: 'barge-in-then-drop',
    title:
      'barge-in: the user talks over the model and the socket drops before the model stops: interrupted, then turnComplete',
    notApplicable: {
      gemini: 'the service reports the interruption itself (serverContent.interrupted), not the client',
      'openai-realtime': 'the service reports the interruption itself (speech_started), not the client',
    },
    async run({ fake, session, rec }) {
      const c0 = await fake.connection(0);
      void c0.reply({ transcript: 'A long answer.', toneMs: 3000, paceMs: 40 }).catch(() => undefined);
      await until(() => rec.audioSamples > 0, 'reply started');
      session.sendAudio(tone16k(40, 440, 12_000)); // the user starts talking over it …
      session.bargedIn?.(); // … which the bridge heard (bridge/barge-in.ts) …
      c0.drop(); // … and the socket goes before the model's silence would have told
      await until(() => rec.turnCompletes >= 1, 'the turn ended');
      expect(rec.order.slice(-2)).toEqual(['interrupted', 'turnComplete']);
    },
  },
  {
    id: 'text-waits-for-user-through-reconnect',
    title: 'text injection: a user who talks through a reconnect is not talked over by a queued text',
    async run({ fake, session }) {
      const c0 = await fake.connection(0);
      // In the gap between the drop and the next socket: the user starts talking (no end of speech
      // yet) and a text is queued.
      const c1 = await dropAndDuringTheGap(fake, session, c0, () => {
        session.sendAudio(tone16k(40, 440, 12_000));
        session.sendText('Later please.');
      });
      await new Promise((r) => setTimeout(r, 400));
      expect(c1.injectedTexts().some((t) => t.includes('Later please.'))).toBe(false);
      session.endAudioInput();
      await c1.waitFor(
        () => c1.injectedTexts().some((t) => t.includes('Later please.')),
        'the text after the user stopped',
      );
    },
  },
  {
    id: 'text-after-silent-tool',
    title: 'text injection: after a tool result the model does not speak to, texts go out again',
    notApplicable: {
      gemini: 'the service ends every tool cycle with turnComplete',
      'openai-realtime': 'the service ends every response.create with response.done',
    },
    async run({ fake, session, rec }) {
      const c0 = await fake.connection(0);
      void c0.toolCall('lookup_weather', { city: 'Oslo' }).catch(() => undefined);
      await until(() => rec.toolCalls.length === 1, 'tool call');
      session.sendText('Meeting moved.');
      session.sendToolResult({ id: rec.toolCalls[0]!.id, name: 'lookup_weather', response: { result: 'sunny' } });
      await c0.waitFor(
        () => c0.injectedTexts().some((t) => t.includes('Meeting moved.')),
        'the text once the model stayed silent',
      );
    },
  },
  {
    id: 'bad-key',
    title: 'bad key: connect fails at once with a key error, no retry storm, key not in the message or logs',
    connect: false,
    async run({ fake, lines }) {
      const key = fakeKey('wrong');
      const { logger, lines: own } = captureLogger();
      const provider = fake.provider({ apiKey: key, logger });
      const error = await provider.connect({ tools: [] }).then(
        () => null,
        (err: Error) => err,
      );
      expect(error?.message).toMatch(/key/i);
      expect(error?.message).not.toContain(key);
      expect(fake.upgradeAttempts()).toBe(1);
      expect([...own, ...lines].join('\n')).not.toContain(key);
    },
  },
  {
    id: 'unknown-model-fallback',
    title: 'unknown model: the next configured model carries the call',
    connect: false,
    async run({ fake, key }) {
      const { logger } = captureLogger();
      const session = await fake
        .provider({ apiKey: key, logger, model: 'no-such-model-9', fallbackModels: [fake.knownModel] })
        .connect({ tools: [] });
      expect(session.model).toBe(fake.knownModel);
      expect(session.state).toBe('connected');
      await session.close();
    },
  },
  {
    id: 'unknown-model-only',
    title: 'unknown model: with no usable model, connect fails naming the model',
    connect: false,
    async run({ fake, key }) {
      const { logger } = captureLogger();
      await expect(
        fake.provider({ apiKey: key, logger, model: 'no-such-model-9' }).connect({ tools: [] }),
      ).rejects.toThrow(/no-such-model-9/);
    },
  },
  {
    id: 'odd-not-json',
    title: 'odd server messages: after a non-JSON frame the call goes on',
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      c.sendOdd('not_json');
      await callGoesOn(fake, session, rec);
    },
  },
  {
    id: 'odd-unknown-type',
    title: 'odd server messages: an unknown message type is ignored',
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      c.sendOdd('unknown_type');
      await callGoesOn(fake, session, rec);
    },
  },
  {
    id: 'odd-malformed',
    title: 'odd server messages: a known type with wrong field types is skipped, not trusted',
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      c.sendOdd('malformed');
      await callGoesOn(fake, session, rec);
      expect(rec.audioSamples).toBe(24 * 200);
    },
  },
  {
    id: 'odd-binary',
    title: 'odd server messages: a binary frame of garbage does not end the call',
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      c.sendOdd('binary');
      await callGoesOn(fake, session, rec);
    },
  },
  {
    id: 'context-silent',
    title: 'context: addContext reaches the model as silent context; it starts no reply and cuts none off',
    async run({ fake, session, rec }) {
      const c = await fake.connection(0);
      expect(session.addContext?.('[Speaking now: Olga]')).toBe(true);
      await c.waitFor(() => c.contextNotes().includes('[Speaking now: Olga]'), 'the first context note');
      // Sent while a reply is playing: the reply goes on to its end.
      const reply = c.reply({ transcript: 'A reply that is not cut off.', toneMs: 600, paceMs: 20 });
      await until(() => rec.audioChunks > 0, 'the reply to start');
      expect(session.addContext?.('[Speaking now: Gus]')).toBe(true);
      expect(await reply).toMatch(/complete/);
      await c.waitFor(() => c.contextNotes().includes('[Speaking now: Gus]'), 'the second context note');
      await until(() => rec.turnCompletes >= 1, 'the end of the reply');
      expect(rec.audioSamples).toBe(24 * 600);
      expect(rec.interrupted).toBe(0);
      // Nothing asked the model to answer it, and nothing of it was spoken.
      await new Promise((r) => setTimeout(r, 300));
      expect(c.replyRequests()).toBe(0);
      expect(rec.turnCompletes).toBe(1);
      expect(rec.outputTranscripts.join('')).not.toContain('Speaking now');
      expect(c.rejections()).toEqual([]);
    },
  },
  {
    id: 'close',
    title: 'close: the client closes the socket and does not reconnect',
    async run({ fake, session }) {
      const c = await fake.connection(0);
      await session.close();
      expect(session.state).toBe('disconnected');
      await c.waitFor(() => !c.isOpen, 'socket closed');
      await new Promise((r) => setTimeout(r, 200));
      expect(fake.established()).toBe(1);
    },
  },
  {
    id: 'key-never-logged',
    title: 'secrets: a whole call with reconnect never writes the key to a log line',
    async run({ fake, session, lines, key }) {
      (await fake.connection(0)).drop();
      await fake.connection(1);
      await until(() => session.state === 'connected', 'reconnected');
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toContain(key);
    },
  },
];

for (const adapter of ADAPTERS) {
  describe(`conformance: ${adapter.name}`, () => {
    let cleanup: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
      cleanup = [];
    });

    for (const scenario of SCENARIOS) {
      const gap = scenario.knownGap?.[adapter.name];
      if (gap) {
        it(`${scenario.id}: KNOWN GAP (${gap})`, () => {
          expect(gap.length).toBeGreaterThan(0);
        });
        continue;
      }
      const reason = scenario.notApplicable?.[adapter.name] ?? adapter.notApplicable?.[scenario.id];
      if (reason) {
        it(`${scenario.id}: not applicable (${reason})`, () => {
          expect(reason.length).toBeGreaterThan(0);
        });
        continue;
      }
      it(`${scenario.id}: ${scenario.title}`, async () => {
        const key = fakeKey('good');
        const fake = await adapter.start({ autoReply: scenario.autoReply, validKeys: [key] });
        cleanup.push(() => fake.close());
        const { logger, lines } = captureLogger();
        let session = null as LiveModelSession | null;
        if (scenario.connect !== false) {
          session = await fake
            .provider({ apiKey: key, logger })
            .connect({ tools: TOOLS, systemInstruction: PERSONA, playedMs: scenario.playedMs });
          cleanup.push(() => session!.close());
        }
        const ctx: Ctx = {
          fake,
          session: session!,
          rec: session ? new Recorder(session) : (null as unknown as Recorder),
          lines,
          key,
        };
        await scenario.run(ctx, adapter);
      });
    }
  });
}
