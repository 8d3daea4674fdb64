// The schema's numbered migrations, oldest first. `PRAGMA user_version` holds how many have run; a
// new one is appended here (never edited once released) and runs once, inside a transaction.
import { sql as notes001 } from './001-notes.ts';
import { sql as schedule002 } from './002-schedule.ts';
import { sql as speakerPatience003 } from './003-speaker-patience.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: '001-notes', sql: notes001 },
  { version: 2, name: '002-schedule', sql: schedule002 },
  { version: 3, name: '003-speaker-patience', sql: speakerPatience003 },
];
