// The tray follows /events like any other client: the call state, the talk state, the model
// speaking (the icon), deliveries (a native notification when the dashboard is not in view), and
// during a call /health every 5 s, so the tooltip says when someone cannot be decrypted (DAVE).
import type { BrowserWindow } from 'electron';
import type { Capability } from '../../core/lifecycle.ts';
import { DeliveryWatcher } from '../delivery-watch.ts';
import type { SidecarClient } from '../sidecar-client.ts';
import { shouldNotifyNatively } from '../window-policy.ts';
import type { Shell } from './context.ts';

export interface EventsDeps {
  shell: Shell;
  client: SidecarClient;
  render(): void;
  syncTalkKeys(): Promise<void>;
  window(): BrowserWindow | null;
}

export const eventsCapability: Capability<EventsDeps, void> = {
  name: 'tray events',
  start({ shell, client, render, syncTalkKeys, window }) {
    const { state } = shell;
    let decryptionTimer: NodeJS.Timeout | null = null;
    const watchDecryption = (): void => {
      if (state.bridge !== 'connected') {
        if (decryptionTimer) clearInterval(decryptionTimer);
        decryptionTimer = null;
        if (state.undecryptable?.length) state.undecryptable = [];
        return;
      }
      decryptionTimer ??= setInterval(() => {
        void client.undecryptableSpeakers().then(
          (ids) => {
            if (ids.join() === (state.undecryptable ?? []).join()) return;
            state.undecryptable = ids;
            render();
          },
          () => undefined,
        );
      }, 5000);
    };
    const events = new AbortController();
    const deliveries = new DeliveryWatcher();
    void client.followEvents(
      (event) => {
        if (event.type === 'state') {
          state.bridge = event.data.state;
          state.problem = event.data.reason;
          watchDecryption();
          render();
        } else if (event.type === 'talk') {
          state.talk = event.data;
          void syncTalkKeys();
          render();
        } else if (event.type === 'levels') {
          // 10 a second during a call: re-render only when the icon would change.
          const speaking = event.data.output.rms > 0;
          if (speaking !== state.modelSpeaking) {
            state.modelSpeaking = speaking;
            render();
          }
        } else if (event.type === 'schedule') {
          for (const entry of deliveries.observe(event.data.changed)) {
            const shown = window();
            const visible = shown !== null && !shown.isDestroyed() && shown.isVisible() && !shown.isMinimized();
            if (
              shouldNotifyNatively({
                windowVisible: visible,
                paused: state.notificationsPaused,
                alreadyNotified: false,
              })
            )
              shell.notify(entry.title ?? 'Notification delivered', entry.text);
          }
        }
      },
      events.signal,
      (up) => {
        if (!up) shell.logger.warn('lost the sidecar event stream; retrying');
      },
    );
    return {
      api: undefined,
      stop: () => {
        events.abort();
        if (decryptionTimer) clearInterval(decryptionTimer);
      },
    };
  },
};
