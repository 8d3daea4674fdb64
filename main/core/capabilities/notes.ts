// The call notes: the live log (every capability records into it) and the archive of recorded calls
// (GET /notes, the hand-off tool). Closing the log flushes the current call's file.
import path from 'node:path';
import type { Config } from '../config/index.ts';
import type { EventHub } from '../event-hub.ts';
import type { Capability } from '../lifecycle.ts';
import { NotesArchive } from '../notes/notes-archive.ts';
import { NotesLog } from '../notes/notes-log.ts';

export interface NotesApi {
  notes: NotesLog;
  archive: NotesArchive;
}

export const notesCapability: Capability<{ config: Config; hub: EventHub }, NotesApi> = {
  name: 'notes',
  start({ config, hub }) {
    const dir = path.join(config.paths.voiceUsers, 'notes');
    const notes = new NotesLog({ dir, hub });
    return { api: { notes, archive: new NotesArchive(dir) }, stop: () => notes.close() };
  },
};
