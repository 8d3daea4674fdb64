// npm run bench:cost — what a mostly quiet room costs with and without parking, on each provider.
//
// A scripted 20-minute room (bench/lib/cost-room.ts): three people (the owner and two allowed
// speakers), so the wake-name gate is on and screens with a fake transcription session. Five
// exchanges with the model ("Assistant, …", the model answers, the next person follows up 200 ms
// after its voice stops: four turns each), five chats where people talk to each other without the
// name (screened and dropped: they never reach the model), a voice reminder falls due, a /say
// arrives, and one long silence (420-900 s) has nothing at all; about two minutes of people's speech.
// Each provider's call runs twice, parking on (the model is parked after 15 s of quiet) and
// parking off, all six at once (each core in its own process, the fakes in this one).
//
// Time is COMPRESSED by `--scale` (default 0.1: the 20-minute script plays in 2 minutes): event
// times, the turns per exchange and the chats' utterances and the 15 s park-after are multiplied by
// it; an utterance, a reply, the 200 ms turn gap, the follow-up window and every setup delay stay
// real-time, so the rows are measured seconds of the compressed call. `--scale 1` plays the full 20
// minutes (six calls at once, ~21 minutes).
//
// What the rows say (bench/results/cost.json; docs/usage.md "npm run bench:cost"):
// - callSeconds: join → leave;
// - speechSeconds: the room's talk WITH the model = peopleSpeechSeconds + modelSpeechSeconds, both
//   reported beside it. peopleSpeechSeconds: audio the core sent the model (the voice gate's pre-roll
//   and hangover included; what the core's own `speechSeconds` figure counts); modelSpeechSeconds:
//   reply audio the fake model sent. A connection must be open while either side speaks, so the
//   target `modelConnectedSeconds ≤ 1.2 × speechSeconds + 15 s × wakes` is checked against this sum;
//   the log also prints it against people's speech alone;
// - modelConnectedSeconds: time a model session was open (the core's figure);
// - billedSecondsEstimate: GPT-Live bills every active second, so its connected seconds; the
//   token-billed providers bill audio, not time: seconds of audio sent to and received from them;
// - parks, wakes, wakeToReadyP95Ms (the core's wake → session ready), wakeToFirstAudioP95Ms (end of
//   the utterance that woke the model → first reply packet at the fake Discord; screening included);
// - wordsLost: from what each fake model received: for each utterance meant for the model (named,
//   or a follow-up), its 300 ms words missing from the loud audio of the turns the model ended for
//   it; all of them when none arrived (bench/lib/cost-room.ts wordsLost);
// - chatReachedModel: utterances people said to each other that reached the model anyway (0 expected);
// - parkAfterLastVoiceMaxS: after each exchange, the model's last reply packet at the fake Discord →
//   the park (the core's `since`, read once a second); the longest. The quiet period runs from the
//   last audio the model SENT (2× faster than it plays), so ≈ 15 s minus the reply's unplayed half;
//   more than 15 s (+1 s of polling) would be something keeping the model up after the talk;
// - costUsd: the core's estimate at the built-in prices (usage summed over a parked call's sessions).
import { turnCapFor } from '../main/core/audio/end-of-turn.ts';
import { DEFAULT_TURN_SILENCE_CAP_MS } from '../main/core/bridge/call-turn.ts';
import { DEFAULT_PATIENCE } from '../main/core/contracts/patience.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startFakeOpenAIRealtime, type FakeOpenAIRealtime } from '../main/fakes/openai/index.ts';
import {
  roomScript,
  screenerTranscript,
  SCRIPT_S,
  utteranceSignal,
  WAKE_NAME,
  wordsLost as countWordsLost,
  loudMs,
  type RoomEvent,
} from './lib/cost-room.ts';
import { startBenchCore, type BenchCore } from './lib/latency-call.ts';
import { BENCH_PROVIDERS, type BenchProvider, type UserTurn } from './lib/model-fakes.ts';

const PARK_AFTER_S = 15;
/** Human turn gap: the next person starts this long after the model's voice stops (field-2026-11.md §4). */
const TURN_GAP_MS = 200;
/** The wake-name gate's follow-up window (the core's default, DISCORD_VOICE_LIVE_WAKE_FOLLOW_UP_MS). */
const FOLLOW_UP_MS = 8000;
/** People pause this long after their own talk before addressing the model (only a compressed run gets that close). */
const CHAT_PAUSE_MS = 1500;
/** The fake screener's answer time after a commit: an ASSUMPTION (no published figure for gpt-4o-mini-transcribe on 1-3 s). */
const SCREEN_MS = 300;
/** A reply packet: the bot's Opus payload for a loud tone is far larger than for near-silence. */
const LOUD_OPUS_BYTES = 20;

