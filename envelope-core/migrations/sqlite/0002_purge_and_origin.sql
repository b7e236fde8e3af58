-- Indexes for purging what can no longer be used (Store::purge_expired): finished idempotency
-- records by the end of their replay window, claims that never finished by their start, and
-- links by their expiry.
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
CREATE INDEX idempotency_keys_started ON idempotency_keys (started_at);
CREATE INDEX signing_tokens_expires ON signing_tokens (expires_at);
CREATE INDEX file_links_expires ON file_links (expires_at);

-- The lineage of a key's claims: set by the first claim and kept when a claim abandoned by a
-- dead process is taken over by a retry of the same request, so that the retry derives the same
-- resource IDs and finds what the first attempt committed (NULL in rows from version 1: the
-- claim nonce stands in).
ALTER TABLE idempotency_keys ADD COLUMN origin TEXT;
