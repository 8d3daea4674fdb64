// The notification scheduler: create (text, delay or date/time, mode), list with live countdowns
// and states, cancel; "Notify now" sends the same message immediately with the chosen mode.
import type { NotifyMode, ScheduledNotification } from '../main/core/api-types.ts';
import { api, friendlyMessage } from './api.ts';
import { byId, h, setBusy, status, toast } from './dom.ts';
import { formatRepeatLine, viewerTimezone } from './repeat-format.ts';
import { formatMoment } from './moment-format.ts';
import {
  describeNotifyResult,
  formatCountdown,
  MODE_LABELS,
  NOTIFY_MODE_CHOICES,
  scheduleTimeFrom,
  type WhenInput,
} from './format.ts';

const STATE_ORDER: Record<ScheduledNotification['state'], number> = {
  delivering: 0,
  scheduled: 1,
  failed: 2,
  expired: 3,
  delivered: 4,
  cancelled: 5,
};
/** The panel shows one page: the soonest pending entries and the latest finished ones. */
const PANEL_LIMIT = 200;

export class SchedulePanel {
  readonly #form = byId<HTMLFormElement>('schedule-form');
  readonly #text = byId<HTMLTextAreaElement>('sched-text');
  readonly #title = byId<HTMLInputElement>('sched-title');
  readonly #mode = byId<HTMLSelectElement>('sched-mode');
  readonly #amount = byId<HTMLInputElement>('sched-amount');
  readonly #unit = byId<HTMLSelectElement>('sched-unit');
  readonly #at = byId<HTMLInputElement>('sched-at');
  readonly #repeat = byId<HTMLSelectElement>('sched-repeat');
  readonly #list = byId<HTMLUListElement>('schedule-list');
  readonly #empty = byId('schedule-empty');
  readonly #status = byId('schedule-status');
  #entries: ScheduledNotification[] = [];
  /**
   * While the pointer is over the list, rows keep their places (a cancelled row stays where it was),
   * so a double click or a second click never lands on another reminder's Cancel. Re-sorted on leave.
   */
  #pointerInList = false;

