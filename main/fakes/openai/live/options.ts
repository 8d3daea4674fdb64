// What a fake GPT-Live server is started with (server.ts).
export interface FakeLiveOptions {
  port?: number;
  validKeys?: readonly string[];
  models?: readonly string[];
  /** Speak to user speech (after 500 ms of quiet) and to commentary by itself. */
  autoReply?: { transcript?: string; inputTranscript?: string; toneMs?: number } | false;
  chunkMs?: number;
  paceMs?: number;
  vadRms?: number;
  /** Each session ends after this long (`session.closed` reason `expired`). Default: never. */
  sessionLifetimeMs?: number;
  /** session.start → session.started, ms (default OPENAI_SETUP_DELAY_MS, setup-delay.ts). */
  setupDelayMs?: number;
}
