// Logs go to the app's logs folder (Linux/Windows: inside userData; macOS: ~/Library/Logs/<app>),
// one `main.log` with one previous generation kept, so the folder stays bounded.
import { renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { app } from 'electron';
import pino from 'pino';
import { createLogger, type Logger } from '../core/log/logger.ts';

const MAX_LOG_BYTES = 5 * 1024 * 1024;

export function logsFolder(): string {
  app.setAppLogsPath();
  return app.getPath('logs');
}

export function createAppLogger(options: {
  level: string;
  secrets: readonly string[];
  redactText?: (text: string) => string;
}): Logger {
  const file = path.join(logsFolder(), 'main.log');
  try {
    if (statSync(file).size > MAX_LOG_BYTES) renameSync(file, `${file}.1`);
  } catch {
    // No log yet.
  }
  return createLogger({
    level: options.level,
    secrets: options.secrets,
    redactText: options.redactText,
    destination: pino.destination({ dest: file, mkdir: true, sync: false }),
  });
}
