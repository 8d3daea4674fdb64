// A raw `ws` client of the fake Gemini service, so nothing of our provider hides what goes over the
// wire (the fake's own strictness tests).
import { WebSocket } from 'ws';
import { fakeKey } from './helpers.ts';

export interface RawClient {
  ws: WebSocket;
  messages: Record<string, unknown>[];
  closed: Promise<{ code: number; reason: string }>;
}

export function openRawClient(baseUrl: string, sockets: WebSocket[], version = 'v1beta'): RawClient {
  const url = `${baseUrl.replace('http:', 'ws:')}//ws/google.ai.generativelanguage.${version}.GenerativeService.BidiGenerateContent?key=${fakeKey()}`;
  const ws = new WebSocket(url);
  sockets.push(ws);
  const messages: Record<string, unknown>[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString()) as Record<string, unknown>));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    ws.on('error', () => resolve({ code: -1, reason: 'error' }));
  });
  return { ws, messages, closed };
}

export async function waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Opens a socket and completes setup with `setup` (model and resumption as given). */
export async function setUpRaw(
  baseUrl: string,
  sockets: WebSocket[],
  setup: Record<string, unknown>,
  version = 'v1beta',
): Promise<RawClient> {
  const client = openRawClient(baseUrl, sockets, version);
  await new Promise<void>((resolve, reject) => {
    client.ws.once('open', () => resolve());
    client.ws.once('error', reject);
  });
  client.ws.send(JSON.stringify({ setup }));
  await waitFor(
    () => client.messages.some((m) => 'setupComplete' in m) || client.ws.readyState !== WebSocket.OPEN,
    'setupComplete',
  );
  return client;
}
