-- Schema 12: the seal upgrade sweep and the renewal of archive timestamps (extensions E10) find
-- their envelopes through two columns, written with every envelope write beside the document,
-- each with a partial index in the order the store answers: (time, id). The version rises so
-- that an older binary, which writes envelopes without these columns, refuses this database
-- instead of leaving a time in them that its record no longer holds.
--
-- When the upgrade sweep next tries to bring the envelope's sealed files up to their target
-- level (SealRecord::upgrade_due_at).
ALTER TABLE envelopes ADD COLUMN seal_due_at BIGINT;
-- When the newest document timestamp of its B-LTA files expires
-- (SealRecord::archive_expires_at).
ALTER TABLE envelopes ADD COLUMN seal_expires_at BIGINT;

-- Backfilled from the documents (plain JSON text; only events are stored packed), as migration
-- 5 did for updated_at. No record written before this schema holds either member (the service
-- did not set them yet), so this normally changes nothing; it is here so that the columns agree
-- with the documents whatever wrote them.
UPDATE envelopes SET
    seal_due_at = (EXTRACT(EPOCH FROM (doc::jsonb #>> '{seal,upgrade_due_at}')::timestamptz)
        * 1000)::BIGINT,
    seal_expires_at = (EXTRACT(EPOCH FROM
        (doc::jsonb #>> '{seal,archive_expires_at}')::timestamptz) * 1000)::BIGINT
WHERE doc::jsonb #>> '{seal,upgrade_due_at}' IS NOT NULL
    OR doc::jsonb #>> '{seal,archive_expires_at}' IS NOT NULL;

-- IDs compare as bytes (COLLATE "C"), as they do in Rust and in SQLite, whatever the database's
-- collation: the queries order and compare with the same collation, so the index serves them.
CREATE INDEX envelopes_seal_due ON envelopes (seal_due_at, id COLLATE "C")
    WHERE seal_due_at IS NOT NULL;
CREATE INDEX envelopes_seal_expiring ON envelopes (seal_expires_at, id COLLATE "C")
    WHERE seal_expires_at IS NOT NULL;

INSERT INTO schema_notes (version, note) VALUES (12, 'seal sweep columns');
