// A room of three people on one model session: who said what, and who may do what.
//
// Part 1, attribution (a real core in this process, on the fake Discord and the fake Gemini): three
// speakers say numbered phrases, one after another, overlapping the previous phrase for a third of
// them. Phrase j is a tone at 300 + 25·j Hz said by speaker j mod 3; the fake model "transcribes" its
// 16 kHz input in 320 ms blocks, one word `pJ` per phrase tone it hears in a block, so the
// transcription carries no speaker, as with the real service. A phrase is attributed correctly when
// every note holding one of its words names its speaker (where another voice was in the same block,
// the note names both and says "(overlapping)"); `fragmentsExact` is the stricter share of blocks
// whose note names exactly the voices in them. The model is told each speaker by name as context.
//
// Part 2, authority (the bridge's own SpeakerActivity + the tool registry, simulated clock): 200
// interleaved turns of owner and guest asking for an owner-only tool, with the other person
// speaking before, after or over the request, a barge-in cutting the model off, or silence; counts
// the tool calls that ran although the person who asked lacked the right (`crossSpeakerToolCalls`).
//
// Writes bench/results/room.json. `--phrases N` (default 30) for a shorter or longer run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { SpeakerActivity } from '../main/core/bridge/room.ts';
import { loadConfig } from '../main/core/config/index.ts';
import { startCore } from '../main/core/core.ts';
import { silentLogger } from '../main/core/log/logger.ts';
import { defineTool, ToolRegistry } from '../main/core/tools/registry.ts';
import { startFakeDiscord } from '../main/fakes/discord/index.ts';
import { startFakeGemini, type FakeGeminiConnection } from '../main/fakes/gemini/index.ts';
import { amplitudeAt } from './lib/tone-analysis.ts';

const BLOCK = 5120; // 320 ms at 16 kHz
const PHRASE_S = 1.6;
const GAP_MS = 900;
const OVERLAP_MS = 800;
const TURNS = 200;

const phrases = Number(process.argv[process.argv.indexOf('--phrases') + 1] ?? 30) || 30;
const hzOf = (j: number) => 300 + 25 * j;

function toneStereo48k(seconds: number, hz: number): Int16Array {
  const n = Math.round(seconds * 48_000);
  const out = new Int16Array(n * 2);
  const fade = 480;
  for (let i = 0; i < n; i++) {
    const env = Math.min(1, i / fade, (n - 1 - i) / fade);
    out[2 * i] = out[2 * i + 1] = Math.round(9000 * env * Math.sin((2 * Math.PI * hz * i) / 48_000));
  }
  return out;
}

interface Fragment {
  words: string[];
  phrases: number[];
  /** The speaker the model had last been told of ("[Speaking now: NAME]") when the block's last audio arrived. */
  toldAs: string | null;
}

const SPEAKING_NOW = /\[Speaking now: ([^\]]+)\]/;

/** The fake's transcriber: one word per phrase tone heard in each 320 ms of input, sent at once. */
function transcribeAsHeard(connection: FakeGeminiConnection, fragments: Fragment[]): void {
  let pending = new Int16Array(0);
  let seen = 0;
  let contexts = 0;
  let told: string | null = null;
  connection.on('message', () => {
    // Messages are handled one at a time, in order: a context note is in effect for the audio after it.
    while (contexts < connection.clientContents.length)
      told = SPEAKING_NOW.exec(JSON.stringify(connection.clientContents[contexts++]))?.[1] ?? told;
    while (seen < connection.audio.length) {
      const pcm = connection.audio[seen++]!.pcm;
      const joined = new Int16Array(pending.length + pcm.length);
      joined.set(pending);
      joined.set(pcm, pending.length);
      pending = joined;
    }
    while (pending.length >= BLOCK) {
      const block = pending.subarray(0, BLOCK);
      const heard: number[] = [];
      for (let j = 0; j < phrases; j++) if (amplitudeAt(block, hzOf(j), 16_000) > 1500) heard.push(j);
      pending = pending.slice(BLOCK);
      if (heard.length === 0) continue;
      const words = heard.map((j) => `p${j}b${fragments.length}`);
      fragments.push({ words, phrases: heard, toldAs: told });
      connection.send({ serverContent: { inputTranscription: { text: `${words.join(' ')} ` } } });
    }
  });
}

const noteSchema = z.object({ kind: z.string(), text: z.string(), speaker: z.string().optional() });

