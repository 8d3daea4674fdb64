// Pure formatting and filtering for the dashboard (no DOM), unit-tested in Node.
import { formatMoment } from './moment-format.ts';
import type {
  DaveSpeakerHealth,
  DaveStatus,
  HealthReport,
  LatencySummary,
  NoteEvent,
  NoteKind,
  NotifyMode,
  NotifyResult,
} from '../main/core/api-types.ts';

export const NOTIFY_MODE_CHOICES = [
  'auto',
  'voice',
  'dm',
  'channel',
  'webhook',
  'all',
] as const satisfies readonly NotifyMode[];
// Compile-time check that the list above names every mode the API knows.
const everyModeListed: Record<NotifyMode, true> = {
  auto: true,
  voice: true,
  dm: true,
  channel: true,
  webhook: true,
  all: true,
};
void everyModeListed;

export const MODE_LABELS: Record<NotifyMode, string> = {
  auto: 'Auto (first that works)',
  voice: 'Voice (spoken in the call)',
  dm: 'Direct message',
  channel: 'Text channel',
  webhook: 'Webhook',
  all: 'All at once',
};

/** Milliseconds for an axis label: whole numbers from 10 up, two significant digits below (0.25, not 0). */
export function formatMs(ms: number): string {
  return ms >= 10 ? String(Math.round(ms)) : String(Number(ms.toPrecision(2)));
}

/** A duration for an axis: `45 s`, `3 min`, `1 h 10 min`. */
export function formatSpan(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 120) return `${s} s`;
  const m = Math.round(s / 60);
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** `in 1 h 02 m`, `in 4 m 05 s`, `in 9 s`, `due now`. */
export function formatCountdown(secondsLeft: number): string {
  if (secondsLeft <= 0) return 'due now';
  const s = Math.ceil(secondsLeft);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `in ${h} h ${String(m).padStart(2, '0')} m`;
  if (m > 0) return `in ${m} m ${String(sec).padStart(2, '0')} s`;
  return `in ${sec} s`;
}

/** RMS (0..1) → a 0..100 meter position on a dBFS scale from −60 dB (empty) to 0 dB (full). */
export function levelPercent(rms: number): number {
  if (!(rms > 0)) return 0;
  const db = 20 * Math.log10(rms);
  return Math.max(0, Math.min(100, Math.round(((db + 60) / 60) * 100)));
}

export type NoteFilterKind = 'all' | 'transcript' | 'notes' | 'system';

const KIND_GROUP: Record<NoteKind, Exclude<NoteFilterKind, 'all'>> = {
  input_transcript: 'transcript',
  output_transcript: 'transcript',
  note: 'notes',
  say: 'notes',
  notification: 'notes',
  tool_call: 'system',
  state: 'system',
  frame: 'system',
};

export const KIND_LABELS: Record<NoteKind, string> = {
  input_transcript: 'heard',
  output_transcript: 'model',
  note: 'note',
  say: 'say',
  notification: 'notified',
  tool_call: 'tool',
  state: 'state',
  frame: 'frame',
};

export function filterNotes(notes: readonly NoteEvent[], query: string, kind: NoteFilterKind): NoteEvent[] {
  const q = query.trim().toLowerCase();
  return notes.filter(
    (n) =>
      (kind === 'all' || KIND_GROUP[n.kind] === kind) &&
      (!q || n.text.toLowerCase().includes(q) || (n.speaker_name ?? n.speaker ?? '').toLowerCase().includes(q)),
  );
}

/** Plain text for the clipboard: one `[2026-12-02 09:00:17 Europe/Berlin] speaker: text` line per note. */
export function notesAsText(notes: readonly NoteEvent[], timeZone?: string): string {
  return notes
    .map((n) => `[${formatMoment(n.ts, timeZone)}] ${n.speaker_name ?? n.speaker ?? KIND_LABELS[n.kind]}: ${n.text}`)
    .join('\n');
}

/** Keep the newest `max` notes, dropping duplicates by id (snapshot + live stream may overlap). */
export function mergeNotes(existing: readonly NoteEvent[], incoming: readonly NoteEvent[], max = 500): NoteEvent[] {
  const seen = new Set(existing.map((n) => n.id));
  const merged = [...existing];
  for (const note of incoming) {
    if (seen.has(note.id)) continue;
    seen.add(note.id);
    merged.push(note);
  }
  merged.sort((a, b) => a.ts - b.ts);
  return merged.slice(-max);
}

