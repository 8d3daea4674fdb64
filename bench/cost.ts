// npm run bench:cost — what a mostly quiet room costs with and without parking, on each provider.
//
// A scripted 20-minute room: three people (the owner and two allowed speakers) take turns in five
// conversations spread over the call (about two minutes of speech in all, each utterance a 1.2 s
// pitch-coded phrase the fake model answers with a 1.5 s reply), a voice reminder falls due, a /say
// arrives, and one long silence (8 of the 20 minutes) has nothing at all. Each provider's call runs
// twice, parking on (the model is parked after 15 s of quiet) and parking off, all six at once
// (each core in its own process, the fakes in this one).
//
// Time is COMPRESSED by `--scale` (default 0.1: the 20-minute script plays in 2 minutes): every
// time in the script, the number of utterances and the 15 s park-after are multiplied by it; an
// utterance, a reply and every setup delay stay real-time, so the rows are measured seconds of the
// compressed call. `--scale 1` plays the full 20 minutes (six calls at once, ~21 minutes).
//
// What the rows say (bench/results/cost.json):
// - callSeconds: join → leave; speechSeconds: speech the core sent the model (gate pre-roll and
//   hangover included); modelConnectedSeconds: time a model session was open (the core's figure);
// - billedSecondsEstimate: GPT-Live bills every active second, so its connected seconds; the
//   token-billed providers bill audio, not time: seconds of audio sent to and received from them;
// - parks, wakes, wakeToReadyP95Ms (the core's wake → session ready), wakeToFirstAudioP95Ms (end of
//   the utterance that woke the model → first loud reply packet at the fake Discord);
// - wordsLost: from what each fake model received: an utterance is four 300 ms "words"; words
//   missing from the phrase's loud span at the model, and all four when it never arrived;
// - costUsd: the core's estimate at the built-in prices (usage summed over a parked call's sessions).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { phraseSignal } from '../main/fakes/shared/phrases.ts';
import { startBenchCore, type BenchCore } from './lib/latency-call.ts';
import { BENCH_PROVIDERS, type BenchProvider, type UserTurn } from './lib/model-fakes.ts';

const SCRIPT_S = 1200;
const PARK_AFTER_S = 15;
/** Utterances in the full script: 100 × 1.2 s = 2 minutes of speech. */
const UTTERANCES = 100;
/** Where the five conversations start in the full script (s); 420-900 is the long silence. */
const CONVERSATIONS_AT_S = [30, 180, 330, 930, 1080];
const REMINDER_AT_S = 270;
const SAY_AT_S = 1030;
const PHRASE_MS = 1200;
const WORD_MS = 300;
const REPLY_MS = 1500;
const FRAME = 1920;

export interface CostRow {
  provider: BenchProvider;
  parking: 'on' | 'off';
  callSeconds: number;
  speechSeconds: number;
  modelConnectedSeconds: number;
  billedSecondsEstimate: number;
  parks: number;
  wakes: number;
  wakeToReadyP95Ms: number | null;
  wakeToFirstAudioP95Ms: number | null;
  wordsLost: number;
  costUsd: number;
}

const p95 = (values: number[]): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)]!);
};
const round1 = (n: number) => Math.round(n * 10) / 10;

/** Ms of `pcm` (mono at `rate`) in 10 ms blocks loud enough to be the phrase. */
function loudMs(pcm: Int16Array, rate: number): number {
  const block = rate / 100;
  let loud = 0;
  for (let b = 0; (b + 1) * block <= pcm.length; b++) {
    let sum = 0;
    for (let i = b * block; i < (b + 1) * block; i++) sum += pcm[i]! * pcm[i]!;
    if (Math.sqrt(sum / block) > 1500) loud += 10;
  }
  return loud;
}

function firstLoudFrameFrom(pcm: Int16Array, fromFrame: number): number {
  for (let f = fromFrame; (f + 1) * FRAME <= pcm.length; f++) {
    let peak = 0;
    for (let i = f * FRAME; i < (f + 1) * FRAME; i++) peak = Math.max(peak, Math.abs(pcm[i]!));
    if (peak > 1000) return f;
  }
  return -1;
}

