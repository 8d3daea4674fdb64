// What a user sees of per-speaker DAVE health: the room view's line, the dashboard warning while
// anyone cannot be decrypted, and the tray tooltip.
import { describe, expect, it } from 'vitest';
import { trayTooltip, type TrayState } from '../../../main/app/tray-menu.ts';
import type { DaveSpeakerHealth, DaveStatus } from '../../../main/core/api-types.ts';
import { daveWarning, describeSpeakerDave } from '../../../renderer/format.ts';

const heard: DaveSpeakerHealth = {
  user_id: '1',
  packets: 1000,
  decoded: 998,
  decrypt_ratio: 0.998,
  deaf: false,
  deaf_ms: 0,
  max_deaf_ms: 0,
  epoch: 4,
  last_transition: null,
  recoveries: { resubscribe: 0, rebuild: 0, rejoin: 0 },
};
const deaf: DaveSpeakerHealth = {
  ...heard,
  user_id: '2',
  decrypt_ratio: 0.5,
  deaf: true,
  deaf_ms: 1240,
  last_transition: { to: 'deaf', at: '2026-11-27T16:00:00.000Z', step: null },
};
const status: DaveStatus = {
  protocol_version: 1,
  e2ee: true,
  ready: true,
  epoch: 4,
  privacy_code: null,
  last_transition_id: 3,
  transitions: 4,
  decrypt_failures: 60,
  undecrypted_frames: 0,
  rebuilds: 0,
  recoveries: 0,
  rejoins: 0,
  speakers: [heard],
};

describe('per-speaker DAVE health in the UI', () => {
  it('room view: decrypt ratio and epoch, or that the speaker cannot be decrypted now', () => {
    expect(describeSpeakerDave(heard)).toBe('E2EE 99.8 % · epoch 4');
    expect(describeSpeakerDave(deaf)).toBe('E2EE: cannot decrypt (1.2 s, recovering)');
    expect(describeSpeakerDave(undefined)).toBe('');
  });

  it('dashboard: a warning only while someone cannot be decrypted, naming them', () => {
    expect(daveWarning(status)).toBeNull();
    expect(daveWarning(null)).toBeNull();
    expect(daveWarning({ ...status, speakers: [heard, deaf] }, (id) => (id === '2' ? 'Guest' : id))).toContain(
      'cannot decrypt Guest (1.2 s)',
    );
  });

  it('tray tooltip: says when speakers cannot be decrypted', () => {
    const base: TrayState = {
      bridge: 'connected',
      sidecar: 'listening',
      notificationsPaused: false,
      startAtLogin: false,
      startAtLoginSupported: true,
      shortcut: null,
    };
    expect(trayTooltip(base)).not.toContain('decrypt');
    expect(trayTooltip({ ...base, undecryptable: ['2'] })).toContain('cannot decrypt 1 speaker (recovering)');
    expect(trayTooltip({ ...base, undecryptable: ['2', '3'] })).toContain('cannot decrypt 2 speakers');
  });
});
