// Auto-update is off unless a feed is configured: LVB_UPDATE_FEED_URL (environment) or the
// `updateFeedUrl` desktop setting, an http(s) URL of a generic electron-updater feed (latest.yml
// and the installers). The status words are shown in the tray. Pure: tested without Electron.
import { z } from 'zod';

export const UPDATE_FEED_ENV = 'LVB_UPDATE_FEED_URL';

const FeedUrl = z.url({ protocol: /^https?$/ });

export type FeedChoice = { url: string; source: 'env' | 'setting' } | { url: null; problem?: string };

/** The feed to use: the variable, else the setting; none when both are unset or the one set is not an http(s) URL. */
export function updateFeed(env: Readonly<Record<string, string | undefined>>, setting: string | undefined): FeedChoice {
  const fromEnv = env[UPDATE_FEED_ENV]?.trim();
  const candidate = fromEnv || setting?.trim();
  if (!candidate) return { url: null };
  const parsed = FeedUrl.safeParse(candidate);
  if (!parsed.success)
    return { url: null, problem: `${fromEnv ? UPDATE_FEED_ENV : 'the update feed setting'} is not an http(s) URL` };
  return { url: parsed.data, source: fromEnv ? 'env' : 'setting' };
}

export type UpdateStatus =
  | { state: 'off'; problem?: string }
  | { state: 'checking' }
  | { state: 'current' }
  | { state: 'downloading'; version: string; percent?: number }
  | { state: 'ready'; version: string }
  | { state: 'error'; message: string };

/** The tray's line for the updater; null when there is nothing worth a line (off without a problem). */
export function updateStatusLine(status: UpdateStatus): string | null {
  switch (status.state) {
    case 'off':
      return status.problem ? `Updates off: ${status.problem}` : null;
    case 'checking':
      return 'Updates: checking…';
    case 'current':
      return 'Updates: up to date';
    case 'downloading':
      return `Updates: downloading ${status.version}${status.percent === undefined ? '' : ` (${Math.round(status.percent)} %)`}`;
    case 'ready':
      return `Update ${status.version} ready: restart to install`;
    case 'error':
      return `Updates: ${status.message}`;
  }
}