export type WhenInput =
  { kind: 'delay'; amount: number; unit: 'seconds' | 'minutes' | 'hours' } | { kind: 'at'; local: string };

const UNIT_SECONDS = { seconds: 1, minutes: 60, hours: 3600 } as const;

/**
 * Epoch ms of a moment typed the page's way (`2026-12-02 09:00`, seconds optional) on the page's
 * clock; a full ISO time with its offset is taken too. Null when it is neither (or no such day).
 */
export function localMoment(text: string): number | null {
  const typed = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d)(?::(\d\d))?$/.exec(text);
  if (typed) {
    const [year, month, day, hour, minute, second] = typed.slice(1).map((part) => Number(part ?? 0)) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const at = new Date(year, month - 1, day, hour, minute, second);
    // new Date rolls 2026-02-30 over to March: a day that does not exist is refused, not moved.
    return at.getMonth() === month - 1 && at.getDate() === day && hour < 24 && minute < 60 && second < 60
      ? at.getTime()
      : null;
  }
  const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(iso) ? null : iso;
}

/**
 * When the form's reminder fires, as POST /schedule takes it: "in …" as a delay in whole seconds,
 * "at …" as the moment itself (`fire_at_epoch`), so a time typed on the page fires at that second
 * (now + a rounded delay would store it up to half a second early). An error message when it makes no sense.
 */
export function scheduleTimeFrom(
  when: WhenInput,
  nowMs: number,
): { delay_seconds: number } | { fire_at_epoch: number } | { error: string } {
  if (when.kind === 'delay') {
    if (!Number.isFinite(when.amount) || when.amount <= 0) return { error: 'Give a delay greater than zero.' };
    return { delay_seconds: Math.max(1, Math.round(when.amount * UNIT_SECONDS[when.unit])) };
  }
  const at = localMoment(when.local.trim());
  if (at === null) return { error: 'Type the date and time as 2026-12-02 09:00 (24 h, this page’s zone).' };
  if (at - nowMs < 1000) return { error: 'That time is in the past.' };
  return { fire_at_epoch: at / 1000 };
}

export interface LatencyPoint {
  ingressP50: number | null;
  ingressP95: number | null;
  egressP50: number | null;
  egressP95: number | null;
}

/** A summary with at least one sample (an empty histogram says nothing about latency). */
function isSummary(value: unknown): value is LatencySummary {
  return (
    typeof value === 'object' &&
    value !== null &&
    'p50_ms' in value &&
    'p95_ms' in value &&
    (value as LatencySummary).count > 0
  );
}

/** The latency plot's sample from one metrics event (`ingress_latency`, `egress_latency`). */
export function latencyPoint(metrics: Record<string, number | LatencySummary>): LatencyPoint {
  const ingress = metrics.ingress_latency;
  const egress = metrics.egress_latency;
  return {
    ingressP50: isSummary(ingress) ? ingress.p50_ms : null,
    ingressP95: isSummary(ingress) ? ingress.p95_ms : null,
    egressP50: isSummary(egress) ? egress.p50_ms : null,
    egressP95: isSummary(egress) ? egress.p95_ms : null,
  };
}

/** A round axis maximum (1, 2, 5 × 10ⁿ) at or above the largest value. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 10;
  const exp = Math.pow(10, Math.floor(Math.log10(value)));
  for (const step of [1, 2, 5, 10]) if (step * exp >= value) return step * exp;
  return 10 * exp;
}

/**
 * One line for the call panel's E2EE row: whether Discord's end-to-end encryption (DAVE) is on, the
 * epoch, the voice privacy code users can compare in their Discord client (in groups of five digits),
 * and decrypt trouble when there was any.
 */
export function describeDave(dave: DaveStatus | null | undefined): string {
  if (!dave || dave.protocol_version === null) return '—';
  const trouble =
    dave.decrypt_failures > 0
      ? ` · ${dave.decrypt_failures} decrypt failures, ${dave.recoveries} recovered${dave.rejoins ? `, ${dave.rejoins} rejoins` : ''}`
      : '';
  if (dave.protocol_version === 0) return `off (DAVE v0)${trouble}`;
  if (!dave.e2ee) return `setting up (audio held until encrypted)${trouble}`;
  const code = dave.privacy_code ? ` · code ${dave.privacy_code.replace(/(\d{5})(?=\d)/g, '$1 ')}` : '';
  return `on · epoch ${dave.epoch ?? '?'}${code}${trouble}`;
}

