// A delivery interrupted mid-send (its process killed with the claim on disk): an entry whose
// receiver still drops a repeat (`resend_until`, set at its first send: an honoured Idempotency-Key,
// a Discord nonce) is sent again under the same key (the entry's id) at the next start; one past that
// window, or whose receiver keeps no key, is failed, never re-sent; one interrupted too often is failed.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { NotifyRequest, NotifyResult } from '../../../main/core/api-types.ts';
import { MAX_INTERRUPTED_RESENDS } from '../../../main/core/notify/claim-owner.ts';
import type { DeliverOptions } from '../../../main/core/notify/dispatcher.ts';
import { scheduleFilePath, type StoredNotification } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';
import { readScheduleRows, writeScheduleRows } from '../../helpers/schedule-db.ts';

const logger = pino({ level: 'silent' });
const T0 = 1_800_000_000_000;
let home: string;
let file: string;
let sent: Array<{ req: NotifyRequest; key: string | undefined }>;

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-resend-'));
  file = scheduleFilePath(home);
  sent = [];
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const notifier = {
  async deliver(req: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult> {
    const mode = req.mode === 'webhook' ? 'webhook' : 'dm';
    if (options?.onSending && !(await options.onSending(mode)))
      return { id: 'x', status: 'error', results: { [mode]: { status: 'unavailable' } }, notified_at: T0 / 1000 };
    sent.push({ req, key: options?.notificationId });
    return {
      id: options?.notificationId ?? 'x',
      status: 'ok',
      channel: mode,
      results: { [mode]: { status: 'ok' } },
      notified_at: T0 / 1000,
    };
  },
};
const make = () => createScheduler({ file, notifier, clock: { now: () => T0 }, logger });

/** The entry as a killed process leaves it: `delivering` under a claim whose owner is gone. */
async function interruptedEntry(mode: 'webhook' | 'dm', extra: Partial<StoredNotification> = {}): Promise<string> {
  const entry = await make().schedule({ text: `reminder by ${mode}`, delay_seconds: 0, mode });
  const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
  const [record] = readScheduleRows(file);
  writeScheduleRows(file, [
    {
      ...record!,
      ...extra,
      state: 'delivering',
      attempts: 1,
      claim: { owner: `${deadPid}:abcd`, pid: deadPid, lease_until: T0 / 1000 + 600 },
    },
  ]);
  return entry.id;
}

/** Until when the receiver drops a repeat: a minute after the test's clock. */
const WINDOW = { resend_until: T0 / 1000 + 60 };

it('a webhook entry interrupted mid-delivery, its receiver honouring the key, is sent again at the next start under the same idempotency key', async () => {
  const id = await interruptedEntry('webhook', WINDOW);
  const s = make();
  await s.tick();
  expect(sent.map((x) => [x.req.text, x.key])).toEqual([['reminder by webhook', id]]);
  const [row] = readScheduleRows(file);
  expect(row).toMatchObject({ id, state: 'delivered', interrupted: 1, attempts: 2 });
  expect(row!.claim).toBeUndefined();
  await s.stop();
});

it('a webhook entry whose receiver keeps no key (no resend window) is failed, never sent again', async () => {
  const id = await interruptedEntry('webhook');
  const s = make();
  await s.tick();
  expect(sent).toEqual([]);
  expect(readScheduleRows(file)[0]).toMatchObject({ id, state: 'failed', interrupted: 1 });
  await s.stop();
});

it('a DM interrupted within its nonce window is sent again under the same key; past it, failed', async () => {
  const id = await interruptedEntry('dm', WINDOW);
  const s = make();
  await s.tick();
  expect(sent.map((x) => x.key)).toEqual([id]);
  await s.stop();
});

it('a DM interrupted past its nonce window is failed, never sent again', async () => {
  const id = await interruptedEntry('dm', { resend_until: T0 / 1000 - 1 });
  const s = make();
  await s.tick();
  expect(sent).toEqual([]);
  const [row] = readScheduleRows(file);
  expect(row).toMatchObject({ id, state: 'failed', interrupted: 1 });
  expect(row!.last_error).toMatch(
    /^interrupted during delivery attempt 1 .*not retried so it is never sent twice — it may have been delivered once$/,
  );
  await s.stop();
});

it(`a webhook entry interrupted ${MAX_INTERRUPTED_RESENDS + 1} times is failed: a send that kills its process is not retried forever`, async () => {
  const id = await interruptedEntry('webhook', { ...WINDOW, interrupted: MAX_INTERRUPTED_RESENDS });
  const s = make();
  await s.tick();
  expect(sent).toEqual([]);
  const [row] = readScheduleRows(file);
  expect(row).toMatchObject({ id, state: 'failed', interrupted: MAX_INTERRUPTED_RESENDS + 1 });
  expect(row!.last_error).toContain(
    `interrupted ${MAX_INTERRUPTED_RESENDS + 1} times, not sent again — it may have been delivered once`,
  );
  await s.stop();
});
