// Transcript & notes: a live list with filter, copy and the hand-off action, and past calls (read
// back from disk by the core) chosen from a list to read their transcript.
import type { NoteEvent } from '../main/core/api-types.ts';
import { api, friendlyMessage } from './api.ts';
import { byId, h, setBusy, status, toast } from './dom.ts';
import { formatMoment } from './moment-format.ts';
import { filterNotes, KIND_LABELS, mergeNotes, notesAsText, type NoteFilterKind } from './format.ts';

export class NotesPanel {
  readonly #list = byId<HTMLOListElement>('notes-list');
  readonly #empty = byId('notes-empty');
  readonly #count = byId('notes-count');
  readonly #query = byId<HTMLInputElement>('notes-query');
  readonly #kind = byId<HTMLSelectElement>('notes-kind');
  readonly #status = byId('notes-status');
  readonly #call = byId<HTMLSelectElement>('notes-call');
  #live: NoteEvent[] = [];
  /** The past call being read, or null for the live view. */
  #past: NoteEvent[] | null = null;
  /** The reader is at the end of the list: new lines and a smaller window keep the newest line in view. */
  #pinned = true;
  readonly #shown = new Set<(callId: string | null) => void>();

  get #notes(): NoteEvent[] {
    return this.#past ?? this.#live;
  }

  constructor() {
    this.#query.addEventListener('input', () => this.#render(false));
    this.#kind.addEventListener('change', () => this.#render(false));
    this.#call.addEventListener('focus', () => void this.loadCalls());
    this.#list.addEventListener('scroll', () => {
      const list = this.#list;
      this.#pinned = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
    });
    new ResizeObserver(() => {
      if (this.#pinned) this.#list.scrollTop = this.#list.scrollHeight;
    }).observe(this.#list);
    this.#call.addEventListener('change', () => void this.#showCall(this.#call.value));
    byId('notes-copy').addEventListener('click', () => void this.#copy());
    const handoff = byId<HTMLButtonElement>('notes-handoff');
    handoff.addEventListener('click', () => void this.#handoff(handoff));
  }

  add(notes: readonly NoteEvent[]): void {
    // Follow the newest line only when the reader is already at the bottom.
    this.#live = mergeNotes(this.#live, notes);
    if (this.#past === null) this.#render(this.#pinned);
  }

  /** Fill the call chooser from GET /calls (newest first), keeping the current choice. */
  async loadCalls(): Promise<void> {
    try {
      const { calls } = await api.calls();
      const chosen = this.#call.value;
      this.#call.replaceChildren(
        h('option', { value: '' }, 'Live and recent'),
        ...calls.map((c) =>
          h(
            'option',
            { value: c.id },
            `${c.outside_call ? 'Outside calls' : 'Call'} · ${formatMoment(c.started_at)} · ${c.events} ${c.events === 1 ? 'entry' : 'entries'}`,
          ),
        ),
      );
      this.#call.value = calls.some((c) => c.id === chosen) ? chosen : '';
    } catch (err) {
      status(this.#status, `Could not list past calls: ${friendlyMessage(err)}`, 'error');
    }
  }

  /** Told which past call is shown (null: the live view), e.g. for History's export. */
  onCallShown(listener: (callId: string | null) => void): void {
    this.#shown.add(listener);
  }

  #tellShown(callId: string | null): void {
    for (const listener of this.#shown) listener(callId);
  }

  /** History search: show a past call with the line at `at` in view and marked. */
  async openCallAt(callId: string, at: number): Promise<void> {
    await this.loadCalls();
    if (![...this.#call.options].some((o) => o.value === callId))
      return status(this.#status, 'That call is no longer kept.', 'error');
    this.#call.value = callId;
    this.#query.value = '';
    await this.#showCall(callId);
    const line = this.#past?.find((n) => n.ts === at);
    const item = line ? this.#list.querySelector<HTMLElement>(`[data-note-id="${CSS.escape(line.id)}"]`) : null;
    if (!item) return;
    for (const old of this.#list.querySelectorAll('.found')) old.classList.remove('found');
    item.classList.add('found');
    item.scrollIntoView({ block: 'center' });
  }

  async #showCall(callId: string): Promise<void> {
    if (!callId) {
      this.#past = null;
      status(this.#status, '');
      this.#tellShown(null);
      return this.#render(true);
    }
    try {
      this.#past = (await api.callNotes(callId)).notes;
      status(this.#status, `Showing a past call (${this.#past.length} entries, up to the last 500).`, 'info');
      this.#render(false);
      this.#tellShown(callId);
    } catch (err) {
      status(this.#status, `Could not load that call: ${friendlyMessage(err)}`, 'error');
    }
  }

  #visible(): NoteEvent[] {
    return filterNotes(this.#notes, this.#query.value, this.#kind.value as NoteFilterKind);
  }

  #render(stickToBottom: boolean): void {
    const visible = this.#visible();
    this.#list.replaceChildren(
      ...visible.map((n) =>
        h(
          'li',
          { class: `kind-${n.kind}`, 'data-note-id': n.id },
          // Who, then when, on one line that wraps (nothing is cut to "…"); the text below.
          h(
            'span',
            { class: 'who', title: n.speaker ?? KIND_LABELS[n.kind] },
            n.speaker_name ?? n.speaker ?? KIND_LABELS[n.kind],
          ),
          h('time', { datetime: new Date(n.ts * 1000).toISOString() }, formatMoment(n.ts)),
          h('span', { class: 'text' }, n.text),
        ),
      ),
    );
    this.#empty.hidden = visible.length > 0;
    this.#empty.textContent = this.#notes.length
      ? 'No entries match the filter.'
      : 'Nothing yet. Transcript lines and notes appear here live.';
    this.#count.textContent = this.#notes.length ? `${visible.length} of ${this.#notes.length}` : '';
    if (stickToBottom) this.#list.scrollTop = this.#list.scrollHeight;
  }

  async #copy(): Promise<void> {
    const visible = this.#visible();
    if (!visible.length) return status(this.#status, 'Nothing to copy.', 'info');
    try {
      await navigator.clipboard.writeText(notesAsText(visible));
      toast(`Copied ${visible.length} ${visible.length === 1 ? 'entry' : 'entries'}.`);
      status(this.#status, '');
    } catch (err) {
      status(this.#status, `Could not copy: ${err instanceof Error ? err.message : String(err)}`, 'error');
    }
  }

  async #handoff(button: HTMLButtonElement): Promise<void> {
    setBusy(button, true, 'Writing…');
    try {
      const callId = [...this.#notes].reverse().find((n) => n.callId)?.callId;
      const result = await api.handoff(callId ? { call_id: callId } : {});
      const where = typeof result.markdown_path === 'string' ? result.markdown_path : null;
      const missing =
        Array.isArray(result.missing) && result.complete === false
          ? ` The brief still lacks: ${result.missing.join(', ')}.`
          : '';
      status(this.#status, `${where ? `Hand-off written to ${where}.` : 'Hand-off written.'}${missing}`, 'ok');
    } catch (err) {
      status(this.#status, `Hand-off failed: ${friendlyMessage(err)}`, 'error');
    } finally {
      setBusy(button, false);
    }
  }
}
