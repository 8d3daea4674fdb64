// What the model's `recall` tool adds to its turn (issue #54: "`recall` adds ≤ 300 ms to the model's
// turn" at the scale of a year of daily use, 500 calls × 1 h ≈ 1.5 M transcript lines).
//
// The home is filled as bench:store fills it (bench/lib/store-database.ts), then a real core starts on
// it with the fake Discord and the fake Gemini, joins a call, the owner speaks (so the tool runs with
// the owner's rights), and the fake model asks `recall` over and over: each figure is the time from
// the fake sending its `toolCall` to it receiving the core's `functionResponse` (loopback WebSocket,
// the core's tool dispatch, the FTS5 query, the answer's JSON), i.e. what the bridge adds to the
// turn; the service's own time to continue after a tool answer is not in it (no fake can say it).
// The same queries are also timed on the bare search (searchNotes on a read-only connection of the
// same file) to show how much of it is the database. Measured after the core's start-up backup of the
// file (a whole-file check and copy in a worker) has finished, which is how a call meets the store;
// `duringBackup` holds the rounds taken while it ran, when there are any.
//
// Env: BENCH_RECALL_CALLS (default 500), BENCH_RECALL_ROUNDS (default 20 rounds of every query).
// Writes bench/results/recall.json. About 2 minutes here (the fill is most of it).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { loadConfig } from '../main/core/config/index.ts';
import { startCore } from '../main/core/core.ts';
import { silentLogger } from '../main/core/log/logger.ts';
import { RECALL_LIMIT } from '../main/core/memory/recall-tool.ts';
import { searchNotes } from '../main/core/notes/notes-search.ts';
import { startFakeDiscord } from '../main/fakes/discord/index.ts';
import { startFakeGemini, type FakeGeminiConnection } from '../main/fakes/gemini/index.ts';
import { percentiles, round, type Percentiles } from './lib/latency-proc.ts';
import { callLines, fillDatabase } from './lib/store-database.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RESULTS = path.join(HERE, 'results', 'recall.json');
const CALLS = Number(process.env.BENCH_RECALL_CALLS ?? 500);
const ROUNDS = Number(process.env.BENCH_RECALL_ROUNDS ?? 20);
const LINES_PER_CALL = 3000; // an hour, a line every 1.2 s (as bench:store)
const TARGET_MS = 300; // issue #54: "recall adds ≤ 300 ms to the model's turn"

// What a model asks: a word said once in one call, that word with two words of its line, eight
// words of one line (millions of lines hold some of them: newest first stops at the limit), a word
// nobody said, and a `since` that leaves only the last week (the newest-first scan walks back to it).
const START_TS = Date.now() / 1000 - CALLS * 86_400;
function lineOf(c: number, e: number): string[] {
  let i = 0;
  for (const l of callLines(c, LINES_PER_CALL, START_TS)) if (i++ === e) return l.text.split(' ');
  throw new Error(`no line ${e} in call ${c}`);
}
const rareCall = Math.floor(CALLS / 2);
const rareLine = lineOf(rareCall, LINES_PER_CALL / 2);
const QUERIES: Array<{ name: string; args: { query: string; since?: number } }> = [
  { name: 'rare word', args: { query: `zanzibar${Math.floor(CALLS / 3)}` } },
  { name: 'rare + two words of its line', args: { query: `${rareLine[0]} zanzibar${rareCall} ${rareLine[3]}` } },
  { name: 'two common words', args: { query: 'installer thursday' } },
  {
    name: 'eight words of one line',
    args: {
      query: lineOf(CALLS - 1, 10)
        .slice(0, 8)
        .join(' '),
    },
  },
  { name: 'no match', args: { query: 'quokka' } },
  { name: 'common word, last week', args: { query: 'rollback', since: Math.floor(Date.now() / 1000) - 7 * 86_400 } },
];

function toneStereo48k(seconds: number, hz: number): Int16Array {
  const n = Math.round(seconds * 48_000);
  const out = new Int16Array(n * 2);
  for (let i = 0; i < n; i++) {
    const env = Math.min(1, i / 480, (n - 1 - i) / 480);
    out[2 * i] = out[2 * i + 1] = Math.round(9000 * env * Math.sin((2 * Math.PI * hz * i) / 48_000));
  }
  return out;
}

