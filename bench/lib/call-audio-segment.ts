// The part of a call's pipeline that CallAudio holds (mix → resample → gate, and playback → upsample), wired to
// plain callbacks instead of the wake gate, the model and the voice port: what the audio benchmarks
// and CallAudio's unit tests run. The bridge wires the whole call with pipeline.ts's wireCall.
import { CallAudio, type CallAudioOptions } from '../../main/core/bridge/call-audio.ts';
import { connectListed } from '../../main/core/bridge/pipeline.ts';

export interface CallAudioEnds {
  /** A fixed-size chunk of gated speech (a reused buffer: use it synchronously). */
  onSpeech: (chunk16k: Int16Array) => void;
  /** The voice gate closed. */
  onSpeechEnd: () => void;
  /** The playback stage has audio: the player must run (again). */
  onOutputResume?: () => void;
  /** Five silent frames and nothing queued: the player may stop. */
  onOutputIdle?: () => void;
}

/** Connects `audio`'s stages to `ends`; returns it. */
export function wireCallAudio(audio: CallAudio, ends: CallAudioEnds): CallAudio {
  connectListed(audio.mix, audio.resample.stage.input);
  connectListed(audio.resample.stage, audio.gate.stage.input);
  connectListed(audio.gate.stage, { stage: 'wake', caps: 'speech@16k', push: ends.onSpeech, end: ends.onSpeechEnd });
  connectListed(audio.playback, audio.upsample.stage.input);
  connectListed(audio.upsample.stage, {
    stage: 'encode',
    caps: 'pull@48k',
    start: () => ends.onOutputResume?.(),
    stop: () => ends.onOutputIdle?.(),
  });
  return audio;
}

/** A CallAudio wired to `options`' ends. */
export function wiredCallAudio(options: CallAudioOptions & CallAudioEnds): CallAudio {
  return wireCallAudio(new CallAudio(options), options);
}
