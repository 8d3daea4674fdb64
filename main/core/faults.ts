// Process-wide counts of what the network threw at us and we survived, reported in /health: a
// malformed frame from the model service, a rejection or exception nothing else caught. Each is
// logged once where it happens; these counters show how often it happened since start.

export const faultCounts = {
  /** Frames from the model service that were not a JSON object (dropped; the socket was resumed). */
  malformed_model_messages: 0,
  /** Promise rejections no code handled (kept alive by the last-resort handler). */
  unhandled_rejections: 0,
  /** Exceptions no code caught (kept alive by the last-resort handler). */
  uncaught_exceptions: 0,
};

export type FaultCounts = typeof faultCounts;