export interface CostRow {
  provider: BenchProvider;
  parking: 'on' | 'off';
  callSeconds: number;
  speechSeconds: number;
  peopleSpeechSeconds: number;
  modelSpeechSeconds: number;
  modelConnectedSeconds: number;
  billedSecondsEstimate: number;
  parks: number;
  wakes: number;
  wakeToReadyP95Ms: number | null;
  wakeToFirstAudioP95Ms: number | null;
  wordsLost: number;
  chatReachedModel: number;
  /** After each exchange, the model's last voice at Discord → the park (s); the longest. Null: parking off. */
  parkAfterLastVoiceMaxS: number | null;
  /**
   * Issue #52: the quiet the bridge sent after each utterance's last loud frame (its hangover and the
   * held pause, as paced silence, until the service ended the turn or the cap): the mean and the
   * longest, ms, beside the cap in force (never exceeded). Absent in runs made before issue #52.
   */
  turnSilencePerUtteranceMeanMs?: number | null;
  turnSilencePerUtteranceMaxMs?: number | null;
  turnSilenceCapMs?: number;
  costUsd: number;
}

const p95 = (values: number[]): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)]!);
};
const round1 = (n: number) => Math.round(n * 10) / 10;

interface LinkFigures {
  connectedSeconds: number;
  speechSeconds: number;
  parks: number;
  wakes: number;
  wakeReadyMs: number[];
}

/** A turn the fake model ended, and when (Date.now()). */
interface SeenTurn {
  at: number;
  turn: UserTurn;
}

async function runRoom(
  provider: BenchProvider,
  parking: boolean,
  scale: number,
  log: (line: string) => void,
): Promise<CostRow> {
  // Gemini and GPT-Live calls screen on a fake Realtime of their own; a Realtime call on its model's fake.
  const screener =
    provider === 'openai-realtime'
      ? null
      : await startFakeOpenAIRealtime({
          autoReply: false,
          transcribe: screenerTranscript,
          transcribeDelayMs: SCREEN_MS,
        });
  try {
    return await runRoomOn(provider, parking, scale, screener, log);
  } finally {
    await screener?.close();
  }
}

