-- Schema 6: a signed copy may be stored as the update it appends to its original
-- (StoredFile::delta; docs/STORAGE.md, "Signed copies"). The tables keep their shape: records
-- are JSON documents and the new member is optional. The version rises so that an older binary,
-- which would serve such a file as its update alone, refuses this database instead of answering
-- with a truncated PDF. The table records why each such version exists.
CREATE TABLE schema_notes (
    version BIGINT PRIMARY KEY,
    note TEXT NOT NULL
);
INSERT INTO schema_notes (version, note) VALUES (6, 'signed copies may be stored as deltas');
