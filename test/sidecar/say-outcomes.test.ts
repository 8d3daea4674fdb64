// Every request to speak has an outcome its sender sees (issue 53): the CLI (`announce`, on a
// terminal and with --json), the `say` events on /events and GET /say/{id}, for each outcome, on the
// real core and the strict fakes (discord.js, @discordjs/voice, @google/genai, the real sidecar):
// - spoken whole: `Spoken.`, and by then the reply's audio has reached the fake Discord;
// - cut by the owner talking over the reply: `Cut off after "<the words heard>" — owner spoke.`
//   (the fake owner's display name is "owner"), the words a strict prefix of the announcement;
// - dropped at Leave: the model never says it, Leave waits its bound and the sender is told why;
// - and spoken before leaving: a Leave right after an announcement lets it be said first.
// Before this, announce printed "Queued" and exited 0 whatever became of the text.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SayOutcome } from '../../main/core/api-types.ts';
import type { AutoReplyOptions } from '../../main/fakes/gemini/options.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../helpers/call-on-fakes.ts';
import { chirpStereo, waitFor } from '../integration/bridge/signals.ts';

let call: CoreOnFakes;
const autoReply: AutoReplyOptions = { toneMs: 1500 };
const events: SayOutcome[] = [];
let stream: http.ClientRequest;

/** Follows GET /events and keeps every `say` event. */
function followEvents(): void {
  stream = http.get(
    {
      host: '127.0.0.1',
      port: call.t.port,
      path: '/events',
      headers: { ...call.t.auth, host: `127.0.0.1:${call.t.port}` },
    },
    (res) => {
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let end: number;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const type = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (type === 'say' && data) events.push(JSON.parse(data) as SayOutcome);
        }
      });
    },
  );
  stream.on('error', () => undefined);
}

interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI as a person runs it: on a terminal (a pty from util-linux `script`), or piped (JSON). */
function cli(args: string[], tty: boolean): Promise<CliRun> {
  const { DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: _f, ...base } = process.env;
  const env = {
    ...base,
    NO_COLOR: '1',
    HERMES_HOME: call.t.home,
    DISCORD_VOICE_LIVE_PORT: String(call.t.port),
    DISCORD_VOICE_LIVE_SIDECAR_TOKEN: call.t.core.token,
  };
  const command = [process.execPath, 'main/cli.ts', ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = tty
    ? spawn('script', ['-qefc', command, '/dev/null'], { env })
    : spawn(process.execPath, ['main/cli.ts', ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) =>
    child.on('close', (status) => resolve({ status, stdout: stdout.replace(/\r\n/g, '\n'), stderr })),
  );
}

/** The events of one request, in order. */
const eventsOf = (id: string) => events.filter((e) => e.id === id);
const idOf = async (text: string): Promise<string> => {
  await waitFor(() => events.some((e) => e.text === text), `the say event of "${text}"`);
  return events.find((e) => e.text === text)!.id;
};

/** ms of loud audio (20 ms frames of 48 kHz stereo with a sample over 2000) the fake Discord received from the bot. */
function loudMsAtDiscord(): number {
  const pcm = call.discord.recorder.pcm();
  let frames = 0;
  for (let at = 0; at + 1920 <= pcm.length; at += 1920) {
    for (let i = at; i < at + 1920; i++) {
      if (Math.abs(pcm[i]!) > 2000) {
        frames++;
        break;
      }
    }
  }
  return frames * 20;
}

beforeAll(async () => {
  call = await startCoreOnFakes({ gemini: { autoReply }, env: () => ({ DISCORD_VOICE_LIVE_PARK_AFTER_S: '0' }) });
  followEvents();
  expect((await call.post('/join')).status).toBe(200);
  await call.gemini.connection(0);
}, 60_000);

afterAll(async () => {
  stream?.destroy();
  await call?.close();
});

describe('what the sender of an announcement sees', () => {
  it('spoken whole: the CLI prints "Spoken." (exit 0) once the reply was played out to Discord; /events and GET /say/{id} say spoken', async () => {
    call.discord.recorder.clear();
    const run = await cli(['announce', 'The build is green'], true);
    expect(run.stdout).toBe(
      'Queued (18 characters): the model says it, word for word, at the next pause in the conversation.\nSpoken.\n',
    );
    expect(run.status).toBe(0);
    const id = await idOf('The build is green');
    const seen = eventsOf(id);
    expect(seen[0]).toMatchObject({ verb: 'announce', outcome: 'waiting', source: 'cli' });
    expect(seen.at(-1)).toMatchObject({
      id,
      verb: 'announce',
      outcome: 'spoken',
      spoken_text: 'The build is green',
      by: null,
      reason: null,
    });
    // The whole 1.5 s reply had reached Discord when it was called spoken (fades aside).
    expect(loudMsAtDiscord()).toBeGreaterThanOrEqual(1400);
    expect((await call.get(`/say/${id}`)).json).toEqual(seen.at(-1));
    // The transcript says it too.
    const notes = (await call.get('/notes?limit=50')).json as { notes: { kind: string; text: string }[] };
    expect(
      notes.notes.some((n) => n.kind === 'note' && n.text === 'announce from cli "The build is green": Spoken.'),
    ).toBe(true);
  }, 60_000);

  it('--no-wait returns at once with the queued answer and its id', async () => {
    const run = await cli(['ask', '--no-wait', 'What time is it?'], false);
    expect(run.status).toBe(0);
    const answer = JSON.parse(run.stdout) as { status: string; as: string; id: string };
    expect(answer).toMatchObject({ status: 'queued', as: 'message', id: expect.stringMatching(/^say_[0-9a-f]{12}$/) });
    await waitFor(() => eventsOf(answer.id).at(-1)?.outcome === 'spoken', 'the answer spoken');
  }, 60_000);

  it('a voice notification carries the id of its outcome (results.voice.say_id), spoken like an announcement', async () => {
    const notified = await call.post('/notify', { text: 'The deploy finished', mode: 'voice' });
    const voice = (notified.json as { results: { voice: { status: string; say_id?: string } } }).results.voice;
    expect(voice).toMatchObject({ status: 'ok', say_id: expect.stringMatching(/^say_[0-9a-f]{12}$/) });
    await waitFor(() => eventsOf(voice.say_id!).at(-1)?.outcome === 'spoken', 'the notification spoken');
    expect((await call.get(`/say/${voice.say_id}`)).json).toMatchObject({
      verb: 'notify',
      outcome: 'spoken',
      spoken_text: expect.stringContaining('The deploy finished'),
    });
  }, 60_000);

  it('cut by the owner: the CLI prints the words heard and who spoke (exit 4); the event names the owner', async () => {
    autoReply.toneMs = 4000;
    const text = 'The build is green and every test passed on the first try';
    const running = cli(['announce', text], true);
    const id = await idOf(text);
    await waitFor(() => eventsOf(id).some((e) => e.reason === 'being spoken'), 'the reply to start');
    // About a second of the reply plays, then the owner talks over it.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await call.discord.speak(call.discord.owner.id, chirpStereo(1.5, 300, 3000, 48_000));
    const run = await running;
    const cut = eventsOf(id).at(-1)!;
    expect(cut).toMatchObject({ outcome: 'cut', by: 'owner', reason: 'owner spoke' });
    // What was heard: the announcement's first words, not all of them.
    expect(cut.spoken_text).toBeTruthy();
    expect(text.startsWith(cut.spoken_text!)).toBe(true);
    expect(cut.spoken_text!.length).toBeLessThan(text.length);
    expect(run.stdout.split('\n')[1]).toBe(`Cut off after "${cut.spoken_text}" — owner spoke.`);
    expect(run.status).toBe(4);
    autoReply.toneMs = 1500;
  }, 60_000);

  it('dropped at Leave: the model never says it; Leave waits its bound, the sender is told why (exit 1), with --json the record', async () => {
    await waitFor(() => !call.gemini.established.at(-1)!.replying, 'the model to finish its answer to the owner');
    autoReply.speakInjectedText = false;
    const text = 'Dinner is ready';
    const running = cli(['announce', '--json', text], false);
    const id = await idOf(text);
    await waitFor(() => eventsOf(id).some((e) => e.reason?.startsWith('handed to the model')), 'the hand-over');
    const leave = await cli(['leave'], false);
    expect(leave.status).toBe(0);
    const run = await running;
    expect(run.status).toBe(1);
    const printed = JSON.parse(run.stdout) as SayOutcome;
    expect(printed).toMatchObject({
      id,
      verb: 'announce',
      outcome: 'dropped',
      spoken_text: null,
      by: null,
      reason: 'the call ended before the model said it (stopped from the command line)',
    });
    expect(eventsOf(id).at(-1)).toEqual(printed);
    autoReply.speakInjectedText = true;
  }, 60_000);

  it('a Leave right after an announcement lets it be spoken first', async () => {
    expect((await call.post('/join')).status).toBe(200);
    await waitFor(() => call.gemini.established.at(-1)!.isOpen, 'the model session');
    const handed = await call.post('/say', { text: 'Leaving now, bye', source: 'dashboard' });
    const { id } = handed.json as { id: string };
    expect((await call.get('/leave?by=dashboard')).status).toBe(200);
    // The Leave answered after the text was spoken (within its bound), not before.
    expect((await call.get(`/say/${id}`)).json).toMatchObject({
      id,
      verb: 'say',
      outcome: 'spoken',
      spoken_text: 'Leaving now, bye',
    });
  }, 60_000);
});
