// The core's one lifecycle on real capabilities (issue 38, item 1; main/core/core.ts): for every point
// where a start can fail, exactly the capabilities opened before it are stopped, newest first, and
// the failing one is not (it closes its own half-open parts); a started core's stop() stops each one
// once, even when called twice at the same time, and frees the sidecar's port. Runs on the fake
// Discord and fake Gemini so the voice, model, usage and call capabilities open for real.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { callCapability } from '../../../main/core/capabilities/call.ts';
import { helperToolsCapability } from '../../../main/core/capabilities/helper-tools.ts';
import { mcpCapability } from '../../../main/core/capabilities/mcp.ts';
import { memoryTrimCapability } from '../../../main/core/capabilities/memory-trim.ts';
import { modelCapability } from '../../../main/core/capabilities/model.ts';
import { notesCapability } from '../../../main/core/capabilities/notes.ts';
import { notifyCapability } from '../../../main/core/capabilities/notify.ts';
import { processCapability } from '../../../main/core/capabilities/process.ts';
import { autoJoinCapability, roomCapability } from '../../../main/core/capabilities/room.ts';
import { scheduleCapability } from '../../../main/core/capabilities/schedule.ts';
import { liveSettingsCapability } from '../../../main/core/capabilities/settings.ts';
import { sidecarCapability } from '../../../main/core/capabilities/sidecar.ts';
import { usageCapability } from '../../../main/core/capabilities/usage.ts';
import { voiceCapability } from '../../../main/core/capabilities/voice.ts';
import { loadConfig, type Config } from '../../../main/core/config/index.ts';
import { startCore } from '../../../main/core/core.ts';
import type { Capability, Running } from '../../../main/core/lifecycle.ts';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { startFakeGemini, type FakeGemini } from '../../../main/fakes/gemini/index.ts';
import { freePort, portIsFree } from '../../helpers/net.ts';

/** In start order, as docs/architecture.md's lifecycle table lists them. */
const ORDER = [
  'process',
  'notes',
  'voice',
  'live settings',
  'model',
  'usage',
  'notify',
  'mcp',
  'call',
  'room',
  'auto-join',
  'helper tools',
  'memory trim',
  'sidecar',
  'schedule',
];
const capabilities: Capability<unknown, unknown>[] = [
  processCapability,
  notesCapability,
  voiceCapability,
  liveSettingsCapability,
  modelCapability,
  usageCapability,
  notifyCapability,
  mcpCapability,
  callCapability,
  roomCapability,
  autoJoinCapability,
  helperToolsCapability,
  memoryTrimCapability,
  sidecarCapability,
  scheduleCapability,
];
const realStart = new Map(capabilities.map((c) => [c, c.start.bind(c)]));

let discord: FakeDiscord;
let gemini: FakeGemini;
const homes: string[] = [];

beforeAll(async () => {
  discord = await startFakeDiscord();
  gemini = await startFakeGemini();
});
afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  await gemini.close();
  await discord.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

async function config(): Promise<Config> {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-life-'));
  homes.push(home);
  const loaded = loadConfig({
    env: {
      HERMES_HOME: home,
      DISCORD_BOT_TOKEN: discord.botToken,
      DISCORD_VOICE_LIVE_USER_ID: discord.owner.id,
      DISCORD_API_BASE_URL: discord.apiBaseUrl,
      GEMINI_API_KEY: `fake-gemini-key-${process.pid}`,
      GEMINI_LIVE_BASE_URL: gemini.url,
    },
  });
  loaded.sidecar.port = await freePort();
  return loaded;
}

/** Records each capability's start and stop; the one named `failing` throws instead of starting. */
function instrument(failing?: string): string[] {
  const events: string[] = [];
  for (const capability of capabilities) {
    vi.spyOn(capability, 'start').mockImplementation(async (deps: unknown): Promise<Running<unknown>> => {
      if (capability.name === failing) throw new Error(`injected: ${capability.name} does not start`);
      const running = await realStart.get(capability)!(deps);
      events.push(`start ${capability.name}`);
      return { ...running, stop: (budget) => (events.push(`stop ${capability.name}`), running.stop(budget)) };
    });
  }
  return events;
}

describe('the core has one lifecycle', () => {
  it('starts every capability in dependency order; stop() twice stops each once, newest first, and frees the port', async () => {
    const events = instrument();
    const cfg = await config();
    const core = await startCore({ config: cfg, logger: silentLogger() });
    expect(events).toEqual(ORDER.map((n) => `start ${n}`));
    // Stopped while the bot may still be logging in: that stop is safe at every step of the gateway
    // handshake (core-stop-while-connecting.test.ts).
    await Promise.all([core.stop(), core.stop()]);
    await core.stop();
    expect(events.slice(ORDER.length)).toEqual([...ORDER].reverse().map((n) => `stop ${n}`));
    expect(await portIsFree(cfg.sidecar.port)).toBe(true);
  });

  it.each(ORDER.map((name, k) => [k + 1, name] as const))(
    'a start that fails at step %i (%s) stops exactly the steps before it, in reverse',
    async (k, name) => {
      const events = instrument(name);
      const cfg = await config();
      await expect(startCore({ config: cfg, logger: silentLogger() })).rejects.toThrow(
        `injected: ${name} does not start`,
      );
      const opened = ORDER.slice(0, k - 1);
      expect(events).toEqual([...opened.map((n) => `start ${n}`), ...[...opened].reverse().map((n) => `stop ${n}`)]);
      // What the sidecar had opened is really closed: the port is free for the next start.
      expect(await portIsFree(cfg.sidecar.port)).toBe(true);
    },
  );
});
