// The turn as a user lives it, in the latency bench's call (issue #44): the owner's end of speech
// (the fake Discord client sends the utterance's last sounding packet) → the service's end of turn
// (the fake service sees audioStreamEnd, or its VAD ends the turn) → the reply's first sounding RTP
// at the fake Discord. All three timestamps are Date.now() in the fakes process. The service's
// published first-audio delay (SERVICE_TIMING) is modelled and printed beside the figures, so the
// bridge's share stays visible; the pause corpus gives the gate's false cut-offs beside them.
// The driver answers every turn at once: each fake holds the reply's first audio for that delay,
// counted from its own end of turn (main/fakes/shared/fake-connection.ts), so it is applied once.
import { SERVICE_TIMING } from '../../main/fakes/shared/service-timing.ts';
import { percentiles, type Percentiles } from './latency-proc.ts';
import type { BenchProvider } from './model-fakes.ts';
import { firstSoundingFrame } from './latency-wire.ts';

export const modelledFirstAudioMs = (provider: BenchProvider): number =>
  SERVICE_TIMING[provider].firstAudioAfterTurnEndMs;

/** One user turn as the bench saw it. */
export interface TurnTiming {
  /** The utterance's last sounding packet left the fake Discord client. */
  endOfSpeechAt: number;
  /** The fake service ended the turn. */
  streamEndAt: number;
  /** The trailing quiet the service's detector counted before it ended the turn (ms of audio received). */
  serviceQuietMs: number;
}

/** The owner's side of the turn clock: utterances start and end, the service ends turns. */
export class TurnClock {
  readonly timings: TurnTiming[] = [];
  /** When each utterance's first sounding packet left the fake Discord client (its onset: where a barge-in starts). */
  readonly onsets: number[] = [];
  /** Turns the service ended while the owner was still talking (cut mid-utterance). */
  cutMidUtterance = 0;
  #speaking = false;
  #endOfSpeechAt = 0;

  /** Options for FakeDiscord.speak: marks the end of speech at the last sounding packet of `pcm48kStereo`. */
  utterance(pcm48kStereo: Int16Array): { onSent: (at: number) => void } {
    const speechPackets = Math.ceil(pcm48kStereo.length / 1920);
    const onsetPacket = firstSoundingFrame(pcm48kStereo);
    let sent = 0;
    this.#speaking = true;
    return {
      onSent: (at) => {
        if (sent === onsetPacket) this.onsets.push(at);
        if (++sent !== speechPackets) return;
        this.#speaking = false;
        this.#endOfSpeechAt = at;
      },
    };
  }

  /** The service ended a turn now, after counting `serviceQuietMs` of quiet; null when it cut the owner mid-utterance. */
  turnEnded(at: number, serviceQuietMs: number): TurnTiming | null {
    if (this.#speaking || this.#endOfSpeechAt === 0) {
      this.cutMidUtterance++;
      return null;
    }
    const timing = { endOfSpeechAt: this.#endOfSpeechAt, streamEndAt: at, serviceQuietMs };
    this.timings.push(timing);
    return timing;
  }
}

export interface TurnLatencies {
  endOfSpeechToStreamEnd: Percentiles;
  /**
   * What the bridge adds to the service's own window (issue #52): end of speech → the service's end
   * of turn, less the quiet its detector counted (serviceQuietMs). The rest is the time the audio
   * the detector needed took to reach it: the input chunk filling, the paced silence, the sockets.
   */
  bridgeTurnShare: Percentiles;
  /** The quiet the service's detector counted before each end (its own window, as received). */
  serviceQuiet: Percentiles;
  endOfSpeechToFirstAudio: Percentiles;
  /** The service's share (modelled) plus the bridge's egress. */
  streamEndToFirstAudio: Percentiles;
  cutMidUtterance: number;
  modelledFirstAudioMs: number;
}

/** End of speech → the service's end of turn, less the service's own counted window. */
export const bridgeShareMs = (t: TurnTiming): number => t.streamEndAt - t.endOfSpeechAt - t.serviceQuietMs;

/** `replies[i]` answers `timings[i]` (null: not answered); `firstAudioAt[i]` its first sounding RTP. */
export function turnLatencies(
  provider: BenchProvider,
  clock: TurnClock,
  replies: readonly (TurnTiming | null)[],
  firstAudioAt: readonly (number | null)[],
): TurnLatencies {
  const toFirstAudio: number[] = [];
  const streamToFirstAudio: number[] = [];
  replies.forEach((timing, i) => {
    const first = firstAudioAt[i];
    if (!timing || first === null || first === undefined) return;
    toFirstAudio.push(first - timing.endOfSpeechAt);
    streamToFirstAudio.push(first - timing.streamEndAt);
  });
  return {
    endOfSpeechToStreamEnd: percentiles(clock.timings.map((t) => t.streamEndAt - t.endOfSpeechAt)),
    bridgeTurnShare: percentiles(clock.timings.map(bridgeShareMs)),
    serviceQuiet: percentiles(clock.timings.map((t) => t.serviceQuietMs)),
    endOfSpeechToFirstAudio: percentiles(toFirstAudio),
    streamEndToFirstAudio: percentiles(streamToFirstAudio),
    cutMidUtterance: clock.cutMidUtterance,
    modelledFirstAudioMs: modelledFirstAudioMs(provider),
  };
}
