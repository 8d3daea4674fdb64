// The dashboard's only way to the core: the sidecar HTTP API, with the session cookie the login
// URL set. Every failure becomes an ApiError with a message a person can act on.
import type {
  ApiErrorBody,
  HealthReport,
  McpApprovalView,
  NoteEvent,
  NotifyMode,
  NotifyResult,
  RoomView,
  ScheduledNotification,
  SpeakerPatienceView,
  TalkState,
} from '../main/core/api-types.ts';
import type {
  CallSummary,
  DiscordCheckResult,
  ModelCheckResult,
  SettingsPatch,
  SettingsResponse,
  SetupStateResponse,
} from '../main/core/sidecar-client/wire-types.ts';

export type { SettingsResponse };

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** Field → what is wrong, in plain words (form answers). */
  readonly fields: Record<string, string>;
  constructor(status: number, code: string, message: string, fields: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

const FRIENDLY: Record<string, string> = {
  unauthorized:
    'This page is not signed in. Open a fresh login link (run `live-voice-bridge dashboard`, or use the tray’s “Open dashboard”).',
  no_call: 'There is no live call. Join voice first.',
  ptt_off: 'Push-to-talk is off: the model already hears you. Switch push-to-talk on to use the hold button.',
  not_configured: 'The bridge is not set up yet: open Set up (/setup) to enter and test the token, owner and key.',
};

export function friendlyMessage(error: unknown): string {
  if (error instanceof ApiError) {
    const hint = FRIENDLY[error.code];
    return hint && error.code !== 'not_configured' ? hint : hint ? `${error.message} — ${hint}` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

async function request<T>(method: string, path: string, body?: BodyInit, contentType?: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      body,
      headers: contentType ? { 'content-type': contentType } : {},
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'unreachable', 'The sidecar is not reachable. Is Live Voice Bridge still running?');
  }
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON; handled below.
  }
  if (!response.ok) {
    const error = (parsed as Partial<ApiErrorBody> | null)?.error;
    throw new ApiError(
      response.status,
      error?.code ?? `http_${response.status}`,
      error?.message ?? `${method} ${path} failed with HTTP ${response.status}`,
      error?.fields,
    );
  }
  return parsed as T;
}

const json = (value: unknown) => JSON.stringify(value);

/** A file the core serves, as the body's bytes (with the session cookie, like every request). */
async function download(path: string): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin', cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'unreachable', 'The sidecar is not reachable. Is Live Voice Bridge still running?');
  }
  if (response.ok) return response.blob();
  const error = ((await response.json().catch(() => null)) as Partial<ApiErrorBody> | null)?.error;
  throw new ApiError(
    response.status,
    error?.code ?? `http_${response.status}`,
    error?.message ?? `GET ${path} failed with HTTP ${response.status}`,
    error?.fields,
  );
}

export interface FrameAnswer {
  status: 'sent' | 'dropped';
  input_type?: string;
  [key: string]: unknown;
}

export const api = {
  health: () => request<HealthReport>('GET', '/health'),
  join: () => request<unknown>('POST', '/join', json({}), 'application/json'),
  leave: () => request<unknown>('GET', '/leave?by=dashboard'),
  say: (text: string) =>
    request<{ status: string; chars: number; id: string }>(
      'POST',
      '/say',
      json({ text, source: 'dashboard' }),
      'application/json',
    ),
  notes: (limit = 200) => request<{ notes: NoteEvent[] }>('GET', `/notes?limit=${limit}`),
  calls: (limit = 100) => request<{ calls: CallSummary[]; next_before: string | null }>('GET', `/calls?limit=${limit}`),
  searchNotes: (q: string) =>
    request<{ hits: Array<{ call_id: string; at: number; speaker: string | null; snippet: string }> }>(
      'GET',
      `/notes/search?q=${encodeURIComponent(q)}&limit=20`,
    ),
  /** One call's export (GET /calls/:id/export): Markdown, or JSON with its summary. */
  exportCall: (callId: string, format: 'md' | 'json') =>
    download(`/calls/${encodeURIComponent(callId)}/export?format=${format}`),
  callNotes: (callId: string) =>
    request<{ notes: NoteEvent[]; next_before: string | null }>(
      'GET',
      `/notes?call=${encodeURIComponent(callId)}&limit=500`,
    ),
  frame: (image: Blob) => request<FrameAnswer>('POST', '/frame', image, image.type || 'application/octet-stream'),
  notify: (body: { text: string; mode: NotifyMode; title?: string }) =>
    request<NotifyResult>('POST', '/notify', json({ ...body, source: 'dashboard' }), 'application/json'),
  schedule: (state?: ScheduledNotification['state'], limit = 200) =>
    request<{ entries: ScheduledNotification[]; next_cursor: string | null }>(
      'GET',
      `/schedule?limit=${limit}${state ? `&state=${state}` : ''}`,
    ),
  /** `repeat`: "daily", "weekdays" or a 5-field cron expression (an Undo restores a series' rule as given). */
  createSchedule: (body: {
    text: string;
    delay_seconds?: number;
    fire_at_epoch?: number;
    mode: NotifyMode;
    title?: string;
    repeat?: string;
    timezone?: string;
    at?: string;
  }) =>
    request<{ scheduled: string; fire_at_epoch: number }>(
      'POST',
      '/schedule',
      json({ ...body, source: 'dashboard' }),
      'application/json',
    ),
  cancelSchedule: (id: string) => request<unknown>('DELETE', `/schedule/${encodeURIComponent(id)}`),
  handoff: (body: { call_id?: string }) =>
    request<Record<string, unknown>>('POST', '/handoff', json(body), 'application/json'),
  settings: () => request<SettingsResponse>('GET', '/settings'),
  saveSettings: (patch: SettingsPatch) =>
    request<SettingsResponse>('PUT', '/settings', json(patch), 'application/json'),
  room: () => request<RoomView>('GET', '/room'),
  resetPatience: (speakerId: string) =>
    request<{ reset: SpeakerPatienceView }>('DELETE', `/room/patience/${encodeURIComponent(speakerId)}`),
  setupState: () => request<SetupStateResponse>('GET', '/setup/state'),
  testDiscord: (body: { token?: string; ownerId?: string; guildId?: string; voiceChannelId?: string }) =>
    request<DiscordCheckResult>('POST', '/setup/test/discord', json(body), 'application/json'),
  directory: () => request<{ ok: boolean; directory: DiscordCheckResult['directory'] }>('GET', '/setup/directory'),
  testModel: (body: { key?: string; provider?: string }) =>
    request<ModelCheckResult>('POST', '/setup/test/model', json(body), 'application/json'),
  restart: () => request<{ restarting: boolean }>('POST', '/restart', json({}), 'application/json'),
  interrupt: () =>
    request<{ interrupted: boolean; played_ms: number }>('POST', '/interrupt', json({}), 'application/json'),
  mute: (muted: boolean) => request<TalkState>('POST', '/mute', json({ muted }), 'application/json'),
  ptt: (body: { enabled?: boolean; held?: boolean }) =>
    request<TalkState>('POST', '/ptt', json(body), 'application/json'),
  approvals: () => request<{ approvals: McpApprovalView[] }>('GET', '/mcp/approvals'),
  decideApproval: (id: string, approved: boolean) =>
    request<{ approval: McpApprovalView }>(
      'POST',
      `/mcp/approvals/${encodeURIComponent(id)}`,
      json({ approved }),
      'application/json',
    ),
};
