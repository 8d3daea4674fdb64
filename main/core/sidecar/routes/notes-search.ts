// Past calls, searched and exported: GET /notes/search?q=&limit=&since= (full text over every call's
// lines, newest first: `{ hits: [{ call_id, at, speaker, snippet }] }`, speaker by name) and
// GET /calls/:id/export?format=md|json (one call's notes with its end-of-call summary). Behind the
// token like every route. An empty, word-less or over-long q is 400 `bad_q`.
import { z } from 'zod';
import type { NoteEvent } from '../../api-types.ts';
import type { SearchHit, SearchOptions } from '../../notes/notes-search.ts';
import { CALL_ID_PATTERN, type CallSummary } from '../../notes/notes-store.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';

export const SEARCH_Q_MAX_CHARS = 200;
export const SEARCH_LIMIT_MAX = 100;

export interface CallExport {
  call: CallSummary;
  /** The end-of-call summary (issue #54 memory), or null when the call has none. */
  summary: unknown;
  /** The call's hand-off (sora_handoff on its notes, redacted): its document and its Markdown. */
  handoff: { json: unknown; markdown: string };
  notes: NoteEvent[];
}

export interface NotesSearchRouteDeps {
  search: (q: string, options: SearchOptions) => SearchHit[];
  /** One call's export, or null for an unknown call. */
  exportCall: (callId: string) => CallExport | null;
}

const once = z.string().optional();
const SearchQuery = z.object({ q: once, limit: once, since: once });
const ExportQuery = z.object({ format: z.enum(['md', 'json']).optional() });

function parseSearch(query: unknown): { q: string; limit: number; since?: number } {
  const parsed = SearchQuery.safeParse(query);
  if (!parsed.success)
    throw new HttpError(
      400,
      'bad_query',
      `${String(parsed.error.issues[0]?.path[0] ?? 'query')}: give it once, as text`,
    );
  const { q, limit, since } = parsed.data;
  if (q === undefined || q.trim() === '' || q.length > SEARCH_Q_MAX_CHARS || !/[\p{L}\p{N}]/u.test(q)) {
    throw new HttpError(400, 'bad_q', `q: 1 to ${SEARCH_Q_MAX_CHARS} characters with at least one word to search for`);
  }
  const n = limit === undefined ? 20 : Number(limit);
  if (!/^\d+$/.test(limit ?? '20') || n < 1 || n > SEARCH_LIMIT_MAX)
    throw new HttpError(400, 'invalid_limit', `limit must be an integer from 1 to ${SEARCH_LIMIT_MAX}`);
  const s = since === undefined ? undefined : Number(since);
  if (s !== undefined && (since!.trim() === '' || !Number.isFinite(s)))
    throw new HttpError(400, 'bad_since', 'since: epoch seconds (a number)');
  return { q: q.trim(), limit: n, ...(s !== undefined ? { since: s } : {}) };
}

function when(ts: number): string {
  return new Date(ts * 1000).toISOString().replace('T', ' ').slice(0, 19) + 'Z';
}

/** The call as a Markdown document: its summary (when there is one), then every line. */
export function callMarkdown(doc: CallExport): string {
  const lines = [
    `# Call ${doc.call.id}`,
    '',
    `${when(doc.call.started_at)} – ${when(doc.call.ended_at)} · ${doc.call.events} events`,
    '',
  ];
  if (doc.summary) lines.push('## Summary', '', '```json', JSON.stringify(doc.summary, null, 2), '```', '');
  // The hand-off's own headings one level down, under this document's title.
  lines.push(doc.handoff.markdown.trimEnd().replace(/^(#+) /gm, '#$1 '), '');
  lines.push('## Transcript and notes', '');
  for (const n of doc.notes)
    lines.push(
      `- ${when(n.ts)} **${n.speaker_name ?? n.speaker ?? n.kind}** (${n.kind}): ${n.text.replace(/\s*\n\s*/g, ' ')}`,
    );
  return lines.join('\n') + '\n';
}

export const registerNotesSearchRoutes: RouteModule<NotesSearchRouteDeps> = (app, deps) => {
  app.get('/notes/search', async (request) => {
    const { q, limit, since } = parseSearch(request.query);
    const hits = deps.search(q, { limit, ...(since !== undefined ? { since } : {}) });
    return { hits: hits.map((h) => ({ call_id: h.call_id, at: h.at, speaker: h.speaker, snippet: h.snippet })) };
  });

  app.get<{ Params: { id: string } }>('/calls/:id/export', async (request, reply) => {
    const { id } = request.params;
    if (!CALL_ID_PATTERN.test(id)) throw new HttpError(400, 'bad_call', 'a call id as listed by GET /calls');
    const query = ExportQuery.safeParse(request.query);
    if (!query.success) throw new HttpError(400, 'bad_format', 'format: md or json');
    const doc = deps.exportCall(id);
    if (!doc) throw new HttpError(404, 'unknown_call', `no call ${JSON.stringify(id)}`);
    if (query.data.format === 'md') {
      void reply
        .header('content-type', 'text/markdown; charset=utf-8')
        .header('content-disposition', `attachment; filename="${id}.md"`);
      return callMarkdown(doc);
    }
    return doc;
  });
};
