import { describe, expect, it } from 'vitest';
import { describeStartFailure } from '../../../main/app/start-failure.ts';
import { updateFeed, updateStatusLine } from '../../../main/app/update-feed.ts';

describe('start failure', () => {
  it('a taken port names the port, the usual cause and two fixes', () => {
    const err = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:18943'), {
      code: 'EADDRINUSE',
    });
    const failure = describeStartFailure(err, { port: 18943, logsFolder: '/logs' });
    expect(failure.short).toBe('port 18943 is in use');
    expect(failure.cause).toContain('Port 18943');
    expect(failure.fix).toContain('DISCORD_VOICE_LIVE_PORT');
    expect(failure.fix).toContain('18944');
  });

  it('anything else shows its message and where the log is', () => {
    const failure = describeStartFailure(new Error('disk full'), {
      port: 1,
      logsFolder: '/home/u/.config/Live Voice Bridge/logs',
    });
    expect([failure.cause, failure.short]).toEqual(['disk full', 'see the log']);
    expect(failure.fix).toContain('/home/u/.config/Live Voice Bridge/logs');
  });
});

describe('auto-update feed', () => {
  it('off when unset; the variable wins over the setting; only http(s) URLs', () => {
    expect(updateFeed({}, undefined)).toEqual({ url: null });
    expect(updateFeed({}, 'https://updates.example.com/lvb/')).toEqual({
      url: 'https://updates.example.com/lvb/',
      source: 'setting',
    });
    expect(updateFeed({ LVB_UPDATE_FEED_URL: 'http://127.0.0.1:9000/feed' }, 'https://x.example')).toEqual({
      url: 'http://127.0.0.1:9000/feed',
      source: 'env',
    });
    expect(updateFeed({ LVB_UPDATE_FEED_URL: 'file:///tmp/feed' }, undefined)).toEqual({
      url: null,
      problem: 'LVB_UPDATE_FEED_URL is not an http(s) URL',
    });
  });

  it('status lines for the tray', () => {
    expect(updateStatusLine({ state: 'off' })).toBeNull();
    expect(updateStatusLine({ state: 'downloading', version: '0.4.0', percent: 41.6 })).toBe(
      'Updates: downloading 0.4.0 (42 %)',
    );
    expect(updateStatusLine({ state: 'ready', version: '0.4.0' })).toBe('Update 0.4.0 ready: restart to install');
  });
});