async function runRoomOn(
  provider: BenchProvider,
  parking: boolean,
  scale: number,
  screener: FakeOpenAIRealtime | null,
  log: (line: string) => void,
): Promise<CostRow> {
  const parkAfterS = parking ? PARK_AFTER_S * scale : 0;
  const transcribe = { text: screenerTranscript, delayMs: SCREEN_MS };
  const env: Record<string, string> = {
    DISCORD_VOICE_LIVE_PARK_AFTER_S: String(parkAfterS),
    DISCORD_VOICE_LIVE_WAKE_NAMES: WAKE_NAME,
  };
  if (screener)
    Object.assign(env, {
      OPENAI_REALTIME_BASE_URL: screener.url,
      OPENAI_API_KEY: `fake-bench-screener-${process.pid}`,
    });
  const core: BenchCore = await startBenchCore({
    provider,
    extraUsers: ['speaker-2', 'speaker-3'],
    env,
    ...(screener ? {} : { transcribe }),
  });
  const { discord, model } = core;
  const people = discord.users.filter((u) => !u.bot);
  for (const user of people) if (user.id !== discord.owner.id) discord.userJoinVoice(user.id);
  const seen: SeenTurn[] = [];
  let replyAudioMs = 0;
  // The reply the model gives to the next turn it ends (the runner sets it before each utterance).
  let nextReplyMs = 2500;
  model.onUserTurn((turn) => {
    seen.push({ at: Date.now(), turn });
    if (turn.respond({ toneMs: nextReplyMs, transcript: 'Noted.', inputTranscript: `turn ${seen.length}` }))
      replyAudioMs += nextReplyMs;
  });
  /** Reply packets (loud) the fake Discord received after `since`: the first's time and the last's. */
  const replyPackets = (since: number): { first: number; last: number } | null => {
    const packets = discord.recorder.packets;
    let first = -1;
    let last = -1;
    for (let i = packets.length - 1; i >= 0 && packets[i]!.receivedAt > since; i--) {
      const p = packets[i]!;
      if (p.silence || p.opusBytes <= LOUD_OPUS_BYTES) continue;
      first = p.receivedAt;
      if (last < 0) last = p.receivedAt;
    }
    return first < 0 ? null : { first, last };
  };
  let lastBotVoiceAt = 0;
  let lastChatAt = 0;
  let lastTextAt = 0;
  const exchangeEnds: number[] = [];
  const parkedAt: number[] = [];
  try {
    const joinedAt = Date.now();
    const join = await core.request('/join', 'POST');
    if (join.status !== 200) throw new Error(`join failed: ${join.status} ${JSON.stringify(join.body)}`);
    await model.firstSocket();
    const at = (callS: number) => sleep(Math.max(0, joinedAt + callS * 1000 - Date.now()));
    const wakeToAudio: number[] = [];
    const meant: { ms: number; from: number }[] = [];
    const chatWindows: { from: number; to: number }[] = [];
    let said = 0;
    const speak = (k: number, speechS: number) =>
      discord.speak(people[said++ % people.length]!.id, utteranceSignal(k, speechS), { seed: said });
    /**
     * Until the model's reply (`replyMs` long) has played out at the fake Discord: its first packet's
     * time, or null (10 s without a reply: lost). Played out = at least `replyMs` since its first
     * packet and 120 ms without one: a short gap inside a reply (a late packet on a loaded machine)
     * is not its end, or the next person would talk over it and the chat start inside the follow-up window.
     */
    const awaitReply = async (spokeAt: number, replyMs: number): Promise<number | null> => {
      for (const started = Date.now(); Date.now() - started < 10_000 + replyMs;) {
        await sleep(20);
        const reply = replyPackets(spokeAt);
        if (reply && Date.now() - reply.last > 120 && Date.now() - reply.first >= replyMs) {
          lastBotVoiceAt = reply.last;
          return reply.first;
        }
      }
      return null;
    };
    const run = async (event: RoomEvent): Promise<void> => {
      if (event.kind === 'exchange') {
        // Someone addresses the model after a pause in the people's own talk: said within the voice
        // gate's hangover it would join the chat's utterance and be screened (and dropped) with it.
        await sleep(Math.max(0, lastChatAt + CHAT_PAUSE_MS - Date.now()));
        for (const turn of event.turns) {
          const parked = (await core.health()).bridge.state === 'parked';
          nextReplyMs = turn.replyS * 1000;
          meant.push({ ms: turn.speechS * 1000, from: Date.now() });
          await speak(turn.k, turn.speechS);
          const spokeAt = Date.now();
          const firstAudio = await awaitReply(spokeAt, nextReplyMs);
          if (parked && firstAudio !== null) wakeToAudio.push(firstAudio - spokeAt);
          if (process.env.COST_DEBUG)
            log(
              `${provider} ${parking ? 'on' : 'off'} at ${Math.round((spokeAt - joinedAt) / 1000)} s: ${parked ? 'parked, ' : ''}reply ${firstAudio === null ? 'NONE' : `after ${firstAudio - spokeAt} ms`}`,
            );
          await sleep(TURN_GAP_MS);
        }
        exchangeEnds.push(lastBotVoiceAt);
      } else if (event.kind === 'chat') {
        // People turn to each other once the follow-up window after the bot's voice (or a text it
        // was given to speak: the fake says nothing for it, a real model would) has passed.
        await sleep(Math.max(0, Math.max(lastBotVoiceAt, lastTextAt) + FOLLOW_UP_MS + 2000 - Date.now()));
        const from = Date.now();
        for (const u of event.utterances) {
          await speak(u.k, u.speechS);
          await sleep(TURN_GAP_MS);
        }
        lastChatAt = Date.now();
        chatWindows.push({ from, to: lastChatAt + 2000 });
      } else if (event.kind === 'reminder') {
        lastTextAt = Date.now() + 1000;
        const body = JSON.stringify({ text: 'Stand up and stretch.', delay_seconds: 1, mode: 'voice' });
        const res = await fetch(`${core.base}/schedule`, {
          method: 'POST',
          headers: { authorization: `Bearer ${core.token}`, 'content-type': 'application/json' },
          body,
        });
        if (res.status !== 201) throw new Error(`schedule failed: ${res.status}`);
      } else {
        lastTextAt = Date.now();
        await core.request(`/say?text=${encodeURIComponent('The build is green.')}`, 'GET');
      }
    };
    // When the call parked (the core's `since`), read once a second: how long after the model's voice it parks.
    let lastState = '';
    const parkWatch = setInterval(() => {
      void core.request('/health').then(
        (res) => {
          const bridge = (res.body as { bridge?: { state?: string; since?: number } }).bridge;
          if (bridge?.state === 'parked' && lastState !== 'parked' && typeof bridge.since === 'number')
            parkedAt.push(bridge.since * 1000);
          lastState = bridge?.state ?? '';
        },
        () => undefined,
      );
    }, 1000);
    try {
      for (const event of roomScript(scale)) {
        await at(event.atS);
        await run(event);
      }
      await at(SCRIPT_S * scale);
    } finally {
      clearInterval(parkWatch);
    }
    // After each exchange: the model's voice stopped at the fake Discord → the park.
    const quietToPark = parking
      ? exchangeEnds.flatMap((end) => {
          const park = parkedAt.find((t) => t > end);
          return park === undefined ? [] : [(park - end) / 1000];
        })
      : [];
    // Read whole (the bench's health schema keeps only the latency fields).
    const health = (await core.request('/health')).body as {
      usage?: { call?: { cost_usd: number } };
      metrics: {
        model_link: LinkFigures;
        turns_ended?: number;
        turn_silence_ms_total?: number;
        turn_silence_ms_max?: number;
      };
    };
    const turnsEnded = health.metrics.turns_ended ?? 0;
    const link = health.metrics.model_link;
    const callSeconds = (Date.now() - joinedAt) / 1000;
    await core.request('/leave');
    // Each utterance meant for the model owns the turns ended from its start to the next one's start.
    let lost = 0;
    meant.forEach((u, i) => {
      const until = meant[i + 1]?.from ?? Number.POSITIVE_INFINITY;
      const turns = seen
        .filter((s) => s.at >= u.from && s.at < until && !chatWindows.some((w) => s.at >= w.from && s.at < w.to))
        .map((s) => s.turn);
      lost += countWordsLost(u.ms, turns);
    });
    if (process.env.COST_DEBUG) {
      for (const u of meant) log(`${provider} ${parking ? 'on' : 'off'} meant at ${u.from - joinedAt} ms, ${u.ms} ms`);
      for (const w of chatWindows)
        log(`${provider} ${parking ? 'on' : 'off'} chat ${w.from - joinedAt}-${w.to - joinedAt} ms`);
      for (const t of seen)
        log(
          `${provider} ${parking ? 'on' : 'off'} turn at ${t.at - joinedAt} ms: ${Math.round((t.turn.pcm.length / t.turn.rate) * 1000)} ms, loud ${loudMs(t.turn.pcm, t.turn.rate)} ms`,
        );
    }
    const chatReachedModel = seen.filter((s) => chatWindows.some((w) => s.at >= w.from && s.at < w.to)).length;
    const peopleSpeechSeconds = link.speechSeconds;
    const modelSpeechSeconds = replyAudioMs / 1000;
    const row: CostRow = {
      provider,
      parking: parking ? 'on' : 'off',
      callSeconds: round1(callSeconds),
      speechSeconds: round1(peopleSpeechSeconds + modelSpeechSeconds),
      peopleSpeechSeconds: round1(peopleSpeechSeconds),
      modelSpeechSeconds: round1(modelSpeechSeconds),
      modelConnectedSeconds: round1(link.connectedSeconds),
      billedSecondsEstimate: round1(
        provider === 'openai-live' ? link.connectedSeconds : peopleSpeechSeconds + modelSpeechSeconds,
      ),
      parks: link.parks,
      wakes: link.wakes,
      wakeToReadyP95Ms: p95(link.wakeReadyMs),
      wakeToFirstAudioP95Ms: p95(wakeToAudio),
      wordsLost: lost,
      chatReachedModel,
      parkAfterLastVoiceMaxS: quietToPark.length > 0 ? round1(Math.max(...quietToPark)) : null,
      turnSilencePerUtteranceMeanMs:
        turnsEnded > 0 ? Math.round((health.metrics.turn_silence_ms_total ?? 0) / turnsEnded) : null,
      turnSilencePerUtteranceMaxMs: turnsEnded > 0 ? (health.metrics.turn_silence_ms_max ?? null) : null,
      turnSilenceCapMs: turnCapFor(DEFAULT_TURN_SILENCE_CAP_MS, DEFAULT_PATIENCE),
      costUsd: health.usage?.call?.cost_usd ?? 0,
    };
    log(
      `${provider} parking ${row.parking}: connected ${row.modelConnectedSeconds} s of ${row.callSeconds} s, ${row.parks} parks, ${row.wakes} wakes, ${row.wordsLost} words lost of ${meant.length} utterances, ${row.chatReachedModel} chat utterances reached the model, silence after an utterance mean ${row.turnSilencePerUtteranceMeanMs} / max ${row.turnSilencePerUtteranceMaxMs} ms (cap ${row.turnSilenceCapMs}), $${row.costUsd}`,
    );
    return row;
  } finally {
    await core.close();
  }
}

