// The embedded database (store/database.ts), opened first: the notes, their search and the usage
// ledger live in it. A damaged file was set aside at open (the log says so at error level, with
// where it went and what was restored). Closed last, after everything that writes to it stopped.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import { openDatabase, type OpenedDatabase } from '../store/database.ts';

export const storeCapability: Capability<{ config: Config; logger: Logger }, { database: OpenedDatabase }> = {
  name: 'store',
  start({ config, logger }) {
    const database = openDatabase({ dir: config.paths.voiceUsers, logger: moduleLogger(logger, 'store') });
    return { api: { database }, stop: () => database.close() };
  },
};
