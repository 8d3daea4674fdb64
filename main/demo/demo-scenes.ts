// Plays a scene of demo-script.ts through the fakes child: each line at its time, the scene again
// every `everyMs` (or once), and, for the room, the people coming in and the guest opting out first.
import type { FakesChild } from './fakes-child.ts';
import { CAST, ROOM_SCENE, SOLO_SCENE, type Scene } from './demo-script.ts';

export interface PlayingScene {
  /** Resolves once the scene has been played through once (every line said). */
  playedOnce: Promise<void>;
  stop(): void;
}

/** The scene the demo plays: the owner alone, or the room of three; `--once` alone: only the first line. */
export function demoScene(room: boolean, once = false): Scene {
  if (room) return ROOM_SCENE;
  return once ? { ...SOLO_SCENE, lines: SOLO_SCENE.lines.slice(0, 1) } : SOLO_SCENE;
}

/** Says the scene's lines at their times; again and again with `repeat`. Errors go to `onError` (the demo goes on). */
export function playScene(
  fakes: Pick<FakesChild, 'say'>,
  scene: Scene,
  options: { repeat: boolean; onError: (err: unknown) => void },
): PlayingScene {
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  let resolvePlayed: () => void = () => undefined;
  const playedOnce = new Promise<void>((resolve) => (resolvePlayed = resolve));
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) fn();
    }, ms);
    timers.add(timer);
  };
  const playRound = (first: boolean) => {
    const said = scene.lines.map(
      (line) =>
        new Promise<void>((resolve) =>
          later(line.atMs, () =>
            fakes.say(line.who, line.text).then(resolve, (err: unknown) => {
              options.onError(err);
              resolve();
            }),
          ),
        ),
    );
    if (first) void Promise.all(said).then(() => resolvePlayed());
    if (options.repeat) later(scene.everyMs, () => playRound(false));
  };
  playRound(true);
  return {
    playedOnce,
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

/**
 * The room before its first line: the teammate and the guest join the voice channel (the bot posts
 * its consent notice in its chat), and the guest types /optout. Returns lines for the terminal.
 */
export async function enterRoom(fakes: Pick<FakesChild, 'join' | 'slash'>): Promise<string[]> {
  await fakes.join('teammate');
  await fakes.join('guest');
  const answer = await fakes.slash('guest', 'optout');
  return [
    `${CAST.teammate.name} and ${CAST.guest.name} joined the voice channel; the bot posted its consent notice in the channel's chat.`,
    `${CAST.guest.name} typed /optout. The bot answered him: ${answer}`,
  ];
}
