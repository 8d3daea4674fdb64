// The pipeline's stages at the call's two far ends (pipeline.ts): `model` (speech onto the model's
// socket), `model-audio` (the model's speech into the call) and `encode` (the voice port's player).
import { isDigitalSilence } from '../audio/index.ts';
import type { BridgeState } from '../api-types.ts';
import type { PlaybackSource, VoiceChannelPort } from '../ports.ts';
import type { CallMetrics } from './metrics.ts';
import type { ModelLink } from './model-link.ts';
import type { InFlight } from './park.ts';
import {
  lastStage,
  Outlet,
  stageOf,
  type EncoderSink,
  type ModelAudioSink,
  type SpeechSink,
  type Stage,
} from './pipeline.ts';
import type { SpeakerActivity } from './room.ts';

/** model (in): each chunk of speech goes to the call's model link; the utterance's end too. */
export class ModelInput {
  readonly #link: ModelLink;
  readonly #inFlight: InFlight;
  readonly #activity: SpeakerActivity;
  readonly #metrics: CallMetrics;
  readonly stage: Stage<SpeechSink, null>;

  constructor(link: ModelLink, inFlight: InFlight, activity: SpeakerActivity, metrics: CallMetrics) {
    this.#link = link;
    this.#inFlight = inFlight;
    this.#activity = activity;
    this.#metrics = metrics;
    this.stage = lastStage('model', {
      stage: 'model',
      caps: 'speech@16k',
      push: (chunk) => this.#send(chunk),
      end: () => this.#end(),
    });
  }

  #send(chunk: Int16Array): void {
    this.#inFlight.inputOpened();
    this.#link.sendAudio(chunk);
    // The voices a transcript fragment is of end where sound last went out: a held pause's paced
    // silence (issue #52) carries nobody's words, so it does not move that point.
    if (!isDigitalSilence(chunk)) this.#activity.audioSent();
    this.#metrics.bytesToModel += chunk.byteLength;
  }

  #end(): void {
    this.#inFlight.inputEnded();
    this.#link.endAudioInput();
  }
}

/** model-audio (out): the bound session's speech enters the call (model-binding.ts calls play()). */
export class ModelAudioStage {
  readonly #out = new Outlet<ModelAudioSink>('model-audio');
  readonly stage: Stage<null, ModelAudioSink> = stageOf('model-audio', null, this.#out);

  /** 24 kHz mono from the model; returns true when it starts a reply (playback was idle). */
  play(pcm24k: Int16Array): boolean {
    return this.#out.next.push(pcm24k);
  }
}

/**
 * encode (out): the voice port's player, which pulls 20 ms frames on its own clock and sends them
 * as Opus. The playback stage starts it for audio and stops it when it has none; the call's state
 * decides whether it may run (`call.state`: only inside a live call).
 */
export class EncoderStage {
  readonly #voice: VoiceChannelPort;
  readonly #call: { readonly state: BridgeState };
  /** The playback stage wants the player running (false after it went idle). */
  #wanted = false;
  readonly stage: Stage<EncoderSink, null>;

  constructor(voice: VoiceChannelPort, call: { readonly state: BridgeState }) {
    this.#voice = voice;
    this.#call = call;
    this.stage = lastStage('encode', {
      stage: 'encode',
      caps: 'pull@48k',
      start: (source) => this.#start(source),
      stop: () => this.#stop(),
    });
  }

  /** The call starts: the player runs from its first slot (the state is still `connecting`). */
  begin(source: PlaybackSource): void {
    this.#wanted = true;
    this.#voice.startPlayback(source);
  }

  #start(source: PlaybackSource): void {
    this.#wanted = true;
    const state = this.#call.state;
    if (state === 'connected' || state === 'reconnecting' || state === 'parked') this.#voice.startPlayback(source);
  }

  /** Called from inside the player's cycle: stop it after that cycle, not in the middle of it. */
  #stop(): void {
    this.#wanted = false;
    setImmediate(() => {
      const state = this.#call.state;
      if ((state === 'connected' || state === 'parked') && !this.#wanted) this.#voice.stopPlayback();
    });
  }
}
