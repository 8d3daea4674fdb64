// A notes database for tests: the real one (store/database.ts) in `dir`, with its NotesStore, and
// NotesLogs writing to it. Closed by `close()` (afterEach).
import { silentLogger } from '../../main/core/log/logger.ts';
import { NotesLog, type NotesLogOptions } from '../../main/core/notes/notes-log.ts';
import { NotesStore } from '../../main/core/notes/notes-store.ts';
import { openDatabase, type OpenedDatabase } from '../../main/core/store/database.ts';

export interface NotesDb {
  database: OpenedDatabase;
  store: NotesStore;
  log(options?: Omit<NotesLogOptions, 'store'>): NotesLog;
  close(): void;
}

export function openNotesDb(dir: string): NotesDb {
  const database = openDatabase({ dir, logger: silentLogger() });
  const store = new NotesStore(database.db);
  return {
    database,
    store,
    log: (options = {}) => new NotesLog({ ...options, store }),
    close: () => database.db.open && database.close(),
  };
}
