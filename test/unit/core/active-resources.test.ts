// /health diagnostics.active_resources (main/core/capabilities/process.ts): what keeps the core's
// event loop alive, by kind. The day soak compares it between quiet points, so a timer or socket
// left behind must show as one more, and one cleared as one fewer.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { activeResources } from '../../../main/core/capabilities/process.ts';

describe('activeResources', () => {
  it('counts a pending timer and a listening socket, and forgets them once closed', async () => {
    const before = activeResources();
    const timer = setTimeout(() => undefined, 60_000);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const during = activeResources();
    expect((during.Timeout ?? 0) - (before.Timeout ?? 0)).toBe(1);
    expect((during.TCPServerWrap ?? 0) - (before.TCPServerWrap ?? 0)).toBe(1);
    clearTimeout(timer);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // A closed handle is listed until libuv has finished closing it, one loop turn later.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const after = activeResources();
    expect(after.Timeout ?? 0).toBe(before.Timeout ?? 0);
    expect(after.TCPServerWrap ?? 0).toBe(before.TCPServerWrap ?? 0);
  });
});
