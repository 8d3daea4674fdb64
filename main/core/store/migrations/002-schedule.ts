// Migration 2: the notification schedule with its delivery claims (main/core/notify/schedule-store.ts).
// One row per entry; `record` is the entry's whole JSON (the API's fields, its claim, its repeat rule,
// its idempotency key) and every column the queries need is GENERATED from it, so a row can never
// disagree with itself. Indexes: list order (fire time, id) overall and per state — keyset pages;
// the due queue (due time of scheduled entries, then rowid: the order they were created in); a series' members; an idempotency key's entry; and
// the change counter other processes catch up from. `schedule_counts` is kept by triggers (the cap and
// the totals are one row read, not a count of 100k rows); `schedule_meta.rev` counts committed changes.
// Self-contained (it needs only its own tables), so it can be renumbered at a merge.
export const sql = `
CREATE TABLE schedule (
  id TEXT PRIMARY KEY,
  rev INTEGER NOT NULL,
  record TEXT NOT NULL CHECK (json_valid(record)),
  state TEXT GENERATED ALWAYS AS (json_extract(record, '$.state')) STORED NOT NULL,
  fire_at REAL GENERATED ALWAYS AS (json_extract(record, '$.fire_at_epoch')) STORED NOT NULL,
  due_at REAL GENERATED ALWAYS AS (coalesce(json_extract(record, '$.next_attempt_at'), json_extract(record, '$.fire_at_epoch'))) STORED NOT NULL,
  updated_at REAL GENERATED ALWAYS AS (coalesce(json_extract(record, '$.updated_at'), json_extract(record, '$.created_at'))) STORED NOT NULL,
  series TEXT GENERATED ALWAYS AS (json_extract(record, '$.repeat.series')) STORED,
  idempotency_key TEXT GENERATED ALWAYS AS (CASE WHEN json_extract(record, '$.idempotency.entry') = id THEN json_extract(record, '$.idempotency.key') END) STORED,
  claim_owner TEXT GENERATED ALWAYS AS (json_extract(record, '$.claim.owner')) VIRTUAL,
  claim_pid INTEGER GENERATED ALWAYS AS (json_extract(record, '$.claim.pid')) VIRTUAL,
  claim_lease_until REAL GENERATED ALWAYS AS (json_extract(record, '$.claim.lease_until')) VIRTUAL
) STRICT;
CREATE INDEX schedule_by_fire ON schedule (fire_at, id);
CREATE INDEX schedule_by_state ON schedule (state, fire_at, id);
CREATE INDEX schedule_due ON schedule (due_at) WHERE state = 'scheduled';
CREATE INDEX schedule_by_series ON schedule (series, fire_at) WHERE series IS NOT NULL;
CREATE INDEX schedule_by_key ON schedule (idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX schedule_by_rev ON schedule (rev);
CREATE INDEX schedule_finished ON schedule (updated_at) WHERE state IN ('delivered', 'failed', 'cancelled', 'expired');

CREATE TABLE schedule_counts (
  state TEXT PRIMARY KEY,
  n INTEGER NOT NULL
) STRICT;
INSERT INTO schedule_counts (state, n) VALUES ('scheduled', 0), ('delivering', 0), ('delivered', 0), ('failed', 0), ('cancelled', 0), ('expired', 0);
CREATE TRIGGER schedule_count_insert AFTER INSERT ON schedule BEGIN
  UPDATE schedule_counts SET n = n + 1 WHERE state = new.state;
END;
CREATE TRIGGER schedule_count_delete AFTER DELETE ON schedule BEGIN
  UPDATE schedule_counts SET n = n - 1 WHERE state = old.state;
END;
CREATE TRIGGER schedule_count_update AFTER UPDATE ON schedule WHEN old.state IS NOT new.state BEGIN
  UPDATE schedule_counts SET n = n - 1 WHERE state = old.state;
  UPDATE schedule_counts SET n = n + 1 WHERE state = new.state;
END;

CREATE TABLE schedule_meta (
  only INTEGER PRIMARY KEY CHECK (only = 1),
  rev INTEGER NOT NULL
) STRICT;
INSERT INTO schedule_meta (only, rev) VALUES (1, 0);
`;
