// The notification tools for the live model, the sidecar's /tools route and the CLI:
// local_notify, local_notify_schedule (schedule | list | cancel on one tool) and
// local_delegate_execute (start | list | status | cancel on one tool).
// Multi-form tools take one flat object (not a union) because live-model function declarations
// handle plain objects best; run() picks the form and refuses ambiguous calls.
import { z } from 'zod';
import type { NotifyResult } from '../api-types.ts';
import { defineTool, type ToolContext, type ToolRegistry } from '../tools/registry.ts';
import type { DelegateSessionView, DelegateWatcher } from './delegate.ts';
import type { Notifier } from './dispatcher.ts';
import type { ScheduleEntryView, Scheduler } from './scheduler.ts';
import { NotifyInputError } from './types.ts';
import { MAX_DELAY_SECONDS, notifyModeSchema, notifyRequestSchema, sourceSchema, titleSchema } from './validation.ts';

export interface NotifyToolDeps {
  notifier: Pick<Notifier, 'deliver'>;
  scheduler: Pick<Scheduler, 'schedule' | 'list' | 'cancel'>;
  /** Omit to leave local_delegate_execute unregistered. */
  delegates?: DelegateWatcher;
  /**
   * Owner-only gate for starting/cancelling delegates (e.g. "the current speaker is the owner").
   * Required with `delegates`: the composer decides who may run commands on this machine.
   */
  canDelegate?: (ctx: ToolContext) => boolean;
}

export const localNotifyArgs = notifyRequestSchema;

/** Entries per page of local_notify_schedule's list form (a page the model can read in one go). */
export const SCHEDULE_TOOL_PAGE = 50;

// Strict, like POST /schedule: an unknown argument (`tz` for `timezone`) is refused as invalid_args
// naming it, never dropped (a dropped `tz` read the time in the machine's zone without a word).
export const scheduleToolArgs = z.strictObject({
  text: z.string().optional().describe('Schedule form: the message to deliver later.'),
  delay_seconds: z
    .number()
    .optional()
    .describe(`Schedule form: seconds from now, 0 to ${MAX_DELAY_SECONDS} (30 days).`),
  mode: notifyModeSchema.optional().describe('Schedule form: delivery mode, default auto.'),
  repeat: z
    .string()
    .max(200)
    .optional()
    .describe(
      'Schedule form, repeating: "daily", "weekdays" or a 5-field cron expression; delay_seconds is then optional.',
    ),
  at: z.string().max(10).optional().describe('With repeat daily/weekdays: time of day "HH:MM" (24 h).'),
  timezone: z.string().max(100).optional().describe("With repeat: IANA timezone, default the machine's."),
  title: titleSchema.optional(),
  source: sourceSchema.optional(),
  list: z.boolean().optional().describe('List form: true to list scheduled entries (soonest first, 50 a page).'),
  cursor: z
    .string()
    .max(500)
    .optional()
    .describe('List form: the next_cursor of the previous list answer, to get the next page.'),
  cancel_id: z.string().max(100).optional().describe('Cancel form: the id returned as `scheduled`.'),
});

export const delegateToolArgs = z.object({
  prompt: z.string().optional().describe('Start form: the task for the delegate agent.'),
  label: z.string().max(80).optional().describe('Start form: a short name for the session.'),
  list: z.boolean().optional().describe('List form: true to list sessions.'),
  status_id: z.string().max(100).optional().describe('Status form: session id.'),
  cancel_id: z.string().max(100).optional().describe('Cancel form: session id to stop.'),
});

export type ScheduleToolResult =
  | { scheduled: string; fire_at_epoch: number }
  | { entries: ScheduleEntryView[]; next_cursor: string | null; pending: number }
  | { cancelled: string; entry: ScheduleEntryView };

export type DelegateToolResult =
  | { started: string; session: DelegateSessionView }
  | { sessions: DelegateSessionView[] }
  | { session: DelegateSessionView }
  | { cancelling: string; session: DelegateSessionView };

function oneForm(forms: Record<string, boolean>): string {
  const given = Object.entries(forms)
    .filter(([, on]) => on)
    .map(([name]) => name);
  if (given.length > 1) throw new NotifyInputError('ambiguous_form', `give one form only, not ${given.join(' and ')}`);
  return given[0] ?? 'default';
}

export function registerNotifyTools(registry: ToolRegistry, deps: NotifyToolDeps): void {
  registry.register(notifyTool(deps.notifier));
  registry.register(scheduleTool(deps.scheduler));
  const delegates = deps.delegates;
  if (!delegates) return;
  if (!deps.canDelegate) throw new Error('registerNotifyTools: delegates need a canDelegate (owner-only) gate');
  registry.register(delegateTool(delegates, deps.canDelegate));
}

