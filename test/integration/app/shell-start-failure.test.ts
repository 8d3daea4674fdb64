// The Electron shell when its core does not start (issue 38, items 1 and 6): main/app/main.ts under
// the recording Electron stub with the sidecar's port held by another program. The tray stays up and
// says why, no dashboard window opens, the failure window is offered (the stub answers Quit), and
// quitting goes through the shell's one stop list: will-quit is held until the tray is gone.
import net from 'node:net';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { recorder, waitFor, type StubTray } from '../../helpers/electron-stub.ts';
import { freePort } from '../../helpers/net.ts';

vi.mock('electron', async () => (await import('../../helpers/electron-stub.ts')).electronStubModule());

let home: string;
let port: number;
let holder: net.Server;
const savedEnv = { ...process.env };
const tray = (): StubTray => recorder.trays[0]!;

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'lvb-shell-fail-'));
  port = await freePort();
  holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
  Object.assign(process.env, {
    HERMES_HOME: home,
    LVB_USER_DATA_DIR: path.join(home, 'user-data'),
    DISCORD_VOICE_LIVE_PORT: String(port),
    DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: path.join(home, 'sidecar.token'),
    DISCORD_VOICE_LIVE_LOG_LEVEL: 'fatal',
  });
  recorder.paths.set('userData', path.join(home, 'default-user-data'));
  await import('../../../main/app/main.ts');
});

afterAll(async () => {
  // The shell's two loggers (boot, then configured) open the log file asynchronously: let both,
  // before its folder goes.
  await waitFor(() => existsSync(path.join(home, 'user-data', 'logs', 'main.log')), 'the log file to open', 5000).catch(
    () => undefined,
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await new Promise((resolve) => holder.close(resolve));
  process.env = savedEnv;
  rmSync(home, { recursive: true, force: true });
});

describe('main/app/main.ts when the core cannot start', () => {
  it('keeps the tray with the reason, opens no dashboard, offers the failure window; Quit stops the tray last', async () => {
    await waitFor(() => tray()?.tooltip.includes(`port ${port} is in use`), 'the tray to say the port is in use');
    expect(recorder.windows).toEqual([]);
    expect(recorder.errorBoxes).toEqual([]);
    // The failure window's Quit (the stub's answer) quits; Electron answers with will-quit.
    await waitFor(() => recorder.quitCalls === 1, 'the failure window to quit');
    let held = false;
    recorder.app.emit('will-quit', { preventDefault: () => (held = true) });
    expect(held).toBe(true);
    await waitFor(() => tray().destroyed && recorder.quitCalls === 2, 'the tray to go and the second quit');
    expect([...recorder.ipcHandlers.keys()]).toEqual([]);
  });
});
