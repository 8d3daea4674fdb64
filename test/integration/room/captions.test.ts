// Captions in the channel (DISCORD_VOICE_LIVE_CAPTIONS=true), on the fakes: one message in the
// voice channel's chat is edited as people talk (never reposted), the edits stay under the fake's
// Discord bucket (5 per 5 s: no 429), and at the call's end a summary with the decisions and
// reminders, each citing its transcript turn, is posted within 10 s, also when the core shuts down
// right after the call (the shutdown waits for it before stopping the Discord client).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { chirpStereo, waitFor } from '../bridge/signals.ts';

let call: CoreOnFakes;
let model: FakeGeminiConnection;

beforeAll(async () => {
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null, autoReply: false },
    env: () => ({ DISCORD_VOICE_LIVE_CAPTIONS: 'true' }),
  });
  call.discord.owner.nick = 'Olga';
  expect((await call.post('/join')).status).toBe(200);
  model = await call.gemini.connection(0);
}, 60_000);

afterAll(async () => {
  await call?.close();
});

const captionPosts = () =>
  call.discord.messages.filter(
    (m) => m.channelId === call.discord.voiceChannelId && m.content.includes('Live captions'),
  );

it('keeps captions and the brief in one edited message, under the edit limit, then posts the summary citing turns', async () => {
  await waitFor(() => captionPosts().length === 1, 'the captions message');
  const lines = [
    'Let us look at the release.',
    'We decided to ship on Friday.',
    'Remind me to write the release notes tomorrow.',
    'Anything else?',
    'No, that is all.',
    'Thanks everyone.',
  ];
  const talking = call.discord.speak(call.discord.owner.id, chirpStereo(1.0, 300, 2500, 48_000));
  await new Promise((r) => setTimeout(r, 300));
  for (const line of lines) await model.reply({ toneMs: 60, inputTranscript: line, transcript: 'Okay.' });
  await talking;
  const caption = captionPosts()[0]!;
  await waitFor(
    () =>
      call.discord.interactions.edits.some((e) => e.messageId === caption.id && e.content.includes('Thanks everyone.')),
    'the last line in the captions',
  );
  const edits = call.discord.interactions.edits.filter((e) => e.messageId === caption.id);
  // Many lines, few edits (coalesced), none refused; never reposted.
  expect(edits.length).toBeLessThan(lines.length * 2);
  expect(call.discord.interactions.rateLimited).toBe(0);
  expect(captionPosts()).toHaveLength(1);
  const last = edits.at(-1)!.content;
  expect(last).toContain('**Olga**: We decided to ship on Friday.');
  expect(last).toMatch(/Decision: Olga: We decided to ship on Friday\. \(turn \d+\)/);

  const left = Date.now();
  expect((await call.get('/stop')).status).toBe(200);
  await waitFor(() => call.discord.messages.some((m) => m.content.includes('Call summary')), 'the summary', 10_000);
  const summary = call.discord.messages.find((m) => m.content.includes('Call summary'))!;
  expect(summary.receivedAt - left).toBeLessThan(10_000);
  expect(summary.channelId).toBe(call.discord.voiceChannelId);
  expect(summary.content).toMatch(/\*\*Decisions\*\*\n• Olga: We decided to ship on Friday\. \(turn \d+\)/);
  expect(summary.content).toMatch(
    /\*\*Reminders\*\*\n• Olga: Remind me to write the release notes tomorrow\. \(turn \d+\)/,
  );
  // The cited turn is that line's place among the call's transcript lines in /notes.
  const notes = (await call.get('/notes?limit=500')).json as { notes: { kind: string; text: string }[] };
  const transcript = notes.notes.filter((n) => n.kind === 'input_transcript' || n.kind === 'output_transcript');
  const turn = Number(/ship on Friday\. \(turn (\d+)\)/.exec(summary.content)![1]);
  expect(transcript[turn - 1]!.text).toBe('We decided to ship on Friday.');
}, 60_000);

it('a core shutting down right after the call ended (Ctrl-C of headless or the demo) still posts the summary before its Discord client stops', async () => {
  const summaries = () => call.discord.messages.filter((m) => m.content.includes('Call summary')).length;
  const before = summaries();
  expect((await call.post('/join')).status).toBe(200);
  await waitFor(() => captionPosts().length === 2, "the second call's captions message");
  const next = call.gemini.established.at(-1)!;
  await next.reply({ toneMs: 60, inputTranscript: 'We decided to ship on Monday.', transcript: 'Okay.' });
  await waitFor(
    () => call.discord.interactions.edits.some((e) => e.content.includes('ship on Monday')),
    'the line in the captions',
  );
  // The shutdown a signal runs: the call ends, then the core stops at once (no wait in between).
  await call.t.core.bridge.stop('interrupted (Ctrl-C, SIGINT)');
  await call.t.core.stop();
  expect(summaries()).toBe(before + 1);
  expect(call.discord.messages.at(-1)!.content).toContain('ship on Monday');
}, 60_000);
