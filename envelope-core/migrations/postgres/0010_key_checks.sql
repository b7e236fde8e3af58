-- One row per key that encrypts what the database keeps (the idempotency records' key, which
-- also seals webhook secrets): a known text sealed with the key, written by the first server
-- that starts on this database and compared by every start after it, so that a server with
-- another key refuses to start instead of failing requests (docs/ROBUSTNESS.md, "A wrong
-- shared key stops the start, not a request").
CREATE TABLE key_checks (
    name TEXT PRIMARY KEY,
    sealed TEXT NOT NULL
);
