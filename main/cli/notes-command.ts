// `live-voice-bridge notes search "…"`, `notes export CALL [--md]` and `calls`: past calls through
// the sidecar (GET /notes/search, /calls/:id/export, /calls), as tables for a person at a terminal
// and JSON for scripts (cli.ts decides which).
import { parseArgs } from 'node:util';
import type { CallSummary } from '../core/sidecar-client/wire-types.ts';
import { table } from './output.ts';

export interface NotesRequest {
  path: string;
  /** The human rendering of the answer's body. */
  render: (body: unknown, width: number) => string;
  /** Print the body as it came (Markdown), whatever the output mode. */
  raw?: boolean;
}

export class NotesUsageError extends Error {
  override readonly name = 'NotesUsageError';
}

interface Hit {
  call_id: string;
  at: number;
  speaker: string | null;
  snippet: string;
}

const when = (ts: number): string => new Date(ts * 1000).toISOString().slice(0, 16).replace('T', ' ');

export function hitsTable(body: unknown, width: number): string {
  const hits = (body as { hits: Hit[] }).hits;
  if (!hits.length) return 'No past call matches.';
  return table(
    hits,
    [
      { title: 'WHEN (UTC)', value: (h) => when(h.at) },
      { title: 'CALL', value: (h) => h.call_id },
      { title: 'SPEAKER', value: (h) => h.speaker ?? '—' },
      { title: 'SAID', value: (h) => h.snippet },
    ],
    width,
  );
}

export function callsTable(body: unknown, width: number): string {
  const { calls, next_before } = body as { calls: CallSummary[]; next_before: string | null };
  if (!calls.length) return 'No calls recorded yet.';
  const rows = table(
    calls,
    [
      { title: 'STARTED (UTC)', value: (c) => when(c.started_at) },
      { title: 'MINUTES', value: (c) => String(Math.round((c.ended_at - c.started_at) / 60)) },
      { title: 'EVENTS', value: (c) => String(c.events) },
      { title: 'CALL', value: (c) => (c.outside_call ? `${c.id} (outside calls)` : c.id) },
    ],
    width,
  );
  return next_before ? `${rows}\n(older calls: live-voice-bridge calls --before ${next_before})` : rows;
}

/** The request a `notes …` or `calls` command line makes. */
export function notesRequest(command: 'notes' | 'calls', args: string[]): NotesRequest {
  if (command === 'calls') {
    const { values } = parseArgs({ args, options: { limit: { type: 'string' }, before: { type: 'string' } } });
    const query = new URLSearchParams({
      limit: values.limit ?? '20',
      ...(values.before ? { before: values.before } : {}),
    });
    return { path: `/calls?${query}`, render: callsTable };
  }
  const [sub, ...rest] = args;
  if (sub === 'search') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { since: { type: 'string' }, limit: { type: 'string' } },
    });
    const q = positionals.join(' ').trim();
    if (!q) throw new NotesUsageError('notes search needs the words to look for');
    const query = new URLSearchParams({
      q,
      ...(values.limit ? { limit: values.limit } : {}),
      ...(values.since ? { since: values.since } : {}),
    });
    return { path: `/notes/search?${query}`, render: hitsTable };
  }
  if (sub === 'export') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { md: { type: 'boolean' } },
    });
    const id = positionals[0];
    if (!id) throw new NotesUsageError('notes export needs a call id (see live-voice-bridge calls)');
    return {
      path: `/calls/${encodeURIComponent(id)}/export${values.md ? '?format=md' : ''}`,
      render: (body) => (typeof body === 'string' ? body : JSON.stringify(body, null, 2)),
      raw: values.md === true,
    };
  }
  throw new NotesUsageError('notes: search "words" [--since EPOCH_S] [--limit N], or export CALL [--md]');
}
