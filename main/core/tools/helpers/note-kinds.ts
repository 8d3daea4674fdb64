// Runtime list of NoteKind values (api-types.ts holds the type only, with no runtime code).
import type { NoteKind } from '../../api-types.ts';

export const NOTE_KINDS = [
  'input_transcript',
  'output_transcript',
  'note',
  'tool_call',
  'state',
  'say',
  'frame',
  'notification',
] as const satisfies readonly NoteKind[];

// Compile-time check that the list covers every NoteKind.
type Missing = Exclude<NoteKind, (typeof NOTE_KINDS)[number]>;
const _complete: Missing extends never ? true : never = true;
void _complete;
