// The audio pipeline: every stage is mono at its own rate (48 kHz for Discord's side, 16 kHz into the
// model, 24 kHz out of it); stereo exists only on the wire. See docs/audio.md for the design and the benchmark.
export {
  Downsampler48kTo16k,
  DOWNSAMPLER_TAPS,
  DOWNSAMPLER_PASSBAND_HZ,
  DOWNSAMPLER_STOPBAND_HZ,
  designDownsamplerTaps,
} from './downsampler.ts';
export { Resampler16kTo24kMono } from './resampler-16k-to-24k.ts';
export {
  Upsampler24kTo48k,
  PolyphaseInterpolator2x,
  UPSAMPLER_TAPS,
  UPSAMPLER_PASSBAND_HZ,
  UPSAMPLER_STOPBAND_HZ,
  designUpsamplerTaps,
} from './upsampler.ts';
export { SpeakerMixer, type SpeakerMixerOptions, type SpeakerMixerStats } from './speaker-mixer.ts';
export { VoiceGate, DEFAULT_HANGOVER_MS, type VoiceGateOptions, type VoiceGateStats } from './voice-gate.ts';
export { isBurst } from './burst.ts';
export { Periodicity } from './periodicity.ts';
export { DEFAULT_SPEECH_THRESHOLD, type VoiceActivityClassifier, type ClassifierLoad } from './voice-classifier.ts';
export { loadSileroClassifier } from './silero-classifier.ts';
export { VoiceCheck } from './voice-check.ts';
export { END_OF_TURN, type EndOfTurnChoice, type EndOfTurnProvider } from './end-of-turn.ts';
export {
  PlaybackBuffer,
  type PlaybackBufferOptions,
  type PlaybackStats,
  type PlaybackTurnState,
  type ReplyFrameShape,
  type ReplyFrameSource,
} from './playback-buffer.ts';
export { PlaybackUpsampler, type EffectStats } from './playback-upsampler.ts';
export { LevelMeter, SILENCE_DBFS, type LevelReading } from './level-meter.ts';
export { generateNotificationChime } from './sound-effects.ts';
export { softLimit, toInt16, isDigitalSilence, LIMITER_KNEE } from './pcm.ts';
export { designLowPass, kaiserBeta, firMagnitude, type LowPassSpec } from './fir-design.ts';
export {
  UnheardSpeech,
  untilJudged,
  untilSessionUp,
  untilSocketUp,
  untilAcknowledged,
  untilAnswered,
  HELD_PAUSE_SAMPLES,
  type UnheardPolicy,
  type UnheardReason,
  type UnheardSend,
  type UnheardEnd,
} from './unheard-speech.ts';