/** The README table, from the JSON. */
export function costTableMarkdown(result: { scale: number; rows: CostRow[] }): string {
  const head =
    '| provider | parking | call s | speech s (people + model) | model connected s | billed s (est.) | parks | wakes | wake→ready p95 ms | wake→first audio p95 ms | words lost | cost USD |';
  const rule = '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|';
  const lines = result.rows.map(
    (r) =>
      `| ${r.provider} | ${r.parking} | ${r.callSeconds} | ${r.speechSeconds} (${r.peopleSpeechSeconds} + ${r.modelSpeechSeconds}) | ${r.modelConnectedSeconds} | ${r.billedSecondsEstimate} | ${r.parks} | ${r.wakes} | ${r.wakeToReadyP95Ms ?? '—'} | ${r.wakeToFirstAudioP95Ms ?? '—'} | ${r.wordsLost} | ${r.costUsd.toFixed(4)} |`,
  );
  return [head, rule, ...lines].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: '0.1' },
      providers: { type: 'string', default: BENCH_PROVIDERS.join(',') },
    },
  });
  const scale = Number(values.scale);
  if (!(scale > 0 && scale <= 1)) throw new Error('--scale must be in (0, 1]');
  const providers = values.providers
    .split(',')
    .filter((p): p is BenchProvider => (BENCH_PROVIDERS as readonly string[]).includes(p));
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(
    `bench:cost: a ${SCRIPT_S / 60}-minute room compressed ×${scale} (${Math.round(SCRIPT_S * scale)} s per call); parking on parks after ${PARK_AFTER_S} s of quiet (${round1(PARK_AFTER_S * scale)} s compressed); ${providers.length * 2} calls at once`,
  );
  const runs = providers.flatMap((provider) => [
    runRoom(provider, true, scale, log),
    runRoom(provider, false, scale, log),
  ]);
  // Settled, not all: a failed call must not leave the others' cores running.
  const settled = await Promise.allSettled(runs);
  const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  if (failed.length > 0) throw failed[0];
  const rows = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const result = {
    generatedAt: new Date().toISOString(),
    scale,
    parkAfterSeconds: PARK_AFTER_S,
    note: `20-minute script compressed ×${scale}: seconds are measured in the compressed call; utterances, replies, turn gaps, screening and setup delays are real-time. speechSeconds = people's speech sent to the model + the model's reply audio. Figures taken on a shared, loaded machine.`,
    rows,
  };
  for (const r of rows.filter((row) => row.parking === 'on')) {
    const off = rows.find((row) => row.provider === r.provider && row.parking === 'off');
    const bound = 1.2 * r.speechSeconds + PARK_AFTER_S * scale * r.wakes;
    const peopleBound = 1.2 * r.peopleSpeechSeconds + PARK_AFTER_S * scale * r.wakes;
    log(
      `${r.provider}: connected ${r.modelConnectedSeconds} s ≤ 1.2 × speech + ${round1(PARK_AFTER_S * scale)} s × wakes = ${round1(bound)} s? ${r.modelConnectedSeconds <= bound ? 'yes' : 'NO'} (people's speech alone: ${round1(peopleBound)} s, ${r.modelConnectedSeconds <= peopleBound ? 'yes' : 'NO'}); ${off ? `${Math.round((100 * r.modelConnectedSeconds) / off.modelConnectedSeconds)} % of parking off (≤ 35 %)` : ''}; words lost ${r.wordsLost}; wake→first audio p95 ${r.wakeToFirstAudioP95Ms ?? '—'} ms (≤ 1500)`,
    );
  }
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
