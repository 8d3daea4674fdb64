// The latency bench's figures on the wire (Date.now() in the fakes process, 1 ms): what the fake
// Discord received from the bot, set against when the fake model sent a reply and when the owner
// started talking over it.
// - egress: the fake model sends a reply's first chunk → its first sounding RTP at the fake Discord.
// - barge-in, as a user lives it: the barging owner's first sounding packet leaves the fake Discord
//   client → the interrupted reply's last RTP the fake Discord receives (the reply's cut). The bridge
//   stops playback itself on the speaker's onset (main/core/bridge/barge-in.ts: a hold on a first
//   frame it cannot yet tell from echo, the cut on the next that is speech), before any service
//   signal, so this is the figure that means something.
// - service signal → cut: the service's own barge-in signal (Gemini: interrupted sent; Realtime:
//   speech_started sent; GPT-Live: the model yields) → the same last RTP; kept for comparison (the
//   local cut comes first, so it reads about 0).
import { percentiles, type Percentiles } from './latency-proc.ts';
import type { BenchReply } from './model-fakes.ts';

/** Decoded peak above which a 20 ms packet counts as sound (≈ -50 dBFS; Opus leaves tiny residue). */
export const SOUND_PEAK = 100;
/**
 * Decoded peak above which a packet carries audible speech (≈ -30 dBFS). After a barge-in fade the
 * Opus encoder's overlap puts the fade's last few ms into the next packet at about -44 to -55 dBFS:
 * over SOUND_PEAK, but residue of the fade, not speech of the interrupted reply. Both are reported.
 */
export const SPEECH_PEAK = 1000;
/** 20 ms at 48 kHz stereo. */
export const FRAME_VALUES = 1920;
/**
 * A reply is still playing at the owner's onset when its last speech packet before the onset came at
 * most this long before it (the player sends one every 20 ms; slack for a loaded machine). A reply
 * heard to its end falls silent hundreds of ms before the owner's next utterance: not a barge-in.
 */
export const PLAYING_GAP_MS = 100;

/** The first 20 ms frame of `pcm48kStereo` with a sample louder than SOUND_PEAK (-1: none). */
export function firstSoundingFrame(pcm48kStereo: Int16Array): number {
  for (let i = 0; i < pcm48kStereo.length; i++)
    if (Math.abs(pcm48kStereo[i]!) > SOUND_PEAK) return Math.floor(i / FRAME_VALUES);
  return -1;
}

/**
 * How long after the owner's onset the reply stopped: the last of `replyAt` (receive times of the
 * reply's packets above a threshold, in one reply's window) at or after `onsetAt`, minus `onsetAt`;
 * 0 when the reply was playing and stopped before any packet after the onset; null when the reply
 * was not playing at the onset (finished earlier, or not begun).
 */
export function cutAfterOnset(onsetAt: number, replyAt: readonly number[]): number | null {
  let lastBefore = -Infinity;
  let lastAfter = -Infinity;
  for (const at of replyAt) {
    if (at >= onsetAt) lastAfter = Math.max(lastAfter, at);
    else lastBefore = Math.max(lastBefore, at);
  }
  if (lastAfter > -Infinity) return lastAfter - onsetAt;
  return onsetAt - lastBefore <= PLAYING_GAP_MS ? 0 : null;
}

/** The first onset in [from, to) (onsets ascending), or null. */
export function onsetWithin(onsets: readonly number[], from: number, to: number): number | null {
  return onsets.find((at) => at >= from && at < to) ?? null;
}

export type WireReply = Pick<BenchReply, 'startedAt' | 'interruptedAt' | 'outcome' | 'firstAudioSentAt'>;

