// What the client commands print for a person at a terminal: short sentences, tables with aligned
// columns cut to the terminal's width, times with their zone named. Scripts get JSON instead
// (`--json`, or whenever stdout is not a terminal, as before): see cli.ts.
import type { NotifyResult } from '../core/api-types.ts';
import type { ScheduleEntryView, ScheduleListPage } from '../core/notify/scheduler.ts';
import type { ScheduleCreated, SpokenTextAnswer } from '../core/sidecar-client/client.ts';
import { formatRelative, formatWhen } from './human-time.ts';

export interface Column<Row> {
  title: string;
  value: (row: Row) => string;
}

/** Aligned columns; the last one is cut (with …) so a row fits in `width` characters. */
export function table<Row>(rows: readonly Row[], columns: readonly Column<Row>[], width = 100): string {
  const cells = rows.map((row) => columns.map((c) => c.value(row).replace(/\s+/g, ' ')));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]): string => {
    const head = values
      .slice(0, -1)
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ');
    const room = Math.max(10, width - head.length - (values.length > 1 ? 2 : 0));
    const tail = values.at(-1)!;
    const cut = tail.length > room ? `${tail.slice(0, room - 1)}…` : tail;
    return (values.length > 1 ? `${head}  ${cut}` : cut).trimEnd();
  };
  return [line(columns.map((c) => c.title)), ...cells.map(line)].join('\n');
}

function repeatWords(entry: ScheduleEntryView): string {
  return entry.repeat ? `${entry.repeat.rule} (${entry.repeat.timezone})` : 'once';
}

export function scheduleTable(page: ScheduleListPage, zone: string, now: number, width?: number): string {
  if (page.entries.length === 0) return 'No reminders scheduled.';
  const rows = table(
    page.entries,
    [
      { title: 'ID', value: (e) => e.id },
      { title: 'WHEN', value: (e) => formatWhen(e.fire_at_epoch, e.repeat?.timezone ?? zone) },
      { title: 'IN', value: (e) => (e.state === 'scheduled' ? formatRelative(e.fire_at_epoch - now) : '') },
      { title: 'REPEATS', value: repeatWords },
      { title: 'MODE', value: (e) => e.mode },
      { title: 'STATE', value: (e) => e.state },
      { title: 'TEXT', value: (e) => (e.title ? `${e.title}: ${e.text}` : e.text) },
    ],
    width,
  );
  const more = page.next_cursor ? `\n… more: schedule --list --cursor ${page.next_cursor}` : '';
  return `${rows}${more}`;
}

export function scheduledLine(created: ScheduleCreated, zone: string, now: number): string {
  const entry = created.entry;
  const when = formatWhen(created.fire_at_epoch, entry.repeat?.timezone ?? zone);
  const repeats = entry.repeat ? `, then ${entry.repeat.rule} (${entry.repeat.timezone})` : '';
  return `Scheduled ${created.scheduled}: ${when} (${formatRelative(created.fire_at_epoch - now)})${repeats}, by ${entry.mode}.\nCancel with: live-voice-bridge schedule --cancel ${created.scheduled}`;
}

export function handedLine(answer: SpokenTextAnswer): string {
  return answer.as === 'message'
    ? `Sent to the model (${answer.chars} characters): it answers at the next pause in the conversation.`
    : `Queued (${answer.chars} characters): the model says it, word for word, at the next pause in the conversation.`;
}

export function notifyLine(result: NotifyResult): string {
  const outcomes = Object.entries(result.results)
    .map(([mode, o]) => `${mode}: ${o!.status}${o!.detail ? ` (${o!.detail})` : ''}`)
    .join('; ');
  const headline =
    result.status === 'ok'
      ? `Delivered by ${result.channel ?? result.channels?.join(', ') ?? 'every destination'}.`
      : `Not delivered: ${result.status}.`;
  return `${headline}\n${outcomes}`;
}

export { healthSummary, statusSummary } from './status-output.ts';
