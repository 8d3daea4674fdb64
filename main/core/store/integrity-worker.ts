// The database's full `integrity_check`, in a worker thread on its own read-only connection, so a
// year of calls (hundreds of MB, seconds of checking) never blocks the event loop (audio, HTTP).
// Resolves with null when the file is sound, else the problem in SQLite's words.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

// Plain JavaScript (eval: true): the worker needs no TypeScript loader, only better-sqlite3.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
let db;
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true, timeout: 5000 });
  const rows = db.pragma('integrity_check').map((r) => r.integrity_check);
  parentPort.postMessage(rows.length === 1 && rows[0] === 'ok' ? null : 'integrity_check: ' + rows.slice(0, 3).join('; '));
} catch (err) {
  const code = String(err && err.code);
  parentPort.postMessage(/^SQLITE_(CORRUPT|NOTADB)/.test(code) ? String(err.message) : null);
} finally {
  if (db) db.close();
}
`;

export function checkInWorker(file: string): Promise<string | null> {
  const module = fileURLToPath(import.meta.resolve('better-sqlite3'));
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, module } });
    worker.once('message', (problem: string | null) => resolve(problem));
    worker.once('error', reject);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`the integrity check stopped (exit ${code})`)));
  });
}