interface LinkFigures {
  connectedSeconds: number;
  speechSeconds: number;
  parks: number;
  wakes: number;
  wakeReadyMs: number[];
}

async function runRoom(provider: BenchProvider, parking: boolean, scale: number, log: (line: string) => void): Promise<CostRow> {
  const parkAfterS = parking ? PARK_AFTER_S * scale : 0;
  const core: BenchCore = await startBenchCore({ provider, extraUsers: ['speaker-2', 'speaker-3'], env: { DISCORD_VOICE_LIVE_PARK_AFTER_S: String(parkAfterS) } });
  const { discord, model } = core;
  const people = discord.users.filter((u) => !u.bot);
  for (const user of people) if (user.id !== discord.owner.id) discord.userJoinVoice(user.id);
  const turns: UserTurn[] = [];
  let replyAudioMs = 0;
  model.onUserTurn((turn) => {
    turns.push(turn);
    if (turn.respond({ toneMs: REPLY_MS, transcript: 'Noted.', inputTranscript: `phrase ${turns.length}` })) replyAudioMs += REPLY_MS;
  });
  try {
    const joinedAt = Date.now();
    const join = await core.request('/join', 'POST');
    if (join.status !== 200) throw new Error(`join failed: ${join.status} ${JSON.stringify(join.body)}`);
    await model.firstSocket();
    const at = (scriptS: number) => sleep(Math.max(0, joinedAt + scriptS * scale * 1000 - Date.now()));
    const utterances = Math.max(CONVERSATIONS_AT_S.length, Math.round(UTTERANCES * scale));
    const perConversation = Math.ceil(utterances / CONVERSATIONS_AT_S.length);
    const wakeToAudio: number[] = [];
    let said = 0;
    const events: { atS: number; run: () => Promise<void> }[] = [
      ...CONVERSATIONS_AT_S.map((atS) => ({
        atS,
        run: async () => {
          for (let i = 0; i < perConversation && said < utterances; i++, said++) {
            const speaker = people[said % people.length]!;
            const parked = (await core.health()).bridge.state === 'parked';
            const turnsBefore = turns.length;
            await discord.speak(speaker.id, phraseSignal(said % 12), { seed: said + 1 });
            const endFrame = Math.floor(discord.recorder.pcm().length / FRAME);
            const spokeAt = Date.now();
            // Wait for the model's turn and the start of its reply (or give up: a lost utterance).
            let firstAudio = -1;
            while (Date.now() - spokeAt < 10_000 && firstAudio < 0) {
              await sleep(20);
              if (turns.length > turnsBefore) firstAudio = firstLoudFrameFrom(discord.recorder.pcm(), endFrame);
            }
            if (parked && firstAudio >= 0) wakeToAudio.push(Date.now() - spokeAt);
            await sleep(REPLY_MS / 2 + 800); // the rest of the reply (sent at 2× real time) and a pause
          }
        },
      })),
      {
        atS: REMINDER_AT_S,
        run: async () => {
          const body = JSON.stringify({ text: 'Stand up and stretch.', delay_seconds: 1, mode: 'voice' });
          const res = await fetch(`${core.base}/schedule`, { method: 'POST', headers: { authorization: `Bearer ${core.token}`, 'content-type': 'application/json' }, body });
          if (res.status !== 201) throw new Error(`schedule failed: ${res.status}`);
        },
      },
      { atS: SAY_AT_S, run: async () => void (await core.request(`/say?text=${encodeURIComponent('The build is green.')}`, 'GET')) },
    ];
    for (const event of events.sort((a, b) => a.atS - b.atS)) {
      await at(event.atS);
      await event.run();
    }
    await at(SCRIPT_S);
    // Read whole (the bench's health schema keeps only the latency fields).
    const health = (await core.request('/health')).body as { usage?: { call?: { cost_usd: number } }; metrics: { model_link: LinkFigures } };
    const usage = health.usage;
    const link = health.metrics.model_link;
    const callSeconds = (Date.now() - joinedAt) / 1000;
    await core.request('/leave');
    let wordsLost = 0;
    for (let i = 0; i < said; i++) {
      const turn = turns[i];
      wordsLost += turn ? Math.max(0, Math.round((PHRASE_MS - loudMs(turn.pcm, turn.rate)) / WORD_MS)) : PHRASE_MS / WORD_MS;
    }
    const row: CostRow = {
      provider,
      parking: parking ? 'on' : 'off',
      callSeconds: round1(callSeconds),
      speechSeconds: round1(link.speechSeconds),
      modelConnectedSeconds: round1(link.connectedSeconds),
      billedSecondsEstimate: round1(provider === 'openai-live' ? link.connectedSeconds : link.speechSeconds + replyAudioMs / 1000),
      parks: link.parks,
      wakes: link.wakes,
      wakeToReadyP95Ms: p95(link.wakeReadyMs),
      wakeToFirstAudioP95Ms: p95(wakeToAudio),
      wordsLost,
      costUsd: usage?.call?.cost_usd ?? 0,
    };
    log(`${provider} parking ${row.parking}: connected ${row.modelConnectedSeconds} s of ${row.callSeconds} s, ${row.parks} parks, ${row.wakes} wakes, ${row.wordsLost} words lost, $${row.costUsd}`);
    return row;
  } finally {
    await core.close();
  }
}

