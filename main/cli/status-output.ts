// `status` and `health` for a person at a terminal: what is true now, in words. The call, the
// Discord bot and the model are told apart — after Leave the bot is still logged in and only the
// voice call ended — and the microphone line says there is no call when there is none.
import type { ScheduleListPage } from '../core/notify/scheduler.ts';
import type { HealthReport } from '../core/sidecar-client/client.ts';
import { formatRelative, formatWhen } from './human-time.ts';

type Row = [label: string, value: string];

/** "5 min": how long ago `epoch` was. */
function durationSince(epoch: number, nowSeconds: number): string {
  return formatRelative(nowSeconds - epoch).replace(/^in /, '');
}

/** A call is up in these states (parked: the model sleeps after a quiet spell, the voice call stays). */
function callIsUp(state: HealthReport['bridge']['state']): boolean {
  return state === 'connected' || state === 'reconnecting' || state === 'connecting' || state === 'parked';
}

function callRow(bridge: HealthReport['bridge'], nowSeconds: number): string {
  if (!callIsUp(bridge.state))
    return `none${bridge.state === 'idle' ? '' : ` (${bridge.state}${bridge.reason ? `: ${bridge.reason}` : ''})`}`;
  const parked =
    bridge.state === 'parked' ? ': the model is parked after a quiet spell and wakes when someone speaks' : '';
  return `${bridge.state}${bridge.since !== undefined ? ` for ${durationSince(bridge.since, nowSeconds)}` : ''}${bridge.call_id ? ` (call ${bridge.call_id})` : ''}${parked}`;
}

/** The bot's gateway login and, apart from it, the voice connection of the call. */
function discordRow(health: HealthReport, inCall: boolean): string | null {
  const bot = health.discord_bot;
  const voice = inCall ? `voice ${health.connections?.discord ?? 'unknown'}` : 'no voice call';
  // A sidecar older than `discord_bot`: only the call's voice connection is known.
  if (!bot) return health.connections ? voice : null;
  if (!bot.configured) return 'no bot configured (set DISCORD_BOT_TOKEN and DISCORD_VOICE_LIVE_USER_ID)';
  return `${bot.logged_in ? 'bot logged in (gateway connected)' : 'bot not logged in yet (retrying)'}; ${voice}`;
}

function modelRow(health: HealthReport, inCall: boolean): string | null {
  const model = health.live_model as { provider?: string; model?: string } | undefined;
  if (!model?.provider) return null;
  const name = `${model.provider}${model.model ? ` (${model.model})` : ''}`;
  if (health.bridge.state === 'parked') return `${name}, parked (no session until someone speaks)`;
  return inCall ? `${name}, ${health.connections?.model ?? 'unknown'}` : `${name}, connects when a call starts`;
}

function microphoneRow(talk: NonNullable<HealthReport['talk']>, inCall: boolean): string {
  if (!inCall) {
    const next = talk.muted
      ? 'muted: a call would start muted'
      : talk.ptt.enabled
        ? 'push-to-talk is on for the next call'
        : 'open for the next call';
    return `no call, nothing is heard (${next})`;
  }
  if (talk.muted) return 'MUTED: no voice reaches the model';
  if (talk.ptt.enabled)
    return `push-to-talk (${talk.ptt.held ? 'held: the model hears you' : 'not held: the model hears nobody'})`;
  return 'open: the model hears the call';
}

/** The rows both `status` and `health` start with: the call, Discord, the model, the microphone. */
function callRows(health: HealthReport, nowSeconds: number): Row[] {
  const inCall = callIsUp(health.bridge.state);
  const rows: Row[] = [['Call', callRow(health.bridge, nowSeconds)]];
  const discord = discordRow(health, inCall);
  if (discord) rows.push(['Discord', discord]);
  const model = modelRow(health, inCall);
  if (model) rows.push(['Model', model]);
  if (health.talk) rows.push(['Microphone', microphoneRow(health.talk, inCall)]);
  return rows;
}

function headline(health: HealthReport): string {
  return `Live Voice Bridge ${health.version}: ${health.status} (running for ${formatRelative(health.uptime_s).replace(/^in /, '')})`;
}

function layout(first: string, rows: Row[], reasons: readonly string[]): string {
  const labelWidth = Math.max(...rows.map(([k]) => k.length));
  const lines = [first, ...rows.map(([k, v]) => `  ${`${k}:`.padEnd(labelWidth + 1)}  ${v}`)];
  if (reasons.length) lines.push('  Needs attention:', ...reasons.map((reason) => `    - ${reason}`));
  return lines.join('\n');
}

/**
 * `status`: one screen that answers "is it running, am I in a call, does the model hear me, what is
 * next". `reminders` is the next page, or why it could not be read (no token to read it with).
 */
export function statusSummary(
  health: HealthReport,
  reminders: ScheduleListPage | string | null,
  zone: string,
  nowSeconds: number,
): string {
  const rows = callRows(health, nowSeconds);
  if (typeof reminders === 'string') rows.push(['Reminders', `not shown: ${reminders}`]);
  else if (reminders) {
    const next = reminders.entries[0];
    rows.push([
      'Reminders',
      next
        ? `${reminders.pending} pending; next ${formatWhen(next.fire_at_epoch, next.repeat?.timezone ?? zone)} (${formatRelative(next.fire_at_epoch - nowSeconds)}): ${next.text}`
        : 'none scheduled',
    ]);
  }
  return layout(headline(health), rows, health.reasons);
}

interface Native {
  opus?: { impl?: string; library?: string; reason?: string };
  sharp?: { available?: boolean };
  davey?: { available?: boolean };
}

/** `health` on a terminal: the same rows as `status`, then the process, audio and traffic in a few lines. */
export function healthSummary(health: HealthReport, nowSeconds: number): string {
  const rows = callRows(health, nowSeconds);
  const audio = health.audio as Native | undefined;
  const native = health.native as Native | undefined;
  if (audio?.opus)
    rows.push([
      'Opus',
      audio.opus.impl === 'native'
        ? `native (${audio.opus.library ?? '@discordjs/opus'})`
        : `${audio.opus.impl ?? 'unknown'}: ${audio.opus.reason ?? ''}`.trim(),
    ]);
  if (native)
    rows.push([
      'Native',
      `sharp ${native.sharp?.available ? 'loaded' : 'missing'}, davey ${native.davey?.available ? 'loaded' : 'missing'}`,
    ]);
  const memory = health.memory as { rss_mb?: number; heap_used_mb?: number } | undefined;
  const pid = typeof health.pid === 'number' ? `pid ${health.pid}` : '';
  const node = typeof health.node === 'string' ? `Node ${health.node}` : '';
  const memoryText =
    memory?.rss_mb !== undefined ? `${memory.rss_mb} MB resident, ${memory.heap_used_mb ?? '?'} MB heap` : '';
  const processText = [pid, node, memoryText].filter(Boolean).join(', ');
  if (processText) rows.push(['Process', processText]);
  const m = health.metrics as Record<string, unknown> | undefined;
  const count = (key: string): number => (typeof m?.[key] === 'number' ? (m[key] as number) : 0);
  if (m)
    rows.push([
      'Audio frames',
      `${count('frames_in')} in, ${count('frames_out')} out, ${count('dropped_frames')} dropped; ${count('reconnects')} reconnects`,
    ]);
  return `${layout(headline(health), rows, health.reasons)}\nThe whole report: live-voice-bridge health --json`;
}
