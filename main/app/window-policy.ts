// Security and manners of the dashboard window, as pure decisions the Electron glue applies.

/** Origin of our own sidecar, e.g. `http://127.0.0.1:18943`. */
export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/**
 * IPC is answered only for the top frame of our dashboard window showing a page of our own
 * sidecar: not a sub-frame, not another window, not a page that navigated elsewhere.
 */
export function isTrustedSender(
  sender: { frameUrl: string | undefined; isMainFrame: boolean; fromDashboardWindow: boolean },
  sidecarUrl: string,
): boolean {
  if (!sender.fromDashboardWindow || !sender.isMainFrame || !sender.frameUrl) return false;
  const expected = originOf(sidecarUrl);
  return expected !== null && originOf(sender.frameUrl) === expected;
}

/** In-window navigation stays on our sidecar (the login redirect lands on `/`); everything else is refused. */
export function isAllowedNavigation(targetUrl: string, sidecarUrl: string): boolean {
  const expected = originOf(sidecarUrl);
  return expected !== null && originOf(targetUrl) === expected;
}

export type CloseAction = 'close' | 'hide' | 'hide-with-notice';

/** Closing the window hides it to the tray; the first time, say where the app went. */
export function closeAction(state: { quitting: boolean; shownTrayNotice: boolean }): CloseAction {
  if (state.quitting) return 'close';
  return state.shownTrayNotice ? 'hide' : 'hide-with-notice';
}

/**
 * A native OS notification for a delivered notification, only when the user would not see it on
 * the dashboard (window hidden or minimised) and has not paused them. One per entry id.
 */
export function shouldNotifyNatively(state: {
  windowVisible: boolean;
  paused: boolean;
  alreadyNotified: boolean;
}): boolean {
  return !state.windowVisible && !state.paused && !state.alreadyNotified;
}
