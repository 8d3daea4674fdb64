// `./scripts/demo.sh --room` as a user sees it: three named people in the transcript, one
// talk-over marked as overlapping and naming both, and a guest who typed /optout whose words never
// reach the model (the fake transcribes every scripted sentence it receives, so a sentence missing
// from the notes never reached it), shown as opted out in the room view. (The fake Discord runs in
// the demo's child process: what the bot answered Gus there, the demo prints.)
import { expect, it } from 'vitest';
import type { NoteEvent, RoomView } from '../../../main/core/api-types.ts';
import { ROOM_SCENE } from '../../../main/demo/demo-script.ts';
import { freePort } from '../../helpers/net.ts';
import { signalGroup, startDemo } from '../../helpers/demo-session.ts';
import { readFileSync } from 'node:fs';

const GUEST_LINE = ROOM_SCENE.lines.find((l) => l.who === 'guest')!.text;
const LAST_LINE = ROOM_SCENE.lines.at(-1)!.text;

async function until(predicate: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

it('--room: three named people, an overlapping note naming two, the opted-out guest never heard', async () => {
  const port = await freePort();
  const demo = startDemo(`exec "${process.execPath}" main/cli.ts demo --room --port ${port}`, {
    cwd: process.cwd(),
    env: { ...process.env, NO_COLOR: '1' },
    readyTimeoutMs: 60_000,
  });
  try {
    const { pasteLines } = await demo.ready;
    const tokenFile = /^export DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE=(\S+)$/m.exec(pasteLines.join('\n'))![1]!;
    const auth = { authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}` };
    const get = async <T>(path: string): Promise<T> =>
      (await (await fetch(`http://127.0.0.1:${port}${path}`, { headers: auth })).json()) as T;

    // Printed right after the paste block, which may reach the pipe in an earlier chunk.
    await until(() => demo.out().includes('A room of three: Olga (the owner), Priya'), 'who is in the room', 10_000);
    // The whole scene once, up to the model's answer to its last line.
    await until(
      () => new RegExp(`Priya +${LAST_LINE.replace(/[?.]/g, '\\$&')}\\n.*model +So far:`).test(demo.out()),
      'the answer to the last line of the scene',
      90_000,
    );

    const out = demo.out();
    expect(out).toContain('Gus typed /optout. The bot answered him: You opted out');
    expect(out).toMatch(/\] Olga +Morning everyone, can you hear me\?\n/);
    expect(out).toMatch(/\] Priya +We decided to ship the release on Friday\.\n/);
    expect(out).toMatch(/\] Olga and Priya \(overlapping\) \S/);
    expect(out).toContain("model    Sure, I'll remind you to email the client tomorrow.");

    const { notes } = await get<{ notes: NoteEvent[] }>('/notes?limit=500');
    const heard = notes.filter((n) => n.kind === 'input_transcript');
    expect(new Set(heard.map((n) => n.speaker_name))).toEqual(new Set(['Olga', 'Priya', 'Olga and Priya']));
    const overlap = heard.find((n) => n.text.startsWith('(overlapping) '))!;
    expect(overlap.speaker!.split(',')).toHaveLength(2);
    // Gus said his line (the scene is past it), and none of its words are anywhere in the notes.
    expect(notes.some((n) => n.text.includes('what did I miss') || n.text.includes('Sorry I am late'))).toBe(false);
    expect(out).not.toContain(GUEST_LINE);

    const room = await get<RoomView>('/room');
    const byName = Object.fromEntries(room.people.map((p) => [p.name, p]));
    expect(byName.Gus).toMatchObject({ opted_out: true, in_channel: true });
    expect(byName.Olga).toMatchObject({ role: 'owner', in_channel: true });
    expect(byName.Priya).toMatchObject({ role: 'speaker', in_channel: true });
    expect(byName.Priya!.opted_out ?? false).toBe(false);

    signalGroup(demo, 'SIGINT');
    expect(await demo.exited).toEqual({ code: 0, signal: null });
    expect(demo.err()).toBe('');
  } finally {
    if (demo.child.exitCode === null) signalGroup(demo, 'SIGKILL');
  }
}, 150_000);
