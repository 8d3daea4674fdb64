// The demo after a Leave (the pasted `live-voice-bridge leave`, or Leave voice on the dashboard):
// the scripted owner has no call to speak into. Before, the demo printed "demo: a simulated person
// could not speak: Error: Error: the bot has no live voice session" at every line (every 9 s) until
// Ctrl-C; now it says once that the people wait for a join, and nothing on stderr.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { SOLO_SCENE } from '../../../main/demo/demo-script.ts';
import { freePort } from '../../helpers/net.ts';
import { signalGroup, startDemo } from '../../helpers/demo-session.ts';

async function until(predicate: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

it('after leave: one line saying the people wait for a join, no error per scripted line', async () => {
  const port = await freePort();
  const demo = startDemo(`exec "${process.execPath}" main/cli.ts demo --port ${port}`, {
    cwd: process.cwd(),
    env: { ...process.env, NO_COLOR: '1' },
    readyTimeoutMs: 60_000,
  });
  try {
    const { pasteLines } = await demo.ready;
    const tokenFile = /^export DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE=(\S+)$/m.exec(pasteLines.join('\n'))![1]!;
    const auth = { authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}` };
    await until(() => / model +\S/.test(demo.out()), 'the first answer', 60_000);
    expect((await fetch(`http://127.0.0.1:${port}/leave?by=cli`, { headers: auth })).status).toBe(200);
    const lines = () => (demo.out().match(/\] Olga +/g) ?? []).length;
    const before = lines();
    // Two more of the owner's lines fall due (they come 9 s apart) while there is no call.
    const gap = SOLO_SCENE.lines[1]!.atMs - SOLO_SCENE.lines[0]!.atMs;
    await new Promise((r) => setTimeout(r, 2 * gap + 2_000));
    expect(lines()).toBe(before);
    expect(
      demo
        .out()
        .match(
          /demo +no call: the simulated people wait until you join again \(live-voice-bridge join, or Join voice on the dashboard\)\n/g,
        ),
    ).toHaveLength(1);
    expect(demo.err()).not.toContain('could not speak');
    signalGroup(demo, 'SIGINT');
    expect((await demo.exited).code).toBe(0);
  } finally {
    if (demo.child.exitCode === null) signalGroup(demo, 'SIGKILL');
  }
}, 120_000);
