// npm run bench:voice — a 2-minute call with two DAVE speakers, measured at DAVE v1 (E2EE, Discord's
// only mode since 2026-03-01) and, as the reference, the same call at DAVE v0 (no E2EE). The fake
// Discord (voice server, MLS group, speakers, listener) runs in this process; the product (the
// bridge's Discord voice adapter on real discord.js + @discordjs/voice) runs in a child process
// (bench/lib/voice-bot.ts) whose CPU and RSS are read from /proc. Mid-call a third user joins and
// later leaves (two epoch changes at v1). Writes bench/results/voice.json and prints both runs side
// by side with the targets. `-- --churn N`: only the room-churn run (bench/lib/voice-churn.ts), written
// as the `churn` row of the same file. Benchmarks report; nothing here fails on a number.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { startFakeDiscord } from '../main/fakes/discord/index.ts';
import { cpuPercent, readProc, round, type ProcSample } from './lib/latency-proc.ts';
import { speakFor, startBot } from './lib/voice-call.ts';
import { runChurn } from './lib/voice-churn.ts';

/** 120 s; LVB_BENCH_VOICE_S shortens it for a quick try (committed results are always 120 s). */
const CALL_S = Math.max(20, Number(process.env.LVB_BENCH_VOICE_S) || 120);
const RESULTS = fileURLToPath(new URL('./results/voice.json', import.meta.url));
const TARGETS = { speakerFramesDecodedPercent: 99.9, botFramesDecryptedPercent: 100 } as const;

interface RunResult {
  daveProtocolVersion: number;
  callSeconds: number;
  /** RTP packets the two fake speakers sent (audio frames + unencrypted silence frames). */
  framesSent: number;
  /** 20 ms PCM frames the product delivered for those two speakers. */
  framesDecoded: number;
  speakerFramesDecodedPercent: number;
  /** Speaker packets sent with the RTP P bit and padding bytes. */
  paddedFrames: number;
  /** Speaker frames sent unencrypted: the Opus silence frame (and, at v0, everything). */
  passthroughFrames: number;
  /** Speaker frames sent DAVE-encrypted. */
  e2eeFrames: number;
  /** DAVE transitions the product executed (initial group, join, leave). */
  transitions: number;
  decryptFailures: number;
  recoveries: number;
  rejoins: number;
  /** Non-silence frames the product sent. */
  botFramesSent: number;
  /** Of those, frames the fake listener (an MLS member) decrypted; at v0 the plain frames it heard. */
  botFramesDecryptedByListener: number;
  botFramesDecryptedPercent: number;
  /** Non-silence product frames that left unencrypted while the group was ready (must be 0). */
  botFramesPlainWhileE2ee: number;
  product: {
    cpuPercentTypical: number | null;
    cpuPercentWorst10s: number | null;
    rssMbEnd: number | null;
    rssMbPeak: number | null;
  };
}

