// The schema's numbered migrations, oldest first. `PRAGMA user_version` holds how many have run; a
// new one is appended here (never edited once released) and runs once, inside a transaction.
import { sql as notes001 } from './001-notes.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [{ version: 1, name: '001-notes', sql: notes001 }];
