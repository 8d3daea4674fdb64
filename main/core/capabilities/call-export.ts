// One call as exported (GET /calls/:id/export, the CLI's `calls export`): its record, its end-of-call
// summary, its hand-off (sora_handoff on its notes: redacted, with the grill's brief and the goal)
// and every line. Built here, where the notes store and the helper tools meet, for the route and the
// tests alike.
import type { NotesStore } from '../notes/notes-store.ts';
import type { CallExport } from '../sidecar/routes/notes-search.ts';
import { buildHandoff } from '../tools/helpers/handoff.ts';

export function callExport(archive: NotesStore, id: string): CallExport | null {
  const call = archive.call(id);
  if (!call) return null;
  const notes = archive.read(id) ?? [];
  const handoff = buildHandoff({ notes, callId: id, now: new Date(call.ended_at * 1000) });
  return { call, summary: archive.summary(id), handoff: { json: handoff.json, markdown: handoff.markdown }, notes };
}
