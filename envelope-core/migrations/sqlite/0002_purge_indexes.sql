-- Indexes for purging what can no longer be used (Store::purge_expired): finished idempotency
-- records by the end of their replay window, claims that never finished by their start, and
-- links by their expiry.
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
CREATE INDEX idempotency_keys_started ON idempotency_keys (started_at);
CREATE INDEX signing_tokens_expires ON signing_tokens (expires_at);
CREATE INDEX file_links_expires ON file_links (expires_at);
