// A raw `ws` client of a model fake and the audio the fake-side turn tests send (issue #52 item 4):
// nothing of our providers between the test and the wire. Audio is sent as fast as the socket
// takes it: the fakes count received samples, so a "700 ms pause" is 700 ms of silent samples,
// whatever the wall clock says.
import { WebSocket } from 'ws';
import { pcmToBase64, tone } from '../../../main/fakes/shared/pcm.ts';

export interface RawSocket {
  ws: WebSocket;
  /** Every message the fake sent, parsed. */
  messages: Record<string, unknown>[];
  send(message: Record<string, unknown>): void;
  closed: Promise<{ code: number; reason: string }>;
}

const open: WebSocket[] = [];

export function closeRawSockets(): void {
  for (const ws of open.splice(0)) ws.terminate();
}

export async function openRaw(url: string, headers: Record<string, string> = {}): Promise<RawSocket> {
  const ws = new WebSocket(url, { headers });
  open.push(ws);
  const messages: Record<string, unknown>[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString()) as Record<string, unknown>));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    ws.on('error', () => resolve({ code: -1, reason: 'error' }));
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, messages, send: (m) => ws.send(JSON.stringify(m)), closed };
}

export async function waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Base64 chunks of `ms` of speech (a loud tone) or silence (zeros), `chunkMs` each, at `rate`. */
export function chunks(kind: 'speech' | 'silence', ms: number, rate: number, chunkMs = 100): string[] {
  const out: string[] = [];
  for (let at = 0; at < ms; at += chunkMs) {
    const len = Math.min(chunkMs, ms - at);
    out.push(
      pcmToBase64(
        kind === 'speech' ? tone(len, { rate, amplitude: 12_000 }) : new Int16Array(Math.round((rate * len) / 1000)),
      ),
    );
  }
  return out;
}
