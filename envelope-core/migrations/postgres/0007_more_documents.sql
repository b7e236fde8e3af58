-- Schema 7: an envelope may hold several documents (extensions E5). The first stays the record's
-- `original`; the others are in its `more_documents`, each with its own signed copy. The tables
-- keep their shape: records are JSON documents and the new members are optional. The version
-- rises so that an older binary, which knows only the first document, refuses this database
-- instead of dropping the others when it rewrites a record (and their blobs with retention).
INSERT INTO schema_notes (version, note) VALUES (7, 'envelopes may hold several documents');
