// `npm run bench:voice -- --churn N`: a DAVE v1 call in a room that keeps changing (issue #39). The
// owner and a guest talk continuously and the product plays speech continuously, while a visitor
// joins and leaves N times (every change re-keys the group; every 4th join is committed by another
// member's client, not the bot), every 10th change the guest's client re-keys silently (its frames
// stop decrypting, nothing said), and halfway the bot's voice socket drops while the group re-keys,
// so its resume is closed 4006 (stale epoch) and it joins afresh. Measured from outside the product:
// the longest stretch a talking speaker went undecoded at the product (maxDeafMs) and the longest
// stretch the fake listener could not play the product's audio (maxMuteMs).
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeDiscord, type FakeDiscord } from '../../main/fakes/discord/index.ts';
import { startBot, utterance } from './voice-call.ts';

/** Between membership changes: long enough for each re-key to settle, short enough for N = 50 in about a minute. */
const CHANGE_INTERVAL_MS = 1200;
/** Packets sent within this long of a gap's end were still on their way (loopback + decode): they end it. */
const IN_FLIGHT_MS = 100;
/** Shorter gaps are not counted as deaf windows: on a loaded machine the product's event loop stalls that long. */
const MIN_WINDOW_MS = 200;

export interface ChurnResult {
  membershipChanges: number;
  /** MLS commits over the call (every group the bot was in). */
  rekeys: number;
  silentRekeys: number;
  /** Longest stretch a talking speaker was not decoded at the product (gap between its decoded frames), ms. */
  maxDeafMs: number;
  /** Longest stretch the fake listener could not play the product's audio (gap between heard frames), ms. */
  maxMuteMs: number;
  framesSent: number;
  framesDecoded: number;
  /**
   * Speaker frames the product could not decrypt by construction: sealed with a key it did not hold
   * (a silent re-key, or before the group (re-)added it). These make the deaf windows; everything
   * else should be decoded.
   */
  framesInDeafWindows: number;
  /** Speaker packets sent inside the gaps in the product's decoded frames (wall-clock estimate, for comparison). */
  framesInDecodeGaps: number;
  decodedOutsideDeafWindowsPercent: number;
  /** Fresh voice joins after the first (any cause: stale-epoch 4006, the product's own rejoins). */
  rejoins: number;
  /** The product's own per-speaker recovery steps (/health dave.speakers). */
  recoverySteps: { resubscribe: number; rebuild: number; rejoin: number };
  botFramesPlainWhileE2ee: number;
  callSeconds: number;
}

async function talk(
  fake: FakeDiscord,
  userId: string,
  until: { done: boolean },
  seed: number,
  sentAt: number[],
): Promise<void> {
  const onSent = (at: number) => void sentAt.push(at);
  for (let n = 0; !until.done; n++) {
    try {
      await fake.speak(userId, utterance(seed + n), { seed: seed + n, silenceTail: n % 4 === 0, onSent });
    } catch {
      await sleep(50); // the bot is between voice sessions (a fresh join)
    }
  }
}

export async function runChurn(changes: number): Promise<ChurnResult> {
  const fake = await startFakeDiscord({ trustCertificates: false, extraUsers: ['guest', 'visitor'] });
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
    fake.recorder.clear();
    const plainBefore = fake.recorder.listener.plainWhileGroupReady;
    const start = performance.now();
    const until = { done: false };
    let silentRekeys = 0;
    const script = (async () => {
      await sleep(1500);
      for (let i = 0; i < changes; i++) {
        const joining = i % 2 === 0;
        fake.voice.faults.dave.memberCommitsJoins = joining && i % 8 === 6;
        if (i === Math.floor(changes / 2)) fake.closeVoice(4015); // the re-key below goes out while the bot is away
        if (joining) fake.userJoinVoice(visitor.id);
        else fake.userLeaveVoice(visitor.id);
        const group = fake.dave();
        if (i % 10 === 5 && group) {
          fake.voice.faults.room.silentRekey(guest.id, group);
          silentRekeys += 1;
        }
        await sleep(CHANGE_INTERVAL_MS);
      }
      await sleep(2000);
      until.done = true;
    })();
    const sentAt = new Map([fake.owner.id, guest.id].map((id) => [id, [] as number[]]));
    await Promise.all([
      talk(fake, fake.owner.id, until, 100, sentAt.get(fake.owner.id)!),
      talk(fake, guest.id, until, 500, sentAt.get(guest.id)!),
      script,
    ]);
    await sleep(1000);
    const callSeconds = (performance.now() - start) / 1000;
    child.send({ type: 'report' });
    const report = await next('report');
    if (report.type !== 'report') throw new Error('the product did not report');
    const framesSent = fake.speakerTotals.framesSent;
    const framesDecoded = (report.framesDecoded[fake.owner.id] ?? 0) + (report.framesDecoded[guest.id] ?? 0);
    const deaf = deafWindows(sentAt, report.gaps ?? {});
    const steps = { resubscribe: 0, rebuild: 0, rejoin: 0 };
    for (const s of report.dave?.speakers ?? [])
      for (const k of Object.keys(steps) as (keyof typeof steps)[]) steps[k] += s.recoveries[k];
    return {
      membershipChanges: changes,
      rekeys: fake.voice.sessions.reduce((sum, s) => sum + (s.dave?.counters.commits ?? 0), 0),
      silentRekeys,
      maxDeafMs: deaf.maxMs,
      maxMuteMs: maxMuteMs(fake),
      framesSent,
      framesDecoded,
      framesInDeafWindows: fake.speakerTotals.foreignE2eeFrames,
      framesInDecodeGaps: deaf.packets,
      // Exact: the frames outside the windows are the ones the product held the keys for.
      decodedOutsideDeafWindowsPercent:
        Math.round((100_000 * framesDecoded) / Math.max(1, framesSent - fake.speakerTotals.foreignE2eeFrames)) / 1000,
      rejoins: Math.max(0, fake.voice.identifies.length - 1),
      recoverySteps: steps,
      botFramesPlainWhileE2ee: fake.recorder.listener.plainWhileGroupReady - plainBefore,
      callSeconds: Math.round(callSeconds),
    };
  } finally {
    child.send({ type: 'stop' });
    await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5000)]);
    child.kill();
    await fake.close();
  }
}

/**
 * Deaf windows: a gap in the product's decoded frames of a speaker during which that speaker sent
 * packets (sent after the last decoded frame, and not in the last IN_FLIGHT_MS before the next one,
 * which were still on their way). Its length runs from the first such packet to the next decoded
 * frame; idle time between utterances is not deafness.
 */
function deafWindows(
  sentAt: Map<string, number[]>,
  gaps: Record<string, [number, number][]>,
): { maxMs: number; packets: number } {
  let maxMs = 0;
  let packets = 0;
  for (const [userId, sent] of sentAt) {
    for (const [from, to] of gaps[userId] ?? []) {
      if (to - from < MIN_WINDOW_MS) continue;
      const inside = sent.filter((t) => t > from && t < to - IN_FLIGHT_MS);
      if (inside.length < 3) continue;
      packets += inside.length;
      maxMs = Math.max(maxMs, to - inside[0]!);
    }
  }
  return { maxMs, packets };
}

/** The product plays speech the whole call: the longest gap between frames the listener could play. */
function maxMuteMs(fake: FakeDiscord): number {
  let last: number | null = null;
  let max = 0;
  for (const p of fake.recorder.packets) {
    if (p.silence || !p.heard) continue;
    if (last !== null) max = Math.max(max, p.receivedAt - last - 20);
    last = p.receivedAt;
  }
  return max;
}
