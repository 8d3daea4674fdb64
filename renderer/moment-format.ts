// The page's one way of writing a moment: `2026-12-02 09:00 Europe/Berlin` — ISO date, 24-hour
// time, seconds only when they are not :00, and the IANA zone named (the CLI writes the same).
// Pure (no DOM), unit-tested in Node.

/** The viewer's IANA zone (the browser's). */
export function viewerTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** `2026-12-02 09:00 Europe/Berlin`, or `2026-12-02 09:00:17 Europe/Berlin`, from epoch seconds (the second it falls in). */
export function formatMoment(epochSeconds: number, timeZone: string = viewerTimezone()): string {
  const parts = formatterFor(timeZone).formatToParts(new Date(Math.floor(epochSeconds) * 1000));
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? '';
  const seconds = part('second');
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}${seconds === '00' ? '' : `:${seconds}`} ${timeZone}`;
}