export interface WireFigures {
  egress: Percentiles;
  /** Owner's onset → the reply's last speech RTP (> SPEECH_PEAK): the user's barge-in. */
  bargeIn: Percentiles;
  /** The same to the last sounding RTP (> SOUND_PEAK), the fade's codec residue included. */
  bargeInInclResidue: Percentiles;
  /** The service's barge-in signal → the reply's last speech RTP (replies the service cut). */
  serviceSignalToCut: Percentiles;
  firstAudioAt: (number | null)[];
  note: string;
}

export type WireResult =
  | WireFigures
  | {
      egress: null;
      bargeIn: null;
      bargeInInclResidue: null;
      serviceSignalToCut: null;
      firstAudioAt: (number | null)[];
      note: string;
    };

interface ReceivedPacket {
  receivedAt: number;
}

/** The wire figures of a call: `packets`/`pcm` as the fake Discord's recorder holds them, `onsets` the owner's. */
export function wireLatencies(
  packets: readonly ReceivedPacket[],
  pcm: Int16Array,
  turns: readonly WireReply[],
  onsets: readonly number[],
): WireResult {
  if (pcm.length !== packets.length * FRAME_VALUES) {
    return {
      egress: null,
      bargeIn: null,
      bargeInInclResidue: null,
      serviceSignalToCut: null,
      firstAudioAt: [],
      note: `skipped: ${packets.length} packets decoded to ${pcm.length} values, not 20 ms each`,
    };
  }
  const peaks = packets.map((_, i) => {
    let peak = 0;
    for (let j = i * FRAME_VALUES; j < (i + 1) * FRAME_VALUES; j++) peak = Math.max(peak, Math.abs(pcm[j]!));
    return peak;
  });
  const egress: number[] = [];
  const bargeIn: number[] = [];
  const bargeInInclResidue: number[] = [];
  const serviceSignalToCut: number[] = [];
  const firstAudioAt: (number | null)[] = [];
  turns.forEach((turn, t) => {
    const windowEnd = turns[t + 1]?.startedAt ?? Infinity;
    const inWindow = (i: number) => packets[i]!.receivedAt >= turn.startedAt && packets[i]!.receivedAt < windowEnd;
    const soundAt: number[] = [];
    const speechAt: number[] = [];
    packets.forEach((p, i) => {
      if (!inWindow(i)) return;
      if (peaks[i]! > SOUND_PEAK) soundAt.push(p.receivedAt);
      if (peaks[i]! > SPEECH_PEAK) speechAt.push(p.receivedAt);
    });
    const first = soundAt.length ? Math.min(...soundAt) : null;
    firstAudioAt.push(first);
    const sentAt = turn.firstAudioSentAt();
    if (first !== null && sentAt !== null) egress.push(first - sentAt);
    const onset = first === null ? null : onsetWithin(onsets, first, windowEnd);
    const cut = onset === null ? null : cutAfterOnset(onset, speechAt);
    if (onset !== null && cut !== null) {
      bargeIn.push(cut);
      bargeInInclResidue.push(cutAfterOnset(onset, soundAt) ?? cut);
    }
    const signal = turn.interruptedAt;
    if (turn.outcome === 'interrupted' && signal !== null)
      serviceSignalToCut.push(Math.max(0, ...speechAt.filter((at) => at >= signal).map((at) => at - signal)));
  });
  return {
    egress: percentiles(egress),
    bargeIn: percentiles(bargeIn),
    bargeInInclResidue: percentiles(bargeInInclResidue),
    serviceSignalToCut: percentiles(serviceSignalToCut),
    firstAudioAt,
    note: "Date.now() (1 ms) in the fakes process; egress = the fake model sends a reply's first chunk (after the service's modelled first-audio delay) → its first sounding RTP; barge-in = the barging owner's first sounding packet sent by the fake Discord client → the interrupted reply's last speech RTP received; serviceSignalToCut counts from the service's own signal (Gemini: interrupted sent; Realtime: speech_started sent; GPT-Live: the model yields) instead; a packet is sound when its decoded peak > 100 (≈ -50 dBFS), speech when > 1000 (≈ -30 dBFS)",
  };
}
