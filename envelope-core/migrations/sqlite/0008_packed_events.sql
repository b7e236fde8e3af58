-- Schema 8: events are stored packed (store/sql/packed.rs): their JSON without nulls, deflated
-- with a preset dictionary, in the new column `packed`, with `doc` left empty. Events are the
-- largest table per envelope (docs/STORAGE.md, "Bytes per envelope"). Rows written before keep
-- their JSON in `doc` and read as before. The version rises so that an older binary, which reads
-- only `doc`, refuses this database instead of failing on every new event.
ALTER TABLE events ADD COLUMN packed BLOB;
INSERT INTO schema_notes (version, note) VALUES (8, 'events may be stored packed');
