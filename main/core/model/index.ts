export { createGeminiProvider, createKeyScrubber, DEFAULT_BACKOFF, type GeminiProviderOptions } from './gemini/provider.ts';
export { GeminiLiveSession, INPUT_AUDIO_MIME, decodePcm, type GeminiSessionStats, type BackoffOptions } from './gemini/session.ts';
export { attachToolDispatcher, toToolCallResult, type ToolDispatcher, type ToolDispatcherOptions, type ToolCallSettled } from './tool-dispatcher.ts';
export { FrameLimiter, type FrameStats } from './frame-limiter.ts';
export { toModelFrame, assertSupportedImage, sniffImageKind, FrameError, MAX_FRAME_SIDE, type ModelFrame } from './frame-converter.ts';
export { TextInjectionQueue } from './text-injection.ts';
export { buildLiveConfig, jsonSchemaToGeminiSchema, textInjectionKindFor, defaultInjectedText, classifyFailure, type TextInjectionKind } from './gemini/setup.ts';
export { systemClock, ManualClock, type Clock, type TimerHandle } from './clock.ts';
