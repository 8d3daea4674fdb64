// The process measured by `npm run bench:store`: the real scheduler (on the database), notifier and
// notes store (the database, with the notes files bench/store.ts wrote imported at start, as a
// release-0.3.5 home is) behind the real sidecar routes, nothing else, so /proc readings are theirs alone.
// Like the core (core.ts) it has the opt-in idle trim (IdleMemoryTrim: one full GC once quiet for
// 5 s, only when started with --expose-gc); bench/store.ts starts it with the core's start-up options
// (main/core/core-node-flags.ts), as the launchers start the core.
// Prints `READY <port> <startupMs>` once the schedule is loaded and running; startupMs is the time
// scheduler.start() took (opening the database and starting the timer). With `--report-gc` after the
// token it also prints `GC <kind> <ms> <flags> <at>` for every garbage collection (Node's documented
// perf_hooks 'gc' entries: kind 1 minor, 4 major, 8 incremental, 16 weak callbacks; flags 32 "all
// external memory" marks V8's memory reducer; at = ms since the process began), so the bench and the
// idle test can count GCs by kind without --trace-gc. The observer runs only when a GC has happened.
import path from 'node:path';
import pino from 'pino';
import { reportGcTo } from './idle-watch.ts';
import { IdleMemoryTrim } from '../../main/core/idle-memory-trim.ts';
import { importLegacyNotes } from '../../main/core/notes/legacy-import.ts';
import { NotesStore } from '../../main/core/notes/notes-store.ts';
import { createNotifier } from '../../main/core/notify/dispatcher.ts';
import { scheduleFilePath } from '../../main/core/notify/schedule-store.ts';
import { createScheduler } from '../../main/core/notify/scheduler.ts';
import { registerNotesRoutes } from '../../main/core/sidecar/routes/notes.ts';
import { registerNotifyRoutes } from '../../main/core/sidecar/routes/notify.ts';
import { createSidecar } from '../../main/core/sidecar/server.ts';
import { openDatabase } from '../../main/core/store/database.ts';

const [home, token, ...options] = process.argv.slice(2);
if (options.includes('--report-gc')) reportGcTo(process.stdout);
const logger = pino({ level: 'silent' });
const notifier = createNotifier({ voice: () => null, discordText: null, sfxEnabled: false, logger });
// The cap is raised so the bench can fill the schedule to 100,000.
const scheduler = createScheduler({ file: scheduleFilePath(home!), notifier, logger, maxPending: 1_000_000 });
const archive = new NotesStore(openDatabase({ dir: path.join(home!, 'voice-users'), logger }).db);
importLegacyNotes(archive, path.join(home!, 'voice-users', 'notes'));
const memoryTrim = new IdleMemoryTrim({ quietMs: 5_000, mayTrim: () => true });
const sidecar = createSidecar({
  host: '127.0.0.1',
  port: 0,
  token: token!,
  logger,
  routes: [
    (app) =>
      app.addHook('onResponse', (_request, _reply, done) => {
        memoryTrim.poke();
        done();
      }),
    // The time this process spent on the request (from reading it to sending the reply), so the
    // bench can split a round trip into the core's work and everything outside it.
    (app) =>
      app.addHook('onSend', (_request, reply, payload, done) => {
        reply.header('x-core-ms', reply.elapsedTime.toFixed(3));
        done(null, payload);
      }),
    (app) => registerNotifyRoutes(app, { notifier, scheduler }),
    (app) => registerNotesRoutes(app, { archive }),
  ],
});
await sidecar.listen();
const started = performance.now();
await scheduler.start();
const startupMs = performance.now() - started;
memoryTrim.poke();
process.stdout.write(`READY ${new URL(sidecar.url).port} ${startupMs.toFixed(1)}\n`);
