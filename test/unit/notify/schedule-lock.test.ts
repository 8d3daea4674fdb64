// A schedule file locked by another live process is reported by that process's pid — not waited on
// for half a minute, and not taken over while the holder lives.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { expect, it } from 'vitest';
import { createNotifier } from '../../../main/core/notify/dispatcher.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';

it('names the live holder of the schedule lock at once', async () => {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-schedule-lock-'));
  const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const logger = pino({ level: 'silent' });
  const notifier = createNotifier({ voice: () => null, discordText: null, sfxEnabled: false, logger });
  const file = scheduleFilePath(home);
  const scheduler = createScheduler({ file, notifier, logger });
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    symlinkSync(String(holder.pid), `${file}.lock`);
    const error = await scheduler.schedule({ text: 'Tea is ready', delay_seconds: 60 }).then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(error?.message).toContain(`process ${holder.pid}`);
    expect(error?.message).toContain(`${file}.lock`);
  } finally {
    holder.kill('SIGKILL');
    notifier.webhook.close();
    rmSync(home, { recursive: true, force: true });
  }
}, 20_000);
