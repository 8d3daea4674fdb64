// What a fake GPT-Live server is started with (server.ts).
import type { ScriptedListening } from '../../shared/scripted-speech.ts';
import type { FakeTimingOptions } from '../../shared/timing.ts';

export interface FakeLiveOptions extends FakeTimingOptions {
  port?: number;
  validKeys?: readonly string[];
  models?: readonly string[];
  /**
   * Speak to user speech (after 500 ms of quiet) and to commentary by itself: `transcript` (default:
   * `answer` of what it heard, else a fixed line), after the input transcript `inputTranscript`
   * (default: `transcribe` of the turn's audio, else "(N ms of speech)").
   */
  autoReply?: ({ transcript?: string; inputTranscript?: string; toneMs?: number } & ScriptedListening) | false;
  vadRms?: number;
  /** Each session ends after this long (`session.closed` reason `expired`). Default: never. */
  sessionLifetimeMs?: number;
  /** session.start → session.started, ms (default SERVICE_TIMING['openai-live'].setupMs). */
  setupDelayMs?: number;
}