async function run(daveProtocolVersion: 0 | 1): Promise<RunResult> {
  const fake = await startFakeDiscord({
    daveProtocolVersion,
    trustCertificates: false,
    extraUsers: ['guest', 'visitor'],
  });
  const guest = fake.user('guest');
  const visitor = fake.user('visitor');
  fake.userJoinVoice(guest.id);
  const { child, next } = startBot({
    NODE_EXTRA_CA_CERTS: fake.caPath,
    LVB_VOICE_TOKEN: fake.botToken,
    LVB_VOICE_API: fake.apiBaseUrl,
    LVB_VOICE_OWNER: fake.owner.id,
    LVB_VOICE_SPEAKERS: `${fake.owner.id},${guest.id}`,
  });
  try {
    const joined = await next('joined');
    if (joined.type === 'failed') throw new Error(`the product could not join: ${joined.reason}`);
    const pid = child.pid ?? 0;
    const samples: ProcSample[] = [];
    const sampler = setInterval(() => {
      const s = readProc(pid);
      if (s) samples.push(s);
    }, 1000);
    const listenerBefore = { ...fake.recorder.listener };
    const start = performance.now();
    const end = start + CALL_S * 1000;
    const script = (async () => {
      await sleep(CALL_S * 1000 * 0.35);
      fake.userJoinVoice(visitor.id);
      await sleep(CALL_S * 1000 * 0.3);
      fake.userLeaveVoice(visitor.id);
    })();
    await Promise.all([speakFor(fake, fake.owner.id, end, 100), speakFor(fake, guest.id, end, 500), script]);
    await sleep(1000); // the last packets in flight
    clearInterval(sampler);
    child.send({ type: 'report' });
    const report = await next('report');
    if (report.type !== 'report') throw new Error('the product did not report');
    const totals = fake.speakerTotals;
    const framesDecoded = (report.framesDecoded[fake.owner.id] ?? 0) + (report.framesDecoded[guest.id] ?? 0);
    const listener = fake.recorder.listener;
    const botFramesSent = listener.framesSent - listenerBefore.framesSent;
    const heard =
      daveProtocolVersion === 1 ? listener.decrypted - listenerBefore.decrypted : listener.plain - listenerBefore.plain;
    const cpu = samples.slice(1).map((s, i) => cpuPercent(samples[i]!, s));
    const windows: number[] = [];
    for (let i = 10; i < samples.length; i++) windows.push(cpuPercent(samples[i - 10]!, samples[i]!));
    const sorted = [...cpu].sort((a, b) => a - b);
    return {
      daveProtocolVersion,
      callSeconds: CALL_S,
      framesSent: totals.framesSent,
      framesDecoded,
      speakerFramesDecodedPercent: round((100 * framesDecoded) / totals.framesSent, 3) ?? 0,
      paddedFrames: totals.paddedFrames,
      passthroughFrames: totals.passthroughFrames,
      e2eeFrames: totals.e2eeFrames,
      transitions: report.dave?.transitions ?? 0,
      decryptFailures: report.dave?.decrypt_failures ?? 0,
      recoveries: report.dave?.recoveries ?? 0,
      rejoins: report.dave?.rejoins ?? 0,
      botFramesSent,
      botFramesDecryptedByListener: heard,
      botFramesDecryptedPercent: round((100 * heard) / Math.max(1, botFramesSent), 3) ?? 0,
      botFramesPlainWhileE2ee: listener.plainWhileGroupReady - listenerBefore.plainWhileGroupReady,
      product: {
        cpuPercentTypical: round(sorted[Math.floor(sorted.length / 2)] ?? null, 1),
        cpuPercentWorst10s: round(windows.length ? Math.max(...windows) : null, 1),
        rssMbEnd: round(samples.at(-1)?.rssMb ?? null, 1),
        rssMbPeak: round(samples.at(-1)?.peakRssMb ?? null, 1),
      },
    };
  } finally {
    child.send({ type: 'stop' });
    await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5000)]);
    child.kill();
    await fake.close();
  }
}

