// History search: a search box over every past call (GET /notes/search, full text), each result
// with its call, time, speaker name and snippet; choosing one opens that call in the notes panel at
// that line. The call shown can be exported (GET /calls/:id/export: Markdown, or JSON with its
// summary) as a downloaded file. Self-contained: it owns #history-search and #history-export and
// asks the notes panel to open a call.
import { api, friendlyMessage } from './api.ts';
import { byId, h, setBusy, status } from './dom.ts';

export interface HistoryOpener {
  /** Show a past call with the line at `at` (epoch seconds) in view and marked. */
  openCallAt(callId: string, at: number): Promise<void>;
  /** Told which past call is shown (null: the live view). */
  onCallShown(listener: (callId: string | null) => void): void;
}

/** Save `blob` as `name` through the browser's download (the export needs the session cookie, so no plain link). */
function saveAs(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy once started; the next task is late enough.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export class HistorySearch {
  readonly #form = byId<HTMLFormElement>('history-search');
  readonly #q = byId<HTMLInputElement>('history-q');
  readonly #results = byId<HTMLOListElement>('history-results');
  readonly #status = byId('history-status');
  readonly #export = byId<HTMLButtonElement>('history-export');
  readonly #format = byId<HTMLSelectElement>('history-export-format');
  #shown: string | null = null;

  constructor(opener: HistoryOpener) {
    opener.onCallShown((callId) => {
      this.#shown = callId;
      this.#export.disabled = callId === null;
    });
    this.#export.addEventListener('click', () => void this.#download());
    this.#form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.#search();
    });
    this.#results.addEventListener('click', (event) => {
      const item = (event.target as HTMLElement).closest<HTMLElement>('[data-call]');
      if (item) void opener.openCallAt(item.dataset.call!, Number(item.dataset.at));
    });
  }

  async #search(): Promise<void> {
    const q = this.#q.value.trim();
    if (!q) return status(this.#status, 'Type words to look for in past calls.', 'info');
    try {
      const { hits } = await api.searchNotes(q);
      this.#results.replaceChildren(
        ...hits.map((hit) =>
          h(
            'li',
            {},
            h(
              'button',
              {
                type: 'button',
                class: 'history-hit',
                'data-call': hit.call_id,
                'data-at': String(hit.at),
                title: `Open call ${hit.call_id} at this line`,
              },
              h('time', { datetime: new Date(hit.at * 1000).toISOString() }, new Date(hit.at * 1000).toLocaleString()),
              h('span', { class: 'who' }, hit.speaker ?? '—'),
              h('span', { class: 'text' }, hit.snippet),
              h('span', { class: 'muted small call' }, hit.call_id),
            ),
          ),
        ),
      );
      status(
        this.#status,
        hits.length
          ? `${hits.length} ${hits.length === 1 ? 'line' : 'lines'} found, newest first.`
          : 'No past call matches.',
        'info',
      );
    } catch (err) {
      status(this.#status, `Search failed: ${friendlyMessage(err)}`, 'error');
    }
  }

  async #download(): Promise<void> {
    const callId = this.#shown;
    if (!callId) return status(this.#status, 'Choose a past call to export (above, or a search result).', 'info');
    const format = this.#format.value === 'json' ? 'json' : 'md';
    setBusy(this.#export, true, 'Exporting…');
    try {
      saveAs(await api.exportCall(callId, format), `${callId}.${format}`);
      status(this.#status, `Exported call ${callId} as ${format === 'md' ? 'Markdown' : 'JSON'}.`, 'ok');
    } catch (err) {
      status(this.#status, `Export failed: ${friendlyMessage(err)}`, 'error');
    } finally {
      setBusy(this.#export, false);
      this.#export.disabled = this.#shown === null;
    }
  }
}