async function until(ok: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Round {
  query: string;
  ms: number;
  hits: number;
}

async function askAll(model: FakeGeminiConnection): Promise<Round[]> {
  const out: Round[] = [];
  for (const q of QUERIES) {
    const t0 = performance.now();
    const [answer] = await model.toolCall([{ name: 'recall', args: q.args }]);
    const ms = performance.now() - t0;
    const response = answer!.response as { result?: { hits: unknown[] }; error?: { code: string } };
    if (!response.result) throw new Error(`recall refused: ${JSON.stringify(response.error)}`);
    out.push({ query: q.name, ms, hits: response.result.hits.length });
  }
  return out;
}

function figures(rounds: readonly Round[]) {
  const byQuery = Object.fromEntries(
    QUERIES.map((q) => {
      const mine = rounds.filter((r) => r.query === q.name);
      return [q.name, { hits: mine[0]?.hits ?? 0, ...rounded(percentiles(mine.map((r) => r.ms))) }];
    }),
  );
  return { all: rounded(percentiles(rounds.map((r) => r.ms))), byQuery };
}

function rounded(p: Percentiles) {
  return { count: p.count, p50_ms: round(p.p50_ms), p95_ms: round(p.p95_ms), max_ms: round(p.max_ms) };
}

/** The same queries on the bare search, on a read-only connection of the same file. */
function bareSearch(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const ms: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const q of QUERIES) {
        const t0 = performance.now();
        searchNotes(db, q.args.query, {
          limit: RECALL_LIMIT * 2,
          callsOnly: true,
          ...(q.args.since !== undefined ? { since: q.args.since } : {}),
        });
        ms.push(performance.now() - t0);
      }
    }
    return rounded(percentiles(ms));
  } finally {
    db.close();
  }
}

const home = mkdtempSync(path.join(tmpdir(), 'lvb-bench-recall-'));
const voiceUsers = path.join(home, 'voice-users');
const file = path.join(voiceUsers, 'live-voice-bridge.sqlite');
const discord = await startFakeDiscord();
const gemini = await startFakeGemini({ bargeInRms: null, autoReply: false });
try {
  console.log(`recall: filling ${CALLS} calls of an hour (${(CALLS * LINES_PER_CALL).toLocaleString('en')} lines)…`);
  const { transcriptLines, fillMs } = fillDatabase(voiceUsers, CALLS, LINES_PER_CALL, START_TS);
  const config = loadConfig({
    env: {
      HERMES_HOME: home,
      DISCORD_BOT_TOKEN: discord.botToken,
      DISCORD_VOICE_LIVE_USER_ID: discord.owner.id,
      DISCORD_API_BASE_URL: discord.apiBaseUrl,
      GEMINI_API_KEY: `fake-gemini-key-${process.pid}`,
      GEMINI_LIVE_BASE_URL: gemini.url,
      // A year of calls is kept whole (the default 90 days would delete most of it at start).
      DISCORD_VOICE_LIVE_NOTES_RETENTION_DAYS: '36500',
      DISCORD_VOICE_LIVE_NOTES_MAX_MB: '1000000',
    },
  });
  config.sidecar.port = 0;
  const core = await startCore({ config, logger: silentLogger() });
  try {
    const auth = { authorization: `Bearer ${core.token}` };
    const joined = await fetch(`${core.sidecarUrl}/join`, { method: 'POST', headers: auth });
    if (joined.status !== 200) throw new Error(`join: ${joined.status} ${await joined.text()}`);
    const model = await gemini.connection(0);
    // The owner asks: tool calls of this turn run with the owner's rights.
    const before = model.inputSamples;
    const talking = discord.speak(discord.owner.id, toneStereo48k(2, 440));
    await until(() => model.inputSamples > before + 16_000 * 0.4, 10_000, 'the owner heard by the model');
    await talking;
    const duringBackup: Round[] = [];
    while (!existsSync(`${file}.bak`)) {
      duringBackup.push(...(await askAll(model)));
      // Enough to see it; then wait for the backup without loading the machine further.
      if (duringBackup.length >= QUERIES.length * 100) break;
    }
    await until(() => existsSync(`${file}.bak`), 120_000, 'the start-up backup');
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(...(await askAll(model)));
    const measured = figures(rounds);
    const bare = bareSearch(file);
    const result = {
      recall: {
        targetMs: TARGET_MS,
        transcriptLines,
        calls: CALLS,
        fillSeconds: round(fillMs / 1000),
        toolRoundTrip: measured.all,
        byQuery: measured.byQuery,
        bareSearch: bare,
        duringBackup: duringBackup.length ? figures(duringBackup).all : null,
        loadAverage: loadavg().map((l) => round(l)),
        at: new Date().toISOString(),
      },
      definitions: {
        toolRoundTrip: `fake Gemini toolCall(recall) → the core's functionResponse, ms, over ${ROUNDS} rounds of ${QUERIES.length} queries, after the start-up backup; p50 is the typical turn, max the worst`,
        bareSearch:
          'searchNotes alone (what recall runs) on a read-only connection of the same file, same queries and rounds',
        duringBackup: 'the same round trip while the core’s start-up check and backup of the file ran in its worker',
      },
    };
    writeFileSync(RESULTS, JSON.stringify(result, null, 2) + '\n');
    const worst = Object.entries(measured.byQuery).sort((a, b) => (b[1].max_ms ?? 0) - (a[1].max_ms ?? 0))[0]!;
    console.log(
      JSON.stringify({
        targetMs: TARGET_MS,
        typicalMs: measured.all.p50_ms,
        p95Ms: measured.all.p95_ms,
        worstMs: measured.all.max_ms,
        worstQuery: worst[0],
        bareSearchP95Ms: bare.p95_ms,
        duringBackupMaxMs: result.recall.duringBackup?.max_ms ?? null,
        transcriptLines,
      }),
    );
  } finally {
    await core.stop();
  }
} finally {
  await gemini.close();
  await discord.close();
  rmSync(home, { recursive: true, force: true });
}
