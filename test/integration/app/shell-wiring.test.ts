// The Electron shell's composition root runs in tests (issue 38, item 6): main/app/main.ts is
// imported under a recording stub of the `electron` module (test/helpers/electron-stub.ts), with a
// real core on the fake Discord and fake Gemini. A wiring mistake in start() (a missing handler,
// the window loading the wrong URL, a tray action that never reaches the core, a quit that leaves
// the core running) fails here even where no Electron binary exists. What only a real binary can
// show (rendering, OS tray, keyring) stays in test/ui/electron.spec.ts, which skips without one.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HealthReport } from '../../../main/core/api-types.ts';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { startFakeGemini, type FakeGemini } from '../../../main/fakes/gemini/index.ts';
import { recorder, waitFor, type StubTray } from '../../helpers/electron-stub.ts';
import { freePort } from '../../helpers/net.ts';

vi.mock('electron', async () => (await import('../../helpers/electron-stub.ts')).electronStubModule());

let discord: FakeDiscord;
let gemini: FakeGemini;
let home: string;
let port: number;
let tokenFile: string;
const savedEnv = { ...process.env };

const tray = (): StubTray => recorder.trays[0]!;
const health = async (): Promise<HealthReport> => {
  const token = readFileSync(tokenFile, 'utf8').trim();
  const response = await fetch(`http://127.0.0.1:${port}/health`, { headers: { authorization: `Bearer ${token}` } });
  return (await response.json()) as HealthReport;
};
/** Polls the core (state outside the stub) until `check` holds. */
async function until(check: (h: HealthReport) => boolean, what: string): Promise<HealthReport> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const report = await health();
    if (check(report)) return report;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last bridge state ${report.bridge.state}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
/** Clicks a tray item once the shell shows it enabled, as a user would. */
async function click(label: string): Promise<void> {
  const item = await waitFor(() => {
    const found = tray().item(label);
    return found?.enabled ? found : undefined;
  }, `tray item "${label}" enabled`);
  item.click!();
}

beforeAll(async () => {
  discord = await startFakeDiscord();
  gemini = await startFakeGemini({ autoReply: { transcript: 'Heard you.' } });
  home = mkdtempSync(path.join(tmpdir(), 'lvb-shell-'));
  port = await freePort();
  tokenFile = path.join(home, 'sidecar.token');
  Object.assign(process.env, {
    HERMES_HOME: home,
    LVB_USER_DATA_DIR: path.join(home, 'user-data'),
    DISCORD_VOICE_LIVE_PORT: String(port),
    DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: tokenFile,
    DISCORD_BOT_TOKEN: discord.botToken,
    DISCORD_VOICE_LIVE_USER_ID: discord.owner.id,
    DISCORD_API_BASE_URL: discord.apiBaseUrl,
    GEMINI_API_KEY: `fake-gemini-key-${process.pid}`,
    GEMINI_LIVE_BASE_URL: gemini.url,
    DISCORD_VOICE_LIVE_LOG_LEVEL: 'warn',
  });
  // The shell reads the profile folder before anything else (LVB_USER_DATA_DIR → app.setPath).
  recorder.paths.set('userData', path.join(home, 'default-user-data'));
  await import('../../../main/app/main.ts');
});

afterAll(async () => {
  // Whatever a failed test left running: quit through the shell's own path.
  if (!tray()?.destroyed) recorder.app.emit('will-quit', { preventDefault: () => undefined });
  await waitFor(() => tray()?.destroyed, 'the shell to stop', 10_000).catch(() => undefined);
  await gemini.close();
  await discord.close();
  process.env = savedEnv;
  rmSync(home, { recursive: true, force: true });
});

describe('main/app/main.ts under a stub Electron, on the fakes', () => {
  it('starts to ready: profile folder, core listening, dashboard window on a one-time login URL', async () => {
    const window = await waitFor(
      () => recorder.windows.find((w) => w.loadedUrls.length > 0),
      'the dashboard window to load',
    );
    expect(recorder.paths.get('userData')).toBe(path.join(home, 'user-data'));
    expect(recorder.errorBoxes).toEqual([]);
    const [url] = window.loadedUrls;
    expect(new URL(url!).origin).toBe(`http://127.0.0.1:${port}`);
    // The window is sandboxed and isolated, with the preload the build emits.
    const prefs = window.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false });
    expect(prefs.preload).toBe(path.join(recorder.appRoot, 'dist', 'preload', 'preload.cjs'));
    // The URL really logs the window in: the core answers it with a session cookie.
    const login = await fetch(url!, { redirect: 'manual' });
    expect(login.status).toBeLessThan(400);
    expect(login.headers.get('set-cookie') ?? '').toMatch(/HttpOnly/i);
    // The desktop API's handlers are all registered, and the tray shows the listening sidecar.
    expect([...recorder.ipcHandlers.keys()].sort()).toEqual([
      'lvb:app-version',
      'lvb:capture-screenshot',
      'lvb:open-logs-folder',
    ]);
    await waitFor(() => tray().tooltip.includes(`:${port}`), 'the tray tooltip to name the sidecar port');
  });

  it('tray actions reach the real core: Join joins the fake voice channel, Mute mutes the call, Leave leaves', async () => {
    await click('Join voice');
    await until((h) => h.bridge.state === 'connected', 'the call to connect');
    await waitFor(
      () => tray().item('Leave voice')?.enabled && tray().tooltip.includes('in a call') && tray(),
      'the tray to show the call',
    );
    expect(discord.world.voiceStates.get(discord.bot.id)?.channelId).toBe(discord.voiceChannelId);

    await click('Mute');
    await waitFor(() => tray().item('Mute')?.checked, 'the tray to show Mute checked');
    expect((await health()).talk).toMatchObject({ muted: true });

    await click('Leave voice');
    await waitFor(() => tray().item('Join voice')?.enabled, 'the tray to offer Join voice again');
    const left = await health();
    expect(['idle', 'stopped']).toContain(left.bridge.state);
    // The call's end names what ended it.
    expect(left.bridge.reason).toBe('stopped from the tray');
    await waitFor(
      () => !discord.world.voiceStates.get(discord.bot.id)?.channelId,
      'the bot to leave the fake voice channel',
    );
    expect(recorder.notifications.filter((n) => /error|failed|refused/i.test(n.body))).toEqual([]);
  });

  it('Quit stops the core through will-quit, then destroys the tray and quits', async () => {
    await click('Quit');
    expect(recorder.quitCalls).toBe(1);
    // Electron answers app.quit() with will-quit; the shell holds it until the core has stopped.
    let held = false;
    recorder.app.emit('will-quit', { preventDefault: () => (held = true) });
    expect(held).toBe(true);
    await waitFor(() => tray().destroyed && recorder.quitCalls === 2, 'the tray to go and the second quit');
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    expect(recorder.shortcuts.size).toBe(0);
  });
});
