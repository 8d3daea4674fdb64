// Migration 1: calls, their notes (transcript lines and the rest of the notes log), the full-text
// index over the notes, per-call summaries, the usage ledger and the record of one-time imports.
// The index is an FTS5 external-content table over `notes` (one copy of the text), kept in step by
// triggers, so a deleted note (retention) leaves the index with it.
export const sql = `
CREATE TABLE calls (
  id TEXT PRIMARY KEY,
  started_at REAL NOT NULL,
  ended_at REAL NOT NULL,
  events INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0,
  outside_call INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX calls_by_end ON calls (ended_at, id);

CREATE TABLE notes (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  call_id TEXT NOT NULL REFERENCES calls (id),
  ts REAL NOT NULL,
  kind TEXT NOT NULL,
  speaker TEXT,
  speaker_name TEXT,
  text TEXT NOT NULL
) STRICT;
CREATE INDEX notes_by_time ON notes (ts, call_id, seq);
CREATE INDEX notes_by_call ON notes (call_id, seq);

CREATE VIRTUAL TABLE notes_fts USING fts5 (
  text, speaker_name,
  content = 'notes', content_rowid = 'seq',
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
  INSERT INTO notes_fts (rowid, text, speaker_name) VALUES (new.seq, new.text, new.speaker_name);
END;
CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
  INSERT INTO notes_fts (notes_fts, rowid, text, speaker_name) VALUES ('delete', old.seq, old.text, old.speaker_name);
END;
CREATE TRIGGER notes_fts_update AFTER UPDATE ON notes BEGIN
  INSERT INTO notes_fts (notes_fts, rowid, text, speaker_name) VALUES ('delete', old.seq, old.text, old.speaker_name);
  INSERT INTO notes_fts (rowid, text, speaker_name) VALUES (new.seq, new.text, new.speaker_name);
END;

CREATE TABLE summaries (
  call_id TEXT PRIMARY KEY REFERENCES calls (id),
  created_at REAL NOT NULL,
  body TEXT NOT NULL
) STRICT;

CREATE TABLE usage_calls (
  day TEXT NOT NULL,
  call_id TEXT NOT NULL,
  cost_usd REAL NOT NULL,
  connected_seconds REAL NOT NULL DEFAULT 0,
  speech_seconds REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (day, call_id)
) STRICT;
CREATE TABLE usage_days (
  day TEXT PRIMARY KEY,
  warned INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE imports (
  source TEXT PRIMARY KEY,
  imported_at REAL NOT NULL,
  counts TEXT NOT NULL
) STRICT;
`;
