// The global push-to-talk hold key: its keyboard hook runs only while push-to-talk mode is on (no
// hook otherwise); sync() follows the talk state after each change.
import path from 'node:path';
import type { Capability } from '../../core/lifecycle.ts';
import type { SidecarClient } from '../sidecar-client.ts';
import { spawnTalkKeyProcess } from '../talk-key-process.ts';
import { startTalkKeys, type TalkKeys } from '../talk-keys.ts';
import type { Shell } from './context.ts';

export const talkKeysCapability: Capability<
  { shell: Shell; client: SidecarClient; render(): void },
  { sync(): Promise<void> }
> = {
  name: 'talk keys',
  start({ shell, client, render }) {
    const { state, logger } = shell;
    let talkKeys: TalkKeys | null = null;
    let starting = false;
    const sync = async (): Promise<void> => {
      const wanted = state.talk?.ptt.enabled === true;
      if (!wanted && talkKeys) {
        talkKeys.stop();
        talkKeys = null;
        state.talkKeys = null;
        return render();
      }
      if (!wanted || talkKeys || starting) return;
      starting = true;
      const keys = await startTalkKeys({
        accelerator: shell.binding('talk').accelerator,
        platform: process.platform,
        env: process.env,
        spawn: () => spawnTalkKeyProcess(path.join(shell.appRoot, 'dist', 'main', 'app', 'talk-key-worker.js')),
        onHold: (held) =>
          void client.ptt({ held }).catch((err: unknown) => logger.warn({ err }, 'push-to-talk key not applied')),
        onLost: (reason) => {
          logger.warn({ reason }, 'push-to-talk keys stopped');
          talkKeys = null;
          state.talkKeys = { available: false, reason };
          render();
        },
      });
      starting = false;
      if (!keys.status.available) logger.warn({ reason: keys.status.reason }, 'push-to-talk keys off');
      // Push-to-talk may have been switched off while the hook was loading.
      if (state.talk?.ptt.enabled !== true) keys.stop();
      else talkKeys = keys;
      state.talkKeys = keys.status;
      render();
    };
    return { api: { sync }, stop: () => talkKeys?.stop() };
  },
};