async function attribution(solo = false) {
  const discord = await startFakeDiscord();
  const gemini = await startFakeGemini({ bargeInRms: null, autoReply: false });
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-bench-room-'));
  const speakers = [discord.owner, discord.user('guest'), discord.user('stranger')];
  const ids = speakers.map((s) => s.id);
  const config = loadConfig({
    env: {
      HERMES_HOME: home,
      DISCORD_BOT_TOKEN: discord.botToken,
      DISCORD_VOICE_LIVE_USER_ID: discord.owner.id,
      DISCORD_API_BASE_URL: discord.apiBaseUrl,
      GEMINI_API_KEY: `fake-gemini-key-${process.pid}`,
      GEMINI_LIVE_BASE_URL: gemini.url,
      DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS: ids.join(','),
    },
  });
  config.sidecar.port = 0;
  const core = await startCore({ config, logger: silentLogger() });
  const base = core.sidecarUrl;
  const auth = { authorization: `Bearer ${core.token}` };
  try {
    discord.owner.nick = 'Olga';
    discord.user('guest').nick = 'Gus';
    discord.user('stranger').globalName = 'Stanley';
    for (const id of ids.slice(1)) discord.userJoinVoice(id);
    const joined = await fetch(`${base}/join`, { method: 'POST', headers: auth });
    if (joined.status !== 200) throw new Error(`join: ${joined.status} ${await joined.text()}`);
    const model = await gemini.connection(0);
    const fragments: Fragment[] = [];
    transcribeAsHeard(model, fragments);

    // Phrase j starts after the previous one ends (plus a gap), or over its end for every third.
    const starts: number[] = [];
    let t = 0;
    for (let j = 0; j < phrases; j++) {
      starts.push(t);
      const overlapNext = !solo && (j + 1) % 3 === 0;
      t += PHRASE_S * 1000 + (overlapNext ? -OVERLAP_MS : GAP_MS);
    }
    const began = Date.now();
    await Promise.all(
      starts.map(async (at, j) => {
        await new Promise((r) => setTimeout(r, Math.max(0, at - (Date.now() - began))));
        await discord.speak(solo ? ids[0]! : ids[j % 3]!, toneStereo48k(PHRASE_S, hzOf(j)));
      }),
    );
    let samples = -1;
    for (let quiet = 0; quiet < 3;) {
      await new Promise((r) => setTimeout(r, 400));
      quiet = model.inputSamples === samples ? quiet + 1 : 0;
      samples = model.inputSamples;
    }
    await model.reply({ toneMs: 100, transcript: 'Noted.' });
    await new Promise((r) => setTimeout(r, 500));

    const notesRes = await fetch(`${base}/notes?limit=500`, { headers: auth });
    const notes = z
      .object({ notes: z.array(noteSchema) })
      .parse(await notesRes.json())
      .notes.filter((n) => n.kind === 'input_transcript');
    // Per phrase: every fragment holding one of its words is in a note naming exactly the fragment's voices.
    const right = new Array<boolean>(phrases).fill(true);
    const misattributed: string[] = [];
    let fragmentsExact = 0;
    const nameOf: Record<string, string> = { [ids[0]!]: 'Olga', [ids[1]!]: 'Gus', [ids[2]!]: 'Stanley' };
    const heard = new Array<boolean>(phrases).fill(false);
    for (const fragment of fragments) {
      const truth = [...new Set(fragment.phrases.map((j) => (solo ? ids[0]! : ids[j % 3]!)))].sort();
      const holding = notes.filter((n) => fragment.words.every((w) => n.text.split(' ').includes(w)));
      const named = (holding[0]?.speaker ?? '').split(',').filter(Boolean).sort();
      const exact = holding.length === 1 && JSON.stringify(named) === JSON.stringify(truth);
      if (exact) fragmentsExact++;
      else
        misattributed.push(
          `${fragment.words.join(' ')}: said by ${truth.map((id) => nameOf[id]).join('+')}, noted as ${named.map((id) => nameOf[id]).join('+') || 'nobody'} (${holding.length} notes)`,
        );
      for (const j of fragment.phrases) {
        heard[j] = true;
        // The phrase's speaker must be named on every one of its words (a note that also names the
        // person talking over it says "(overlapping)"); a word given to someone else alone is wrong.
        if (holding.length !== 1 || !named.includes(solo ? ids[0]! : ids[j % 3]!)) right[j] = false;
      }
    }
    // What the model received: the speaker named (as context) before each phrase's audio.
    const announced = model.clientContents.map((c) => JSON.stringify(c)).filter((c) => c.includes('[Speaking now: '));
    const names = ['Olga', 'Gus', 'Stanley'];
    const toldModel = new Set(announced.map((c) => names.find((n) => c.includes(`[Speaking now: ${n}]`))));
    const attributed = right.filter((ok, j) => ok && heard[j]).length;
    // What the model received: at the end of each phrase's first block, it had been told that phrase's speaker.
    const firstBlock = new Map<number, Fragment>();
    for (const fragment of fragments)
      for (const j of fragment.phrases) if (!firstBlock.has(j)) firstBlock.set(j, fragment);
    const spokenBy = (j: number) => ['Olga', 'Gus', 'Stanley'][solo ? 0 : j % 3]!;
    const modelRight = [...firstBlock].filter(([j, fragment]) => fragment.toldAs === spokenBy(j)).length;
    const inputSeconds = model.inputSamples / 16_000;
    const overlapping = solo ? 0 : starts.filter((_, j) => j % 3 === 2 && j > 0).length;
    // The seconds someone is talking (overlaps counted once): what one speaker saying it all would send.
    const speechUnion = phrases * PHRASE_S - (overlapping * OVERLAP_MS) / 1000;
    return {
      speakers: speakers.length,
      phrases,
      overlapping,
      phrasesHeard: heard.filter(Boolean).length,
      attributedCorrectly: attributed / phrases,
      fragments: fragments.length,
      /** Fragments whose note names exactly the voices in them (boundary blocks of an overlap are the misses). */
      fragmentsExact: Math.round((fragmentsExact / Math.max(1, fragments.length)) * 1000) / 1000,
      modelToldEverySpeaker: names.every((n) => toldModel.has(n)),
      /** Share of phrases whose speaker the model had been told by name when their first block reached it. */
      modelAttributedCorrectly: Math.round((modelRight / phrases) * 1000) / 1000,
      modelSessions: gemini.connections.length,
      inputSecondsToModel: Math.round(inputSeconds * 10) / 10,
      speechSeconds: Math.round(phrases * PHRASE_S * 10) / 10,
      speechSecondsOverlapsOnce: Math.round(speechUnion * 10) / 10,
      misattributed,
    };
  } finally {
    await core.stop();
    await gemini.close();
    await discord.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** 200 interleaved turns through the bridge's SpeakerActivity and the registry's authority check. */
async function authority() {
  let now = 0;
  const activity = new SpeakerActivity(
    { ownerId: 'o', allowedSpeakers: ['o', 'g'], displayName: (id) => ({ o: 'Olga', g: 'Gus' })[id] },
    () => now,
  );
  let ran = 0;
  const registry = new ToolRegistry().register(
    defineTool({
      name: 'cancel_reminder',
      description: 'owner only',
      args: z.object({}),
      authority: 'owner',
      run: () => ++ran,
    }),
  );
  const patterns = ['alone', 'other-before', 'other-after', 'other-over', 'barge-in', 'late'] as const;
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  let cross = 0;
  let ownerRan = 0;
  let ownerAlone = 0;
  const say = (id: string, ms: number) => {
    activity.start(id);
    now += ms;
    activity.end(id);
  };
  for (let turn = 0; turn < TURNS; turn++) {
    const asker = turn % 2 === 0 ? 'g' : 'o';
    const other = asker === 'o' ? 'g' : 'o';
    const pattern = patterns[Math.floor(random() * patterns.length)]!;
    if (pattern === 'other-before') {
      say(other, 800);
      now += 300;
    }
    if (pattern === 'other-over') activity.start(other);
    say(asker, 1200);
    if (pattern === 'other-over') activity.end(other);
    if (pattern === 'other-after' || pattern === 'late') {
      // The other starts talking before the tool call arrives (its transcript may come even later).
      now += 400;
      activity.start(other);
      now += 600;
    }
    if (pattern === 'barge-in') {
      // The model starts answering the asker; the other talks over it and cuts it off.
      now += 500;
      activity.start(other);
      now += 600;
      activity.cutOff();
      activity.turnBoundary();
      activity.end(other);
    }
    const before = ran;
    await registry.invoke('cancel_reminder', {}, { caller: 'model', heard: activity.heardThisTurn() });
    if (pattern === 'other-after' || pattern === 'late') activity.end(other);
    const didRun = ran > before;
    if (didRun && asker !== 'o') cross++;
    if (asker === 'o' && pattern === 'alone') ownerAlone++;
    if (didRun && asker === 'o') ownerRan++;
    now += 1000;
    activity.turnBoundary();
    now += 2000;
  }
  return { turns: TURNS, crossSpeakerToolCalls: cross, ownerRequestsRun: ownerRan, ownerRequestsAlone: ownerAlone };
}

const auth = await authority();
const room = await attribution();
// The same phrases said by one person, one after another: what a one-speaker call sends the model.
const alone = await attribution(true);
const perSpeechSecond = (r: { inputSecondsToModel: number; speechSecondsOverlapsOnce: number }) =>
  r.inputSecondsToModel / Math.max(1, r.speechSecondsOverlapsOnce);
const result = {
  when: new Date().toISOString(),
  note: 'taken on a shared, loaded machine; attribution and counts do not depend on speed, timings do',
  speakers: room.speakers,
  phrases: room.phrases,
  attributedCorrectly: Math.round(room.attributedCorrectly * 1000) / 1000,
  crossSpeakerToolCalls: auth.crossSpeakerToolCalls,
  modelSessions: room.modelSessions,
  // One session hears the mixed room: the model is billed for the call's audio once, as for one
  // speaker (per-speaker sessions would bill each person's audio and each session's context).
  costVsOneSpeaker: Math.round((perSpeechSecond(room) / perSpeechSecond(alone)) * 100) / 100,
  detail: {
    attribution: room,
    oneSpeaker: {
      inputSecondsToModel: alone.inputSecondsToModel,
      speechSeconds: alone.speechSeconds,
      modelSessions: alone.modelSessions,
    },
    authority: auth,
  },
};
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/room.json', JSON.stringify(result, null, 2) + '\n');
console.log(JSON.stringify(result, null, 2));
process.exit(0);
