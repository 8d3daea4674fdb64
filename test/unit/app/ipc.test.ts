// The real registerIpcHandlers with Electron's ipcMain replaced: every channel is registered, a
// trusted sender gets the handler's answer, anything else is refused before the handler runs.
import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../main/core/log/logger.ts';

type Handler = (event: unknown) => Promise<unknown>;
const registered = new Map<string, Handler>();
vi.mock('electron', () => ({
  ipcMain: {
    handle: (channel: string, handler: Handler) => registered.set(channel, handler),
    removeHandler: (channel: string) => registered.delete(channel),
  },
}));

const { registerIpcHandlers } = await import('../../../main/app/ipc.ts');

const SIDECAR = 'http://127.0.0.1:18943';
const mainFrame = { url: `${SIDECAR}/` };
const dashboard = { id: 7, mainFrame, isDestroyed: () => false, webContents: { id: 7 } };

function event(overrides: { senderId?: number; frame?: { url: string } | null; mainFrame?: unknown } = {}) {
  const frame = overrides.frame === undefined ? mainFrame : overrides.frame;
  return { sender: { id: overrides.senderId ?? 7, mainFrame: overrides.mainFrame ?? mainFrame }, senderFrame: frame };
}

describe('IPC handlers', () => {
  const calls: string[] = [];
  const unregister = registerIpcHandlers({
    logger: silentLogger(),
    sidecarUrl: () => SIDECAR,
    dashboardWindow: () => dashboard as never,
    handlers: {
      'lvb:capture-screenshot': async () => (calls.push('capture'), { ok: false, error: 'test' }),
      'lvb:app-version': async () => (calls.push('version'), '0.3.5'),
      'lvb:open-logs-folder': async () => (calls.push('logs'), { ok: true }),
    },
  });

  it('registers exactly the contract channels, all lvb:-prefixed', () => {
    expect([...registered.keys()].sort()).toEqual([
      'lvb:app-version',
      'lvb:capture-screenshot',
      'lvb:open-logs-folder',
    ]);
  });

  it('answers the main frame of the dashboard window', async () => {
    await expect(registered.get('lvb:app-version')!(event())).resolves.toBe('0.3.5');
    expect(calls).toEqual(['version']);
  });

  it('refuses other windows, sub-frames and foreign pages without running the handler', async () => {
    const subFrame = { url: `${SIDECAR}/` };
    const navigatedAway = { url: 'https://evil.example/' };
    for (const bad of [
      event({ senderId: 8 }),
      event({ frame: subFrame }),
      event({ frame: navigatedAway, mainFrame: navigatedAway }),
      event({ frame: null }),
    ]) {
      await expect(registered.get('lvb:capture-screenshot')!(bad)).rejects.toThrow(/refused/);
    }
    expect(calls).toEqual(['version']);
  });

  it('removes its handlers', () => {
    unregister();
    expect(registered.size).toBe(0);
  });
});
