// History search: a search box over every past call (GET /notes/search, full text), each result
// with its call, time, speaker name and snippet; choosing one opens that call in the notes panel at
// that line. Self-contained: it owns #history-search and asks the notes panel to open a call.
import { api, friendlyMessage } from './api.ts';
import { byId, h, status } from './dom.ts';

export interface HistoryOpener {
  /** Show a past call with the line at `at` (epoch seconds) in view and marked. */
  openCallAt(callId: string, at: number): Promise<void>;
}

export class HistorySearch {
  readonly #form = byId<HTMLFormElement>('history-search');
  readonly #q = byId<HTMLInputElement>('history-q');
  readonly #results = byId<HTMLOListElement>('history-results');
  readonly #status = byId('history-status');

  constructor(opener: HistoryOpener) {
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
              { type: 'button', class: 'history-hit', 'data-call': hit.call_id, 'data-at': String(hit.at), title: `Open call ${hit.call_id} at this line` },
              h('time', { datetime: new Date(hit.at * 1000).toISOString() }, new Date(hit.at * 1000).toLocaleString()),
              h('span', { class: 'who' }, hit.speaker ?? '—'),
              h('span', { class: 'text' }, hit.snippet),
              h('span', { class: 'muted small call' }, hit.call_id),
            ),
          ),
        ),
      );
      status(this.#status, hits.length ? `${hits.length} ${hits.length === 1 ? 'line' : 'lines'} found, newest first.` : 'No past call matches.', 'info');
    } catch (err) {
      status(this.#status, `Search failed: ${friendlyMessage(err)}`, 'error');
    }
  }
}
