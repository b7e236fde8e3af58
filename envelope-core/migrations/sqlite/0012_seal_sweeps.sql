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
    seal_due_at = CAST(ROUND((julianday(json_extract(doc, '$.seal.upgrade_due_at'))
        - 2440587.5) * 86400000.0) AS INTEGER),
    seal_expires_at = CAST(ROUND((julianday(json_extract(doc, '$.seal.archive_expires_at'))
        - 2440587.5) * 86400000.0) AS INTEGER)
WHERE json_extract(doc, '$.seal.upgrade_due_at') IS NOT NULL
    OR json_extract(doc, '$.seal.archive_expires_at') IS NOT NULL;

-- IDs compare as bytes (SQLite's default BINARY collation), as they do in Rust.
CREATE INDEX envelopes_seal_due ON envelopes (seal_due_at, id) WHERE seal_due_at IS NOT NULL;
CREATE INDEX envelopes_seal_expiring ON envelopes (seal_expires_at, id)
    WHERE seal_expires_at IS NOT NULL;

INSERT INTO schema_notes (version, note) VALUES (12, 'seal sweep columns');