/** The README table, from the JSON. */
export function costTableMarkdown(result: { scale: number; rows: CostRow[] }): string {
  const head = '| provider | parking | call s | speech s | model connected s | billed s (est.) | parks | wakes | wake→ready p95 ms | wake→first audio p95 ms | words lost | cost USD |';
  const rule = '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|';
  const lines = result.rows.map((r) =>
    `| ${r.provider} | ${r.parking} | ${r.callSeconds} | ${r.speechSeconds} | ${r.modelConnectedSeconds} | ${r.billedSecondsEstimate} | ${r.parks} | ${r.wakes} | ${r.wakeToReadyP95Ms ?? '—'} | ${r.wakeToFirstAudioP95Ms ?? '—'} | ${r.wordsLost} | ${r.costUsd.toFixed(4)} |`,
  );
  return [head, rule, ...lines].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { scale: { type: 'string', default: '0.1' }, providers: { type: 'string', default: BENCH_PROVIDERS.join(',') } } });
  const scale = Number(values.scale);
  if (!(scale > 0 && scale <= 1)) throw new Error('--scale must be in (0, 1]');
  const providers = values.providers.split(',').filter((p): p is BenchProvider => (BENCH_PROVIDERS as readonly string[]).includes(p));
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`bench:cost: a ${SCRIPT_S / 60}-minute room compressed ×${scale} (${Math.round(SCRIPT_S * scale)} s per call); parking on parks after ${PARK_AFTER_S} s of quiet (${round1(PARK_AFTER_S * scale)} s compressed); ${providers.length * 2} calls at once`);
  const runs = providers.flatMap((provider) => [runRoom(provider, true, scale, log), runRoom(provider, false, scale, log)]);
  // Settled, not all: a failed call must not leave the others' cores running.
  const settled = await Promise.allSettled(runs);
  const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  if (failed.length > 0) throw failed[0];
  const rows = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const result = {
    generatedAt: new Date().toISOString(),
    scale,
    parkAfterSeconds: PARK_AFTER_S,
    note: `20-minute script compressed ×${scale}: seconds are measured in the compressed call; utterances, replies and setup delays are real-time. Figures taken on a shared, loaded machine.`,
    rows,
  };
  const out = fileURLToPath(new URL('./results/cost.json', import.meta.url));
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  log(`\n${costTableMarkdown(result)}\n\nwrote ${out}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
