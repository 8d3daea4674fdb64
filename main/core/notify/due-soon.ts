// Reminders due soon, as a few short lines, for a fresh model session that continues a call: after a
// refused resume (Gemini 3.8 ends a session at 58:00 and refuses to resume it, discuss thread 186392)
// the new session knows nothing of the call, and the seed (ports.ts `pendingContext`) tells it what
// is still coming, so "remind me in ten minutes" is not answered with "I have no reminder".
//
// The seed is built synchronously when the session opens, so the soonest scheduled entries are kept
// here, read again from the scheduler whenever the schedule changes (its `schedule` hub events), and
// the "in N min" is worked out when asked.
import type { Logger } from 'pino';
import type { EventHub } from '../event-hub.ts';
import type { ScheduleEntryView, Scheduler } from './scheduler.ts';

export interface DueSoonOptions {
  scheduler: Pick<Scheduler, 'list'>;
  hub: EventHub;
  logger: Logger;
  /** Only reminders due within this many seconds are mentioned. Default 2 h. */
  horizonS?: number;
  /** At most this many reminders. Default 5. */
  limit?: number;
  /** Wall clock, ms. */
  now?: () => number;
}

/** A reminder's text is cut to this many characters in the seed. */
const MAX_TEXT_CHARS = 160;

export interface DueSoonReminders {
  /** "Reminders scheduled in this call's time: …", or undefined when none is due within the horizon. */
  text(): string | undefined;
  stop(): void;
}

function minutesText(seconds: number): string {
  if (seconds < 60) return 'in under a minute';
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `in ${minutes} min` : `in ${Math.round(minutes / 60)} h`;
}

export function startDueSoonReminders(options: DueSoonOptions): DueSoonReminders {
  const horizonS = options.horizonS ?? 2 * 3600;
  const limit = options.limit ?? 5;
  const now = options.now ?? Date.now;
  let soonest: ScheduleEntryView[] = [];
  let stopped = false;
  let reading: Promise<void> | null = null;
  let again = false;

  // One read at a time; a change during a read asks for one more.
  const refresh = (): void => {
    if (stopped) return;
    if (reading) {
      again = true;
      return;
    }
    reading = options.scheduler
      .list({ state: 'scheduled', limit })
      .then(
        (page) => {
          soonest = page.entries;
        },
        (err: unknown) =>
          options.logger.warn(
            { err: err instanceof Error ? err.message : String(err) },
            'could not read the reminders due soon',
          ),
      )
      .finally(() => {
        reading = null;
        if (again) {
          again = false;
          refresh();
        }
      });
  };
  const unsubscribe = options.hub.subscribe((event) => {
    if (event.type === 'schedule') refresh();
  });
  refresh();

  return {
    text() {
      const nowS = now() / 1000;
      const lines = soonest
        .filter((e) => e.fire_at_epoch >= nowS - 60 && e.fire_at_epoch - nowS <= horizonS)
        .map((e) => {
          const words = e.text.replace(/\s+/g, ' ').trim();
          const cut = words.length > MAX_TEXT_CHARS ? `${words.slice(0, MAX_TEXT_CHARS - 1)}…` : words;
          return `- ${minutesText(e.fire_at_epoch - nowS)}: "${cut}" (a reminder the user scheduled; it is delivered on its own)`;
        });
      return lines.length > 0 ? `Reminders due soon:\n${lines.join('\n')}` : undefined;
    },
    stop() {
      stopped = true;
      unsubscribe();
    },
  };
}