  constructor() {
    this.#mode.replaceChildren(...NOTIFY_MODE_CHOICES.map((m) => h('option', { value: m }, MODE_LABELS[m])));
    // Every time in this panel is on this page's clock, except a repeating rule's own (named on its line).
    byId('schedule-zone').textContent = `Times in ${viewerTimezone()}`;
    // The page's one date format (a browser's date picker would show its locale's instead): an hour from now, as an example.
    this.#at.placeholder = formatMoment(Math.ceil(Date.now() / 3_600_000) * 3600 + 3600).replace(/ \S+$/, '');
    this.#form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.#schedule(byId<HTMLButtonElement>('sched-submit'));
    });
    const now = byId<HTMLButtonElement>('notify-now');
    now.addEventListener('click', () => void this.#notifyNow(now));
    this.#at.addEventListener('focus', () => this.#pickWhen('at'));
    this.#amount.addEventListener('focus', () => this.#pickWhen('delay'));
    setInterval(() => this.#tick(), 1000);
    this.#list.addEventListener('pointerenter', () => (this.#pointerInList = true));
    this.#list.addEventListener('pointerleave', () => {
      this.#pointerInList = false;
      this.setEntries(this.#entries);
    });
  }

  /** Live updates carry only the entries that changed; merge them by id. */
  merge(changed: readonly ScheduledNotification[]): void {
    const byId = new Map(this.#entries.map((e) => [e.id, e]));
    for (const e of changed) {
      const before = byId.get(e.id);
      // A reminder that fired while the page watched: say so where the user looks.
      if (
        before &&
        before.state !== e.state &&
        (e.state === 'delivered' || e.state === 'failed' || e.state === 'expired')
      )
        announceFired(e);
      byId.set(e.id, e);
    }
    this.setEntries([...byId.values()]);
  }

  setEntries(entries: readonly ScheduledNotification[]): void {
    const sorted = [...entries].sort(
      (a, b) =>
        STATE_ORDER[a.state] - STATE_ORDER[b.state] ||
        (a.state === 'scheduled' ? a.fire_at_epoch - b.fire_at_epoch : b.fire_at_epoch - a.fire_at_epoch),
    );
    this.#entries = this.#pointerInList ? keepPlaces(this.#entries, sorted) : sorted;
    this.#entries.length = Math.min(this.#entries.length, PANEL_LIMIT);
    this.#render();
  }

  #pickWhen(kind: 'delay' | 'at'): void {
    const radio = this.#form.querySelector<HTMLInputElement>(`input[name="sched-when"][value="${kind}"]`);
    if (radio) radio.checked = true;
  }

  #when(): WhenInput {
    const kind = this.#form.querySelector<HTMLInputElement>('input[name="sched-when"]:checked')?.value;
    return kind === 'at'
      ? { kind: 'at', local: this.#at.value }
      : {
          kind: 'delay',
          amount: Number(this.#amount.value),
          unit: this.#unit.value as 'seconds' | 'minutes' | 'hours',
        };
  }

  #message(): { text: string; mode: NotifyMode; title?: string } | null {
    const text = this.#text.value.trim();
    if (!text) {
      status(this.#status, 'Write the message first.', 'error');
      this.#text.focus();
      return null;
    }
    const title = this.#title.value.trim();
    return { text, mode: this.#mode.value as NotifyMode, ...(title ? { title } : {}) };
  }

  async #schedule(button: HTMLButtonElement): Promise<void> {
    const message = this.#message();
    if (!message) return;
    const when = scheduleTimeFrom(this.#when(), Date.now());
    if ('error' in when) return status(this.#status, when.error, 'error');
    setBusy(button, true, 'Scheduling…');
    try {
      // A repeat keeps the first occurrence's time of day, on this browser's clock.
      const repeat =
        this.#repeat.value === 'daily' || this.#repeat.value === 'weekdays' ? this.#repeat.value : undefined;
      const answer = await api.createSchedule({
        ...message,
        ...when,
        ...(repeat ? { repeat, timezone: Intl.DateTimeFormat().resolvedOptions().timeZone } : {}),
      });
      status(
        this.#status,
        `Scheduled for ${formatMoment(answer.fire_at_epoch)}${repeat ? `, then ${repeat === 'daily' ? 'every day' : 'every weekday'} at that time` : ''}.`,
        'ok',
      );
      this.#text.value = '';
      this.#title.value = '';
      await this.refresh();
    } catch (err) {
      status(this.#status, friendlyMessage(err), 'error');
    } finally {
      setBusy(button, false);
    }
  }

  async #notifyNow(button: HTMLButtonElement): Promise<void> {
    const message = this.#message();
    if (!message) return;
    setBusy(button, true, 'Sending…');
    try {
      const result = await api.notify(message);
      const outcome = describeNotifyResult(result);
      status(this.#status, outcome.text, outcome.kind);
    } catch (err) {
      status(this.#status, friendlyMessage(err), 'error');
    } finally {
      setBusy(button, false);
    }
  }

  async refresh(): Promise<void> {
    try {
      const [pending, finished] = await Promise.all([
        api.schedule('scheduled', PANEL_LIMIT),
        api.schedule(undefined, PANEL_LIMIT),
      ]);
      this.setEntries([...pending.entries, ...finished.entries.filter((e) => e.state !== 'scheduled')]);
    } catch (err) {
      status(this.#status, `Could not load the schedule: ${friendlyMessage(err)}`, 'error');
    }
  }

  async #cancel(entry: ScheduledNotification, button: HTMLButtonElement): Promise<void> {
    setBusy(button, true, 'Cancelling…');
    try {
      await api.cancelSchedule(entry.id);
      toast(`Cancelled “${entry.text}”.`, 'ok', { label: 'Undo', run: () => void this.#undoCancel(entry) });
      await this.refresh();
    } catch (err) {
      status(this.#status, `Could not cancel: ${friendlyMessage(err)}`, 'error');
      setBusy(button, false);
    }
  }

  /**
   * Undo a cancel: exactly what was cancelled, scheduled again (a new entry; the cancelled one stays
   * in the history). A repeating reminder comes back as a series: its rule and zone, its next time.
   */
  async #undoCancel(entry: ScheduledNotification): Promise<void> {
    const delay = Math.round(entry.fire_at_epoch - Date.now() / 1000);
    if (delay < 1 && !entry.repeat) return status(this.#status, 'Too late to undo: its time has passed.', 'error');
    // A keyword rule's time of day is given as `at` (from its cron), so a rounded delay cannot move
    // the series by a minute; a series whose next time just passed restarts at its rule's next one.
    const [minute = '0', hour = '0'] = entry.repeat?.cron.split(' ') ?? [];
    const keywordRule = entry.repeat?.rule === 'daily' || entry.repeat?.rule === 'weekdays';
    const series = entry.repeat
      ? {
          repeat: entry.repeat.rule,
          timezone: entry.repeat.timezone,
          ...(keywordRule ? { at: `${hour.padStart(2, '0')}:${minute.padStart(2, '0')}` } : {}),
        }
      : {};
    // The moment itself, not a delay: it comes back at its exact time (09:55:00, not 09:54:59.6).
    const when = delay >= 1 ? { fire_at_epoch: entry.fire_at_epoch } : {};
    try {
      const answer = await api.createSchedule({
        text: entry.text,
        mode: entry.mode,
        ...when,
        ...series,
        ...(entry.title ? { title: entry.title } : {}),
      });
      const line = entry.repeat
        ? formatRepeatLine({ ...entry, fire_at_epoch: answer.fire_at_epoch, state: 'scheduled' })
        : null;
      status(this.#status, line ? `Restored: ${line}.` : `Restored, for ${formatMoment(entry.fire_at_epoch)}.`, 'ok');
      await this.refresh();
    } catch (err) {
      status(this.#status, `Could not undo: ${friendlyMessage(err)}`, 'error');
    }
  }

  #render(): void {
    const now = Date.now() / 1000;
    this.#list.replaceChildren(
      ...this.#entries.map((entry) => {
        const cancel =
          entry.state === 'scheduled'
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'danger',
                  'aria-label': `Cancel “${entry.text}”`,
                  onclick: (e) => void this.#cancel(entry, e.currentTarget as HTMLButtonElement),
                },
                'Cancel',
              )
            : null;
        return h(
          'li',
          { 'data-id': entry.id, 'data-state': entry.state },
          h('span', { class: 'what' }, entry.title ? `${entry.title}: ${entry.text}` : entry.text),
          h(
            'span',
            { class: 'meta' },
            h('span', { class: 'badge', 'data-state': entry.state }, entry.state),
            h('span', {}, MODE_LABELS[entry.mode] ?? entry.mode),
            entry.state === 'scheduled'
              ? h(
                  'span',
                  { class: 'countdown', 'data-fire': entry.fire_at_epoch },
                  `${formatCountdown(entry.fire_at_epoch - now)} · ${formatMoment(entry.fire_at_epoch)}`,
                )
              : h(
                  'span',
                  {},
                  entry.state === 'delivered' && entry.delivered_at
                    ? `at ${formatMoment(entry.delivered_at)}${entry.late_by_seconds ? ' (late)' : ''}`
                    : formatMoment(entry.fire_at_epoch),
                ),
            entry.repeat ? h('span', { class: 'repeat' }, formatRepeatLine(entry)) : null,
            entry.last_error ? h('span', { class: 'error-text' }, entry.last_error) : null,
          ),
          h('span', { class: 'actions' }, cancel),
        );
      }),
    );
    this.#empty.hidden = this.#entries.length > 0;
  }

  #tick(): void {
    const now = Date.now() / 1000;
    for (const el of this.#list.querySelectorAll<HTMLElement>('.countdown')) {
      const fire = Number(el.dataset.fire);
      el.textContent = `${formatCountdown(fire - now)} · ${formatMoment(fire)}`;
    }
  }
}

/** Entries in the order already shown (new ones after them, in sorted order). */
function keepPlaces(
  shown: readonly ScheduledNotification[],
  sorted: readonly ScheduledNotification[],
): ScheduledNotification[] {
  const fresh = new Map(sorted.map((e) => [e.id, e]));
  const kept = shown.flatMap((e) => (fresh.has(e.id) ? [fresh.get(e.id)!] : []));
  const keptIds = new Set(kept.map((e) => e.id));
  return [...kept, ...sorted.filter((e) => !keptIds.has(e.id))];
}

function announceFired(entry: ScheduledNotification): void {
  const what = entry.title ? `${entry.title}: ${entry.text}` : entry.text;
  if (entry.state === 'delivered') toast(`Reminder delivered: ${what}`);
  else
    toast(
      `Reminder ${entry.state === 'expired' ? 'expired' : 'failed'}: ${what}${entry.last_error ? ` (${entry.last_error})` : ''}`,
      'error',
    );
}
