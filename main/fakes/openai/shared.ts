// What the two OpenAI fakes (Realtime, GPT-Live) share beyond every fake's base (../shared/): the
// refusal at the upgrade with OpenAI's JSON error body, and that body's 404.
import type { Duplex } from 'node:stream';

/** Answers an upgrade with an HTTP error and OpenAI's JSON error body (never echoing a key). */
export function refuseUpgrade(socket: Duplex, status: number, code: string | null, message: string): void {
  const body = JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } });
  const reason = status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Bad Request';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** What a plain HTTP request to an OpenAI fake gets with its 404. */
export const OPENAI_NOT_FOUND = { error: { message: 'Not found', type: 'invalid_request_error', param: null, code: null } };

/** A function_call_output as the test reads it: parsed JSON, or the raw text when it is not JSON. */
export function parseToolOutput(output: unknown): unknown {
  if (typeof output !== 'string') return output;
  try {
    return JSON.parse(output);
  } catch {
    return output;
  }
}
