-- Schema 13: builder links (extensions E11). A link opens one template or one draft envelope
-- for an hour; it is found by the SHA-256 of its token (the clear token is never stored), purged
-- with the other links once expired, and deleted with its object by retention (`target`).
CREATE TABLE builder_tokens (
    token_hash TEXT PRIMARY KEY,
    target TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX builder_tokens_target ON builder_tokens (target);
CREATE INDEX builder_tokens_expiry ON builder_tokens (expires_at);

INSERT INTO schema_notes (version, note) VALUES (13, 'builder links');
