// Dashboard entry: builds the panels, loads the current state over the sidecar API, then follows
// `/events` (state, note, metrics, levels, schedule, mcp_approval) for live updates.
import type {
  BridgeStateEvent,
  HealthReport,
  LatencySummary,
  LevelReading,
  McpApprovalView,
  NoteEvent,
  SayOutcome,
  ScheduledNotification,
  TalkState,
} from '../main/core/api-types.ts';
import { api, ApiError, friendlyMessage } from './api.ts';
import { ApprovalPrompt } from './approval-prompt.ts';
import { CallPanel } from './call-panel.ts';
import type { CallView } from './call-view-state.ts';
import { formatUsageLine } from './usage-format.ts';
import { daveWarning, nativeWarning, type PageLink } from './format.ts';
import { byId, holdActions } from './dom.ts';
import { desktopApi, FramePanel } from './frame-panel.ts';
import { HistorySearch } from './history-search.ts';
import { NotesPanel } from './notes-panel.ts';
import { RoomPanel } from './room-panel.ts';
import { sayOutcomeLine } from './say-outcome.ts';
import { SchedulePanel } from './schedule-panel.ts';
import { SettingsPanel } from './settings-panel.ts';

const streamStatus = byId('stream-status');
const banner = byId('banner');
let link: PageLink = 'loading';
/** What the page's link to the core is doing (shown in the pill until the call's state is confirmed). */
let stream: { text: string; kind: 'ok' | 'error' | 'info' } = { text: 'connecting…', kind: 'info' };
const frame = new FramePanel();
/** The call's view from the call panel: the header pill (while the page is live) and the screenshot panel follow it. */
let callPill: CallView['pill'] | null = null;
const call = new CallPanel((view) => {
  callPill = view.pill;
  frame.applyCall(view);
  renderPill();
});
const notes = new NotesPanel();
new HistorySearch(notes);
const room = new RoomPanel();
const schedule = new SchedulePanel();
const settings = new SettingsPanel();
const approvals = new ApprovalPrompt();

function showBanner(message: string | null): void {
  banner.hidden = message === null;
  banner.textContent = message ?? '';
}

function setStream(text: string, kind: 'ok' | 'error' | 'info'): void {
  stream = { text, kind };
  renderPill();
}

/** The header pill: the call's confirmed state while the page is live, else the link's trouble. Never "live" for a stopped call. */
function renderPill(): void {
  const shown = link === 'live' && callPill ? callPill : stream;
  streamStatus.textContent = shown.text;
  streamStatus.dataset.kind = shown.kind;
  streamStatus.dataset.link = link;
}

/** Only a page that follows `/events` and is signed in shows the call as fact and offers actions. */
function setLink(next: PageLink): void {
  link = next;
  call.setLink(next);
  holdActions(next !== 'live');
  renderPill();
}

/** Applies `/health`; false when the core did not answer. */
async function loadHealth(): Promise<boolean> {
  try {
    const health: HealthReport = await api.health();
    call.applyHealth(health);
    // First run (no bot token at all): open the setup page, once per tab, so "Back to the dashboard" stays.
    if (health.reasons.some((r) => r.includes('DISCORD_BOT_TOKEN')) && !sessionStorage.getItem('lvb-setup-opened')) {
      sessionStorage.setItem('lvb-setup-opened', '1');
      location.assign('/setup');
    }
    void room.refresh();
    const warning = nativeWarning(health);
    const nativeBanner = byId('native-warning');
    nativeBanner.hidden = warning === null;
    nativeBanner.textContent = warning ?? '';
    room.applyDave(health.dave?.speakers ?? []);
    const daveBanner = byId('dave-warning');
    const deafWarning = daveWarning(health.dave, (id) => room.nameOf(id));
    daveBanner.hidden = deafWarning === null;
    daveBanner.textContent = deafWarning ?? '';
    byId('app-version').textContent = `v${health.version}`;
    const usageLine = byId('usage-line');
    usageLine.textContent = formatUsageLine(health.usage);
    usageLine.dataset.state = health.usage?.today.state ?? 'ok';
    return true;
  } catch (err) {
    setStream('sidecar unreachable', 'error');
    if (link !== 'signed-out') setLink('disconnected');
    showBanner(friendlyMessage(err));
    return false;
  }
}

