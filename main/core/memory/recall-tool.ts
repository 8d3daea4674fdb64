// The model's `recall(query, since?)`: full-text search over every past call (notes-search.ts),
// answering cited snippets with the call, the time and the speaker by name, so the model can say
// "on Tuesday Ada said…". Past calls are the owner's: by voice only the owner may ask (authority
// `owner`, checked by the registry against who was heard in the turn, as for every tool); a guest
// asking is refused and the model is told to say so aloud.
import { z } from 'zod';
import { searchNotes, type SearchHit } from '../notes/notes-search.ts';
import type { SqliteDatabase } from '../store/database.ts';
import { defineTool, type ToolRegistry } from '../tools/registry.ts';
import { CodedError } from '../contracts/coded-error.ts';

export const RECALL_LIMIT = 8;

const RecallArgs = z.object({
  query: z.string().trim().min(1).max(200).describe('Words to look for in what was said in earlier calls.'),
  since: z
    .union([z.number(), z.string().max(40)])
    .optional()
    .describe('Only lines at or after this time: epoch seconds or an ISO date such as 2026-11-24.'),
});

export interface RecallDeps {
  db: SqliteDatabase;
  /** Lines of speakers who opted out are never recalled. */
  excludeSpeaker: (id: string) => boolean;
  /** The call in progress: what is being said now is not "recalled". */
  currentCallId: () => string | undefined;
}

export interface RecallResult {
  hits: Array<{ call_id: string; at: string; speaker: string | null; snippet: string }>;
  /** The hits as the model can read them out: "[2026-11-24 09:14, call …] Ada: …". */
  text: string;
}

class RecallRefusal extends CodedError {
  readonly status = 400;
}

function sinceSeconds(since: number | string | undefined): number | undefined {
  if (since === undefined) return undefined;
  if (typeof since === 'number') return since;
  const ms = Date.parse(since);
  if (Number.isNaN(ms)) throw new RecallRefusal('bad_since', 'since: epoch seconds or an ISO date such as 2026-11-24');
  return ms / 1000;
}

const stamp = (ts: number): string => new Date(ts * 1000).toISOString().slice(0, 16).replace('T', ' ');

function render(hits: readonly SearchHit[]): string {
  if (!hits.length) return 'Nothing in earlier calls matches. Say so; do not guess.';
  return hits.map((h) => `[${stamp(h.at)} UTC, call ${h.call_id}] ${h.speaker ?? 'someone'}: ${h.snippet}`).join('\n');
}

export function registerRecallTool(tools: ToolRegistry, deps: RecallDeps): ToolRegistry {
  return tools.register(
    defineTool({
      name: 'recall',
      description:
        'Search what was said in earlier calls (full text). Use when the user asks about a previous call ("what did we decide on Tuesday?"). ' +
        'Answers cited lines: time, call and speaker by name. Cite them; never invent what is not there.',
      args: RecallArgs,
      authority: 'owner',
      run: (args): RecallResult => {
        const current = deps.currentCallId();
        const since = sinceSeconds(args.since);
        const hits = searchNotes(deps.db, args.query, {
          limit: RECALL_LIMIT * 2,
          excludeSpeaker: deps.excludeSpeaker,
          callsOnly: true,
          ...(since !== undefined ? { since } : {}),
        })
          .filter((h) => h.call_id !== current)
          .slice(0, RECALL_LIMIT);
        return {
          hits: hits.map((h) => ({
            call_id: h.call_id,
            at: new Date(h.at * 1000).toISOString(),
            speaker: h.speaker,
            snippet: h.snippet,
          })),
          text: render(hits),
        };
      },
    }),
  );
}