function print(v1: RunResult, v0: RunResult): void {
  const rows: [string, (r: RunResult) => string, string][] = [
    ['DAVE protocol version', (r) => String(r.daveProtocolVersion), ''],
    ['speaker frames sent', (r) => String(r.framesSent), ''],
    [
      'speaker frames decoded',
      (r) => `${r.framesDecoded} (${r.speakerFramesDecodedPercent} %)`,
      `≥ ${TARGETS.speakerFramesDecodedPercent} %`,
    ],
    ['  E2EE / passthrough / padded', (r) => `${r.e2eeFrames} / ${r.passthroughFrames} / ${r.paddedFrames}`, ''],
    ['bot frames sent (non-silence)', (r) => String(r.botFramesSent), ''],
    [
      'bot frames the listener could play',
      (r) => `${r.botFramesDecryptedByListener} (${r.botFramesDecryptedPercent} %)`,
      `${TARGETS.botFramesDecryptedPercent} % at v1`,
    ],
    ['bot frames plain while E2EE', (r) => String(r.botFramesPlainWhileE2ee), '0'],
    ['transitions / decrypt failures', (r) => `${r.transitions} / ${r.decryptFailures}`, ''],
    ['recoveries / rejoins', (r) => `${r.recoveries} / ${r.rejoins}`, 'rejoins ≤ 3/min'],
    [
      'product CPU typical / worst 10 s',
      (r) => `${r.product.cpuPercentTypical} / ${r.product.cpuPercentWorst10s} % of a core`,
      '',
    ],
    ['product RSS end / peak', (r) => `${r.product.rssMbEnd} / ${r.product.rssMbPeak} MB`, ''],
  ];
  const w = [36, 30, 30];
  console.log(`\nbench:voice — ${v1.callSeconds} s call, two DAVE speakers, a third user joins and leaves mid-call`);
  console.log(`${'metric'.padEnd(w[0]!)}${'DAVE v1 (E2EE)'.padEnd(w[1]!)}${'DAVE v0 (reference)'.padEnd(w[2]!)}target`);
  for (const [name, get, target] of rows)
    console.log(`${name.padEnd(w[0]!)}${get(v1).padEnd(w[1]!)}${get(v0).padEnd(w[2]!)}${target}`);
}

/** `--churn N`: only the room-churn run, written as the `churn` row beside the last full run's figures. */
const churnArg = process.argv.indexOf('--churn');
const CHURN_TARGETS = { maxDeafMs: 2000, maxMuteMs: 2000, decodedOutsideDeafWindowsPercent: 99.9, rejoins: 3 } as const;
const previous = existsSync(RESULTS)
  ? z.record(z.string(), z.unknown()).parse(JSON.parse(readFileSync(RESULTS, 'utf8')))
  : {};
mkdirSync(path.dirname(RESULTS), { recursive: true });
if (churnArg >= 0) {
  const changes = Math.max(2, Number(process.argv[churnArg + 1]) || 50);
  const churn = await runChurn(changes);
  console.log(`\nbench:voice --churn ${changes}: targets ${JSON.stringify(CHURN_TARGETS)}`);
  console.log(JSON.stringify(churn, null, 2));
  const row = { ...churn, targets: CHURN_TARGETS, measuredAt: new Date().toISOString() };
  writeFileSync(RESULTS, `${JSON.stringify({ ...previous, churn: row }, null, 2)}\n`);
  console.log(`\nwrote the churn row to ${path.relative(process.cwd(), RESULTS)}`);
  process.exit(0);
}
const v1 = await run(1);
const v0 = await run(0);
print(v1, v0);
const definitions = {
  framesSent: 'RTP packets the two fake speakers sent (speech frames + the unencrypted Opus silence frames)',
  framesDecoded: '20 ms PCM frames the product delivered for the two speakers',
  paddedFrames: 'speaker packets with the RTP P bit and 1-32 padding bytes (15 %)',
  passthroughFrames: 'speaker frames sent unencrypted (silence frames; at v0 every frame)',
  transitions: 'DAVE transitions the product executed',
  decryptFailures: 'speaker packets the product could not E2EE-decrypt',
  recoveries: 'DAVE recoveries completed (re-key, rebuild or rejoin)',
  rejoins: 'voice rejoins caused by DAVE',
  botFramesSent: 'non-silence frames the product sent',
  botFramesDecryptedByListener: 'of those, frames a fake MLS member decrypted (v1) or heard plain (v0)',
};
// A churn row from an earlier `--churn` run is kept.
const keptChurn = previous.churn === undefined ? {} : { churn: previous.churn };
writeFileSync(
  RESULTS,
  `${JSON.stringify({ ...v1, reference: { daveV0: v0 }, targets: TARGETS, definitions, measuredAt: new Date().toISOString(), ...keptChurn }, null, 2)}\n`,
);
console.log(`\nwrote ${path.relative(process.cwd(), RESULTS)}`);
process.exit(0);
