// Conformance for the late-2026 turn and handover rules (#37 Evidence), every live-model adapter
// against its own fake, through the LiveModelSession contract only (adapters.ts). A scenario that
// does not apply to a protocol says why, as in providers.test.ts.
// - A reply is never doubled and the first reply after an interruption or a reconnect is never
//   dropped, whatever order `interrupted`, `turnComplete` and the socket's close arrive in: before
//   the next reply's first audio the session has ended the cut turn (`turnComplete`), which is what
//   lifts the bridge's barge-in mute (bridge.ts, call-audio.ts).
// - Text handed to the model during an outage is delivered after it, never settled and dropped.
// - The model's own `local_notify` voice call is answered at once, with the text to say now
//   (`say_now`), not queued behind the model's own turn.
import { afterEach, describe, expect, it } from 'vitest';
import { attachToolDispatcher } from '../../main/core/model/tool-dispatcher.ts';
import { createNotifier } from '../../main/core/notify/dispatcher.ts';
import { registerNotifyTools } from '../../main/core/notify/tools.ts';
import type { LiveModelSession, TextOutcome, ToolDeclaration } from '../../main/core/ports.ts';
import { ToolRegistry } from '../../main/core/tools/registry.ts';
import {
  ADAPTERS,
  type FakeConnectionControls,
  type FakeService,
  type ProviderAdapter,
  type ProviderName,
} from './adapters.ts';
import { captureLogger, fakeKey, PERSONA, Recorder, speak, TOOLS, until } from './harness.ts';

interface Call {
  fake: FakeService;
  session: LiveModelSession;
  rec: Recorder;
}

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  cleanup = [];
});

async function open(adapter: ProviderAdapter, tools: ToolDeclaration[] = TOOLS, replyWaitMs?: number): Promise<Call> {
  const key = fakeKey('rules');
  const fake = await adapter.start({ validKeys: [key] });
  cleanup.push(() => fake.close());
  const session = await fake
    .provider({ apiKey: key, logger: captureLogger().logger, replyWaitMs })
    .connect({ tools, systemInstruction: PERSONA });
  cleanup.push(() => session.close());
  return { fake, session, rec: new Recorder(session) };
}

const SECOND = 'Second answer here.';
const SECOND_MS = 600;

/**
 * The next reply (on whichever socket is current) is heard whole and once: all its audio, its
 * transcript once, one turn end of its own, and before its first audio the cut turn was ended.
 */
async function nextReplyHeardWholeOnce(c: FakeConnectionControls, rec: Recorder): Promise<void> {
  const mark = rec.timeline.length;
  const before = rec.audioSamples;
  const turnsBefore = rec.turnCompletes;
  await c.reply({ transcript: SECOND, toneMs: SECOND_MS });
  await until(
    () =>
      rec.audioSamples - before >= 24 * SECOND_MS * 0.98 &&
      rec.outputTranscripts.join('').includes(SECOND) &&
      rec.timeline.lastIndexOf('turnComplete') > rec.timeline.indexOf('audio', mark),
    'the second reply, whole, and its turn end',
  );
  await new Promise((r) => setTimeout(r, 250));
  const heard = rec.audioSamples - before;
  expect(heard).toBeGreaterThanOrEqual(24 * SECOND_MS * 0.98);
  expect(heard).toBeLessThanOrEqual(24 * SECOND_MS * 1.02); // not doubled
  expect(rec.outputTranscripts.join('').split(SECOND)).toHaveLength(2); // once
  const firstAudio = rec.timeline.indexOf('audio', mark);
  const lastInterrupted = rec.timeline.lastIndexOf('interrupted', firstAudio);
  if (lastInterrupted >= 0) expect(rec.timeline.slice(lastInterrupted, firstAudio)).toContain('turnComplete');
  // The reply's own turn end, once (a cut turn ended twice would be a second one here).
  expect(rec.timeline.slice(firstAudio).filter((e) => e === 'turnComplete')).toHaveLength(1);
  expect(rec.turnCompletes - turnsBefore).toBeGreaterThanOrEqual(1);
}

