// The call notes: the live log (every capability records into it) and the store it writes to and
// /notes, /calls and the hand-off tool read (notes/notes-store.ts), in the database. A home written
// by release 0.3.5 has its per-call JSONL imported once here (the files stay, as a backup).
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { EventHub } from '../event-hub.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import { importLegacyNotes } from '../notes/legacy-import.ts';
import { NotesLog } from '../notes/notes-log.ts';
import { NotesStore } from '../notes/notes-store.ts';
import type { OpenedDatabase } from '../store/database.ts';
import { importLegacyLedger, LEGACY_LEDGER_FILE } from '../usage/ledger-store.ts';

export interface NotesApi {
  notes: NotesLog;
  archive: NotesStore;
}

/** Release 0.3.5's notes files and usage ledger, into the database once. */
function importLegacyHome(store: NotesStore, voiceUsers: string, logger: Logger): void {
  const log = moduleLogger(logger, 'store');
  const notesDir = path.join(voiceUsers, 'notes');
  const notes = importLegacyNotes(store, notesDir);
  if (notes)
    log.info(
      { ...notes, from: notesDir },
      `imported ${notes.notes} notes of ${notes.files} calls from the notes files (kept as a backup; remove ${notesDir} when you no longer need it)`,
    );
  const ledgerFile = path.join(voiceUsers, LEGACY_LEDGER_FILE);
  const ledger = importLegacyLedger(store.db, ledgerFile);
  if (ledger)
    log.info(
      { ...ledger, from: ledgerFile },
      `imported the usage ledger of ${ledger.day} (${ledger.calls} calls; the file is kept as a backup)`,
    );
}

export const notesCapability: Capability<
  { config: Config; logger: Logger; hub: EventHub; database: OpenedDatabase },
  NotesApi
> = {
  name: 'notes',
  start({ config, logger, hub, database }) {
    const store = new NotesStore(database.db);
    importLegacyHome(store, config.paths.voiceUsers, logger);
    const notes = new NotesLog({ store, hub });
    return { api: { notes, archive: store }, stop: () => notes.close() };
  },
};
