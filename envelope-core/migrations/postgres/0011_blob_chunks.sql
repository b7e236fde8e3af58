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
    generation BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (blob_key, generation, seq)
);
-- PDFs are compressed already: no pglz attempt on every chunk; kept out of line in TOAST.
ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

-- The existing blobs, cut into chunks as generation 0.
INSERT INTO blob_chunks (blob_key, generation, seq, data)
SELECT b.blob_key, 0, s.seq, substring(b.data FROM s.seq * 262144 + 1 FOR 262144)
FROM blobs b
CROSS JOIN LATERAL generate_series(0, (length(b.data) - 1) / 262144) AS s(seq)
WHERE length(b.data) > 0;

-- A new table rather than DROP COLUMN, which would leave the bytes in the table's files until a
-- VACUUM FULL: DROP TABLE removes them.
CREATE TABLE blobs_v11 (
    blob_key TEXT PRIMARY KEY,
    size BIGINT NOT NULL,
    generation BIGINT NOT NULL,
    created_at BIGINT
);
INSERT INTO blobs_v11 (blob_key, size, generation, created_at)
SELECT blob_key, length(data), 0, created_at FROM blobs;
DROP TABLE blobs;
ALTER TABLE blobs_v11 RENAME TO blobs;
ALTER TABLE blobs RENAME CONSTRAINT blobs_v11_pkey TO blobs_pkey;

INSERT INTO schema_notes (version, note) VALUES (11, 'blob bytes are stored in chunks');
