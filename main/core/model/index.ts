export { createGeminiProvider, createKeyScrubber, type GeminiProviderOptions } from './gemini/provider.ts';
export { GeminiLiveSession, INPUT_AUDIO_MIME, type GeminiSessionStats } from './gemini/session.ts';
export { DEFAULT_BACKOFF, type BackoffOptions } from './session-core/fallback.ts';
export { decodePcm } from './wire/pcm-codec.ts';
export {
  attachToolDispatcher,
  toToolCallResult,
  type ToolDispatcher,
  type ToolDispatcherOptions,
  type ToolCallSettled,
} from './tool-dispatcher.ts';
export { FrameLimiter, type FrameStats } from './frame-limiter.ts';
export {
  toModelFrame,
  assertSupportedImage,
  sniffImageKind,
  FrameError,
  MAX_FRAME_SIDE,
  type ModelFrame,
} from './frame-converter.ts';
export { TextInjectionQueue } from './text-injection.ts';
export {
  buildLiveConfig,
  jsonSchemaToGeminiSchema,
  textInjectionKindFor,
  defaultInjectedText,
  classifyFailure,
  type TextInjectionKind,
} from './gemini/setup.ts';
export { systemClock, ManualClock, type TimerClock, type TimerHandle } from '../contracts/clock.ts';
