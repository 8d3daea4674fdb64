// Migration 3: each speaker's learnt patience (issue #52; main/core/bridge/patience-learner.ts), kept
// across calls: the silence window the learner moved them to, their cut-offs, the clean turns and the
// longest pause inside a turn since the window last moved, and their display name when last heard
// (the room view and the CLI show people by name). One row per Discord user id.
// Self-contained (it needs only its own table), so it can be renumbered at a merge.
export const sql = `
CREATE TABLE speaker_patience (
  speaker_id TEXT PRIMARY KEY,
  name TEXT,
  window_ms INTEGER NOT NULL CHECK (window_ms >= 0),
  cutoffs INTEGER NOT NULL DEFAULT 0,
  clean_turns INTEGER NOT NULL DEFAULT 0,
  longest_pause_ms INTEGER NOT NULL DEFAULT 0,
  updated_at REAL NOT NULL
) STRICT;
`;
