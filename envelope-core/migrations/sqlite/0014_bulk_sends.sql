-- Schema 14: bulk sends (extensions E12). One row per bulk send: its state in `doc` (counters,
-- cursor, failures), the checked rows apart in `rows` (names and emails: cleared when the bulk
-- send completes), and the lease (`lease_until`) that lets one process at a time work it.
-- Envelopes made by a bulk send name it in `bulk_send`, for the list filter.
CREATE TABLE bulk_sends (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL,
    mode TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    lease_until INTEGER,
    doc TEXT NOT NULL,
    rows TEXT
);
CREATE INDEX bulk_sends_page ON bulk_sends (account, mode, seq);
CREATE INDEX bulk_sends_processing ON bulk_sends (lease_until, seq) WHERE status = 'processing';

ALTER TABLE envelopes ADD COLUMN bulk_send TEXT;
CREATE INDEX envelopes_by_bulk_send ON envelopes (account, mode, bulk_send, seq)
    WHERE bulk_send IS NOT NULL;

INSERT INTO schema_notes (version, note) VALUES (14, 'bulk sends');
