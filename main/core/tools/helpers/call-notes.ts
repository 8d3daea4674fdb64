// Which notes a helper tool works on: the ones the request gives; else the call its `call_id` names
// (the hand-off; the dashboard's Hand off button names the call it shows, which may have ended); else
// the running call. The notes used are always one call's and that call's id labels the result, so a
// hand-off never carries (or is filed under) another call. With no call running and none named the
// request is refused with 409 `no_call`, as the sidecar's other call routes answer, instead of
// quietly reading an earlier call from the notes ring.
import type { NoteEvent } from '../../api-types.ts';
import { combineNotes, type NoteLike, type NotesInput } from './notes-input.ts';
import { Refusal } from '../../contracts/refusal.ts';

/** The call being recorded and its notes. */
export interface CurrentCallNotes {
  callId: string;
  notes: readonly NoteEvent[];
}

export interface CallNotesSources {
  /** The running call (null between calls). */
  currentCall?: () => CurrentCallNotes | null;
  /** A recorded call's notes by id (the archive on disk); null when there is no such call. */
  callNotes?: (callId: string) => readonly NoteEvent[] | null;
}

/** The same cap as the running call's notes (the core hands over at most 500 of them). */
export const CALL_NOTES_LIMIT = 500;

type RefusalCode = 'no_call' | 'call_mismatch' | 'unknown_call';

/** A refusal the tool registry answers with this code and status (see CallerRefusal). */
export class CallNotesRefusal extends Refusal<RefusalCode> {
  constructor(code: RefusalCode, message: string) {
    super(code, message, code === 'unknown_call' ? 404 : 409);
  }
}

export interface ResolvedNotes {
  notes: NotesInput;
  /** The call the notes were read from (not set for notes the request gave). */
  callId?: string;
}

/** Keep only one call's events: whatever a source hands over, the result is labelled with its id. */
function ofCall(callId: string, notes: readonly NoteEvent[]): ResolvedNotes {
  return { notes: notes.filter((n) => n.callId === callId).slice(-CALL_NOTES_LIMIT), callId };
}

export function resolveNotes(
  args: { text?: string; notes?: readonly (string | NoteLike)[]; call_id?: string },
  sources: CallNotesSources,
): ResolvedNotes {
  const given = combineNotes(args);
  if (given) return { notes: given };
  const running = sources.currentCall?.() ?? null;
  const named = args.call_id;
  if (named === undefined || named === running?.callId) {
    if (!running)
      throw new CallNotesRefusal(
        'no_call',
        'no running call to read notes from: give `text` or `notes` (or, for a hand-off, the `call_id` of a recorded call), or ask during a call',
      );
    return ofCall(running.callId, running.notes);
  }
  if (!sources.callNotes) {
    throw new CallNotesRefusal(
      'call_mismatch',
      `call_id ${JSON.stringify(named)} is not the running call${running ? ` (${running.callId})` : ''}: give that call's notes (GET /notes?call=…)`,
    );
  }
  const past = sources.callNotes(named);
  if (!past)
    throw new CallNotesRefusal(
      'unknown_call',
      `no notes for call ${JSON.stringify(named)} (ids as listed by GET /calls)`,
    );
  return ofCall(named, past);
}