async function loadAll(): Promise<void> {
  await loadHealth();
  try {
    notes.add((await api.notes(200)).notes);
    void notes.loadCalls();
  } catch (err) {
    if (err instanceof ApiError && err.code === 'unauthorized') {
      showBanner(friendlyMessage(err));
      setStream('not signed in', 'error');
      setLink('signed-out');
      return;
    }
    showBanner(`Could not load notes: ${friendlyMessage(err)}`);
  }
  const [, saved] = await Promise.all([schedule.refresh(), settings.load(), approvals.refresh()]);
  call.setOwnerId(saved?.values.ownerId ?? saved?.effective.ownerId);
}

function follow(): void {
  const source = new EventSource('/events');
  const on = <T>(type: string, handle: (data: T) => void) =>
    source.addEventListener(type, (event) => {
      try {
        handle(JSON.parse((event as MessageEvent<string>).data) as T);
      } catch {
        // A malformed event is skipped; the next one repairs the view.
      }
    });
  source.addEventListener('open', () => {
    setStream('connected, checking…', 'info');
    showBanner(null);
    // Events missed while away are not replayed: confirm the state before showing it as live.
    const reopened = link === 'disconnected';
    void loadHealth().then((answered) => {
      if (!answered || source.readyState !== EventSource.OPEN) return;
      setLink('live');
      if (reopened) void schedule.refresh();
    });
  });
  source.addEventListener('error', () => {
    // Whatever the call did while the stream was down is unknown: say so, and hold every action.
    setLink('disconnected');
    if (source.readyState === EventSource.CLOSED) {
      // EventSource gives up on HTTP errors (e.g. 401); find out which and say so.
      setStream('disconnected', 'error');
      void api.notes(1).then(
        () => setTimeout(follow, 3000),
        (err: unknown) => {
          if (err instanceof ApiError && err.code === 'unauthorized') setLink('signed-out');
          else setTimeout(follow, 3000);
          showBanner(friendlyMessage(err));
        },
      );
    } else setStream('reconnecting…', 'info');
  });
  on<BridgeStateEvent>('state', (e) => {
    call.onState(e);
    void loadHealth();
  });
  on<NoteEvent>('note', (n) => notes.add([n]));
  on<TalkState>('talk', (t) => call.onTalk(t));
  on<SayOutcome>('say', (o) => sayOutcomeLine.apply(o));
  on<Record<string, number | LatencySummary>>('metrics', (m) => call.onMetrics(m));
  on<{ input: LevelReading; output: LevelReading; speaking: string[] }>('levels', (l) => {
    call.onLevels(l);
    room.onSpeaking(l.speaking);
  });
  on<McpApprovalView>('mcp_approval', (a) => approvals.onEvent(a));
  on<{ changed: ScheduledNotification[]; reloaded?: boolean }>('schedule', (s) =>
    s.reloaded ? void schedule.refresh() : schedule.merge(s.changed),
  );
}

const desktop = desktopApi();
if (desktop) {
  const logs = byId<HTMLButtonElement>('open-logs');
  logs.hidden = false;
  logs.addEventListener('click', () => void desktop.openLogsFolder());
  void desktop.appVersion().then((v) => (byId('app-version').textContent = `v${v}`));
}

// Connections are only in /health; refresh them while the page is visible.
setInterval(() => {
  if (document.visibilityState === 'visible') void loadHealth();
}, 5000);

setLink('loading');
void loadAll().then(() => {
  if (link !== 'signed-out') follow();
});
