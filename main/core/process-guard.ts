// Last resort for the headless process: a promise rejection or exception that no code handled must
// not take down the sidecar, the scheduler and a call in progress with it. Each is logged (with its
// stack) and counted in /health (`faults`); the process keeps running. The paths we know of handle
// their own errors (a malformed model frame is dropped and the socket resumed, guarded-socket.ts);
// this catches the ones we do not know of yet. Installed by the headless entry only: inside a test
// runner or Electron the host's own handler decides.
import type { Logger } from 'pino';
import { faultCounts } from './faults.ts';

let installed = false;

export function installLastResortHandlers(logger: Logger): void {
  if (installed) return;
  installed = true;
  const log = logger.child({ module: 'process' });
  process.on('unhandledRejection', (reason) => {
    faultCounts.unhandled_rejections++;
    log.error(
      { err: reason, count: faultCounts.unhandled_rejections },
      'unhandled promise rejection (kept running; counted in /health)',
    );
  });
  process.on('uncaughtException', (err, origin) => {
    faultCounts.uncaught_exceptions++;
    log.error(
      { err, origin, count: faultCounts.uncaught_exceptions },
      'uncaught exception (kept running; counted in /health)',
    );
  });
}