/** Checked at every turn of the event loop (a provider's own retries are tens of ms apart here). */
async function everyTurnUntil(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * An incident: the socket closes 1011 and the next connection attempt is refused (503); `text` is
 * handed over while the session reconnects, and the incident ends after one refused attempt. The
 * test's provider retries within tens of ms (3 attempts), so the fake is watched every turn of the
 * event loop, not on a timer.
 */
async function textDuringIncident(
  fake: FakeService,
  session: LiveModelSession,
  text: string,
  outcomes: TextOutcome[],
): Promise<void> {
  const attempts = fake.upgradeAttempts();
  fake.setUnavailable(true);
  await everyTurnUntil(() => session.state === 'reconnecting');
  session.sendText(text, { onSettled: (o) => outcomes.push(o) });
  await everyTurnUntil(() => fake.upgradeAttempts() > attempts);
  fake.setUnavailable(false);
}

async function reconnected(fake: FakeService, session: LiveModelSession, n: number): Promise<FakeConnectionControls> {
  const next = await fake.connection(n);
  await until(() => session.state === 'connected', 'connected again');
  return next;
}

/** Gemini's service messages in every order: I = interrupted, T = turnComplete, C = the socket closes (a drop). */
const ORDERS = ['I', 'T', 'IT', 'TI', 'C', 'IC', 'TC', 'ITC', 'TIC'] as const;

const NOT_APPLICABLE: Partial<Record<string, Partial<Record<ProviderName, string>>>> = {
  'turn-order': {
    'openai-realtime':
      'the service sends no interrupted/turn-end messages a test could reorder: the client cancels at speech_started and ends its turn at response.done (reconnect and barge-in orders below)',
    'openai-live':
      'as OpenAI Realtime: turn ends are the client’s own (response.done, its own barge-in); reconnect and barge-in orders below',
  },
};

/** Protocols whose client ends the user's turn by asking for the response (Realtime's response.create). */
const ASKS_FOR_REPLY = new Set<ProviderName>(['openai-realtime', 'xai']);

/** Defects this suite found and that are not fixed yet (also in docs/providers.md). None now. */
const KNOWN_GAPS: Partial<Record<string, Partial<Record<ProviderName, string>>>> = {};

for (const adapter of ADAPTERS) {
  describe(`2026 rules: ${adapter.name}`, () => {
    const na = (id: string) => NOT_APPLICABLE[id]?.[adapter.name] ?? adapter.notApplicable?.[id];

    if (na('turn-order')) {
      it(`turn-order: not applicable (${na('turn-order')})`, () => expect(na('turn-order')!.length).toBeGreaterThan(0));
    } else {
      it.each(ORDERS)(
        'turn-order %s after a reply whose turn is still open: the next reply is heard whole, once',
        async (order) => {
          const { fake, session, rec } = await open(adapter);
          let c = await fake.connection(0);
          await c.reply({ transcript: 'First answer.', toneMs: 300, complete: false });
          await until(() => rec.audioSamples >= 24 * 300 * 0.98, 'the first reply');
          let sockets = 1;
          for (const step of order) {
            if (step === 'C') {
              c.drop();
              c = await reconnected(fake, session, sockets++);
            } else c.serverTurnEvent!(step === 'I' ? 'interrupted' : 'turnComplete');
          }
          await new Promise((r) => setTimeout(r, 100));
          await nextReplyHeardWholeOnce(c, rec);
          expect(rec.outputTranscripts.join('').split('First answer.').length).toBeLessThanOrEqual(2);
        },
      );
    }

    it('reconnect mid-reply: the first reply on the next socket is heard whole, once', async () => {
      const { fake, session, rec } = await open(adapter);
      const c0 = await fake.connection(0);
      void c0.reply({ transcript: 'A long first answer.', toneMs: 3000, paceMs: 40 }).catch(() => undefined);
      await until(() => rec.audioSamples > 24 * 200, 'the first reply started');
      c0.drop();
      await nextReplyHeardWholeOnce(await reconnected(fake, session, 1), rec);
    });

    it('barge-in, then the socket closes: the first reply on the next socket is heard whole, once', async () => {
      const { fake, session, rec } = await open(adapter);
      const c0 = await fake.connection(0);
      void c0.reply({ transcript: 'A long first answer.', toneMs: 4000, paceMs: 40 }).catch(() => undefined);
      await until(() => rec.audioSamples > 24 * 200, 'the first reply started');
      await speak(session, 400);
      session.bargedIn?.(); // the bridge heard the user over the reply (bridge/barge-in.ts)
      await until(() => rec.interrupted >= 1, 'interrupted');
      c0.drop();
      session.endAudioInput();
      const c1 = await reconnected(fake, session, 1);
      // The next reply comes after the speech no service answered is sent again on the new socket,
      // as a service's would (it answers that speech). Scripted while the replay still arrived, the
      // replay's own start of speech was a barge-in on it: the xai run of the full suite beside the
      // day soak (2026-12-03) timed out waiting for it whole.
      await c1.waitFor(() => c1.inputPcm().length >= c1.inputRate * 0.3, 'the unanswered speech sent again');
      await nextReplyHeardWholeOnce(c1, rec);
    });

    // A known gap runs as `it.fails`: it documents the defect and turns red once it is fixed (then drop the entry).
    const sayGap = KNOWN_GAPS['say-during-outage']?.[adapter.name];
    (sayGap ? it.fails : it)(
      `/say during an outage is delivered after it (never settled and dropped)${sayGap ? ` — KNOWN GAP: ${sayGap}` : ''}`,
      async () => {
        const { fake, session } = await open(adapter);
        const c0 = await fake.connection(0);
        const outcomes: TextOutcome[] = [];
        const text = 'The pizza is here.';
        await textDuringIncident(fake, session, text, outcomes);
        const c1 = await reconnected(fake, session, 1);
        await c1.waitFor(
          () => c1.injectedTexts().some((t) => t.includes(text)),
          'the text on the socket after the outage',
        );
        await until(() => outcomes.length === 1, 'the text settled');
        expect(outcomes).toEqual([{ delivered: true }]);
        expect(c0.injectedTexts().some((t) => t.includes(text))).toBe(false);
      },
    );

    it('a /say queued in an outage waits for the reply to the speech sent again on the next socket, which is heard whole', async () => {
      // The product's wait for a reply (1.5 s): the fakes' first audio comes 320–400 ms after a turn
      // end (service-timing.ts), beyond the 200 ms the other tests wait.
      const replyWaitMs = 1500;
      const { fake, session, rec } = await open(adapter, TOOLS, replyWaitMs);
      const c0 = await fake.connection(0);
      const text = 'The pizza is here.';
      const outcomes: TextOutcome[] = [];
      await speak(session, 400);
      session.endAudioInput();
      await c0.waitFor(() => c0.inputPcm().length >= c0.inputRate * 0.3, 'the speech at the service');
      // No answer came, and the wait for one is over before the incident.
      await new Promise((r) => setTimeout(r, replyWaitMs + 100));
      await textDuringIncident(fake, session, text, outcomes);
      const c1 = await fake.connection(1);
      // The text's arrival, seen at the message that carried it: was the reply to the speech under way?
      let repliesWhenTextCame: number | null = null;
      const textCame = c1.waitFor(() => {
        if (!c1.injectedTexts().some((t) => t.includes(text))) return false;
        repliesWhenTextCame ??= c1.replies().started;
        return true;
      }, 'the text on the socket after the outage');
      await c1.waitFor(() => c1.inputPcm().length >= c1.inputRate * 0.39, 'the unanswered speech sent again');
      // The service answers that speech. Written with it, the text became the turn it answered
      // (Gemini takes one turn end while one is pending; a Realtime response under way refuses a second).
      if (ASKS_FOR_REPLY.has(adapter.name)) {
        // The client ended the replayed turn with response.create: the service's answer is that
        // response (the fake's own, empty without a script); a scripted one would be a second.
        await c1.waitFor(() => c1.replyRequests() >= 1, 'the replayed turn asking for its answer');
      } else if (repliesWhenTextCame === null) await nextReplyHeardWholeOnce(c1, rec);
      await textCame;
      expect(repliesWhenTextCame).toBeGreaterThanOrEqual(1);
      await until(() => outcomes.length === 1, 'the text settled');
      expect(outcomes).toEqual([{ delivered: true }]);
      expect(c1.rejections()).toEqual([]); // not written over the reply (a second response refused)
    });

    it("the model's own local_notify voice call is answered at once, with the text to say now (say_now)", async () => {
      const registry = new ToolRegistry();
      const { logger } = captureLogger();
      let session: LiveModelSession | null = null;
      const notifier = createNotifier({
        // A live call: the voice destination is this session (the notifier's non-model path would hand text to it).
        voice: () => ({
          speak: (text) =>
            new Promise((resolve) =>
              session!.sendText(text, {
                onSettled: (o) => resolve(o.delivered ? { delivered: true } : { delivered: false, reason: o.reason }),
              }),
            ),
        }),
        discordText: null,
        sfxEnabled: false,
        logger,
      });
      cleanup.push(async () => notifier.webhook.close());
      const unused = () => Promise.reject(new Error('not used here'));
      registerNotifyTools(registry, { notifier, scheduler: { schedule: unused, list: unused, cancel: unused } });
      const call = await open(adapter, registry.declarations());
      session = call.session;
      attachToolDispatcher(call.session, registry, { logger });
      const c = await call.fake.connection(0);
      // The model is mid-turn where the protocol lets a test hold a turn open (Gemini).
      await c.reply({ transcript: 'One moment, ', toneMs: 200, complete: false });
      const text = 'Tea is ready.';
      const started = Date.now();
      const answer = JSON.stringify(await c.toolCall('local_notify', { text, mode: 'voice' }));
      // The defect took 20 s (a hand-off waiting for a pause the model's own turn could not give).
      expect(Date.now() - started).toBeLessThan(5000);
      expect(answer).toContain('say_now');
      expect(answer).toContain(text);
      expect(answer).not.toContain('unavailable');
      // Spoken by the model from its tool result: not also queued as an injected text (said twice).
      await new Promise((r) => setTimeout(r, 300));
      expect(c.injectedTexts().some((t) => t.includes(text))).toBe(false);
    });
  });
}
