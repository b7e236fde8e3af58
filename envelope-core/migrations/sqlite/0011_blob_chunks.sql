-- Schema 11: blob bytes in chunks (store/sql/blobs.rs; docs/STORAGE.md, "Blobs in chunks").
-- `blobs` keeps one row per blob: its size, the generation of its last `put` and its time;
-- `blob_chunks` keeps the bytes in pieces of at most 262 144 bytes (256 KiB), so that a download
-- reads one short indexed statement per chunk instead of the whole blob. A retried `put` of a
-- key writes the next generation and deletes the chunks of the earlier ones in the same
-- transaction, so a reader of the old generation finds its next chunk gone and stops with an
-- error rather than mixing old and new bytes. The version rises so that an older binary, which
-- reads `blobs.data`, refuses this database.
CREATE TABLE blob_chunks (
    blob_key TEXT NOT NULL,
    generation INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (blob_key, generation, seq)
);

-- The existing blobs, cut into chunks as generation 0. SQLite's substr() loads the whole value
-- for each chunk, so a blob of n chunks is read n times here: once, at the upgrade.
WITH RECURSIVE seqs(seq) AS (
    SELECT 0
    UNION ALL
    SELECT seq + 1 FROM seqs
    WHERE (seq + 1) * 262144 < (SELECT MAX(length(data)) FROM blobs)
)
INSERT INTO blob_chunks (blob_key, generation, seq, data)
SELECT b.blob_key, 0, s.seq, substr(b.data, s.seq * 262144 + 1, 262144)
FROM blobs b JOIN seqs s ON s.seq * 262144 < length(b.data)
ORDER BY b.blob_key, s.seq;

-- A new table rather than DROP COLUMN: the old one goes whole, and with secure_delete its pages
-- are overwritten with zeros.
CREATE TABLE blobs_v11 (
    blob_key TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    generation INTEGER NOT NULL,
    created_at INTEGER
);
INSERT INTO blobs_v11 (blob_key, size, generation, created_at)
SELECT blob_key, length(data), 0, created_at FROM blobs ORDER BY blob_key;
DROP TABLE blobs;
ALTER TABLE blobs_v11 RENAME TO blobs;

INSERT INTO schema_notes (version, note) VALUES (11, 'blob bytes are stored in chunks');