/** local_notify: a notification delivered now. */
function notifyTool(notifier: NotifyToolDeps['notifier']) {
  return defineTool({
    name: 'local_notify',
    description:
      'Deliver a notification to the user now. mode: voice (in the live call; when you call this yourself, the result has voice.say_now: say that text now, in this turn), dm, channel, webhook, auto (default: voice → dm → channel → webhook, first success) or all. Returns per-mode results. ' +
      'Set urgent: true only for an alert that must interrupt the user now (something is broken, a deadline is minutes away): it skips the webhook throttle; leave it out for everything else. For a task result just answer in the call; for a reminder the user asked for use local_notify_schedule.',
    args: localNotifyArgs,
    // The live model's own call: a voice text comes back in the result for it to say now.
    run: (args, ctx): Promise<NotifyResult> =>
      notifier.deliver(
        { ...args, source: args.source ?? ctx.caller },
        ctx.caller === 'model' ? { fromLiveModel: true } : undefined,
      ),
  });
}

/** local_notify_schedule: the reminders, set, listed or cancelled. */
function scheduleTool(scheduler: NotifyToolDeps['scheduler']) {
  return defineTool({
    name: 'local_notify_schedule',
    description:
      'Reminders the user asked for. Schedule: {text, delay_seconds, mode} → {scheduled: id, fire_at_epoch}; repeating: {text, repeat, at?, timezone?}. List: {list: true} → {entries, next_cursor, pending}; when next_cursor is not null, call {list: true, cursor: next_cursor} for the next page. Cancel: {cancel_id} (a repeating one: cancels the series). Entries persist across restarts.',
    args: scheduleToolArgs,
    // Anyone allowed may set or list a reminder; only the owner may cancel one by voice.
    authorityFor: (args) => (args.cancel_id !== undefined ? 'owner' : 'speakers'),
    ownerOnlyForms: 'cancel',
    async run(args, ctx): Promise<ScheduleToolResult> {
      // A cursor alone asks for the next page of the list.
      const form = oneForm({
        list: args.list === true || args.cursor !== undefined,
        cancel: args.cancel_id !== undefined,
      });
      if (form === 'list') {
        // The model sees what is still to come, soonest first, one bounded page; next_cursor gets the next.
        const page = await scheduler.list({
          state: 'scheduled',
          limit: SCHEDULE_TOOL_PAGE,
          cursor: args.cursor,
        });
        return { entries: page.entries, next_cursor: page.next_cursor, pending: page.pending };
      }
      if (form === 'cancel') {
        const entry = await scheduler.cancel(args.cancel_id!);
        return { cancelled: entry.id, entry };
      }
      const entry = await scheduler.schedule({
        text: args.text,
        delay_seconds: args.delay_seconds,
        mode: args.mode,
        repeat: args.repeat,
        at: args.at,
        timezone: args.timezone,
        title: args.title,
        source: args.source ?? ctx.caller,
      });
      return { scheduled: entry.id, fire_at_epoch: entry.fire_at_epoch };
    },
  });
}

/** local_delegate_execute: a long task handed to the delegate agent, its sessions listed, read, cancelled. */
function delegateTool(delegates: DelegateWatcher, canDelegate: (ctx: ToolContext) => boolean) {
  return defineTool({
    name: 'local_delegate_execute',
    description:
      'Hand a long task to the configured delegate agent; the user is notified (auto mode) when it finishes. Start: {prompt, label?} → {started: id}. List: {list: true}. Status: {status_id}. Cancel: {cancel_id}.',
    args: delegateToolArgs,
    // Starting or cancelling runs a command on the owner's machine: the owner's voice only.
    authorityFor: (args) => (args.list === true || args.status_id !== undefined ? 'speakers' : 'owner'),
    ownerOnlyForms: 'start, cancel',
    async run(args, ctx): Promise<DelegateToolResult> {
      const form = oneForm({
        list: args.list === true,
        status: args.status_id !== undefined,
        cancel: args.cancel_id !== undefined,
      });
      if (form === 'list') return { sessions: delegates.list() };
      if (form === 'status') return { session: delegates.status(args.status_id!) };
      if (!canDelegate(ctx))
        throw new NotifyInputError('forbidden', 'only the owner can start or cancel delegate sessions');
      if (form === 'cancel') return { cancelling: args.cancel_id!, session: delegates.cancel(args.cancel_id!) };
      // Answers only once the command is running; a command that cannot start is refused
      // (503 delegate_unavailable), never reported as started.
      const session = await delegates.start(args.prompt ?? '', args.label);
      return { started: session.id, session };
    },
  });
}