/** One speaker's E2EE receive state for the room view: decrypt ratio and epoch, or that they cannot be decrypted now. */
export function describeSpeakerDave(s: DaveSpeakerHealth | undefined): string {
  if (!s || s.packets === 0) return '';
  if (s.deaf) return `E2EE: cannot decrypt (${(s.deaf_ms / 1000).toFixed(1)} s, recovering)`;
  return `E2EE ${(100 * s.decrypt_ratio).toFixed(1)} %${s.epoch === null ? '' : ` · epoch ${s.epoch}`}`;
}

/** The dashboard's warning while anyone in the call cannot be decrypted (named by `nameOf`), else null. */
export function daveWarning(
  dave: DaveStatus | null | undefined,
  nameOf: (id: string) => string = (id) => id,
): string | null {
  const deaf = (dave?.speakers ?? []).filter((s) => s.deaf);
  if (deaf.length === 0) return null;
  const who = deaf.map((s) => `${nameOf(s.user_id)} (${(s.deaf_ms / 1000).toFixed(1)} s)`).join(', ');
  return `End-to-end encryption: the bridge cannot decrypt ${who} right now, so the model does not hear them. Recovering (new stream, then new DAVE keys, then a rejoin).`;
}

/**
 * The slow Opus fallback or a missing native piece, stated where the user looks (it is in /health
 * too), with what fixes it: the usual cause is a core started on another Node than the one the
 * addons were built for (a terminal's older Node; `npm run headless` and the demo now use the one in
 * .tools/), else addons never built for this Node, which `npm rebuild` builds.
 */
export function nativeWarning(health: Pick<HealthReport, 'audio' | 'native'> & { node?: string }): string | null {
  const problems: string[] = [];
  if (health.audio.opus.impl === 'wasm')
    problems.push(`Audio uses the slow WASM Opus codec: ${health.audio.opus.reason}.`);
  if (!health.native.sharp.available) problems.push(`sharp is missing: ${health.native.sharp.reason}.`);
  if (!health.native.davey.available) problems.push(`davey is missing: ${health.native.davey.reason}.`);
  if (!problems.length) return null;
  const runsOn = health.node ? `The core runs on Node ${health.node}. ` : '';
  return (
    `${problems.join(' ')} ${runsOn}Restart it with npm run headless or ./scripts/demo.sh, which use the Node in .tools/ that the native addons were built for; ` +
    'if this stays, rebuild them for the Node that runs it: source scripts/use-node22.sh && npm rebuild @discordjs/opus sharp @snazzah/davey'
  );
}

/** How the page stands with the core: not yet asked, following `/events`, lost it, or not signed in. */
export type PageLink = 'loading' | 'live' | 'disconnected' | 'signed-out';

/** What a voice call still needs, from `/health` (`not configured: voice calls need A, B`), or null. */
export function missingConfiguration(health: Pick<HealthReport, 'reasons'>): string | null {
  const prefix = 'not configured: voice calls need ';
  const reason = health.reasons.find((r) => r.startsWith(prefix));
  return reason ? reason.slice(prefix.length) : null;
}

/**
 * "Notify now"'s line: what happened per channel, and a kind that never shows a partial result as
 * success, nor an outcome that may have been delivered (`unknown`) as a failure to send again.
 */
export function describeNotifyResult(result: NotifyResult): { text: string; kind: 'ok' | 'warn' | 'error' } {
  const entries = Object.entries(result.results);
  const parts = entries.map(
    ([mode, outcome]) => `${mode}: ${outcome?.status}${outcome?.detail ? ` (${outcome.detail})` : ''}`,
  );
  const by = result.channel ?? result.channels?.join(', ');
  const maybe = entries.filter(([, outcome]) => outcome?.status === 'unknown').map(([mode]) => mode);
  const head =
    result.status === 'ok'
      ? `Delivered${by ? ` by ${by}` : ''}.`
      : result.status === 'partial'
        ? maybe.length
          ? `Partly delivered; ${maybe.join(', ')} may also have been delivered (not re-sent).`
          : 'Partly delivered.'
        : result.status === 'unknown'
          ? 'May have been delivered (not re-sent).'
          : 'Not delivered.';
  return {
    text: parts.length ? `${head} ${parts.join(', ')}` : head,
    kind: result.status === 'ok' ? 'ok' : result.status === 'error' ? 'error' : 'warn',
  };
}

/** `work`, or a rejection with `message` after `ms` (a capture that never answers must not hold the button forever). */
export function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
