-- envelope schema version 1 (PostgreSQL). Keep in step with ../sqlite/0001_init.sql.
-- Never edit this file once released: add a new numbered migration instead.
--
-- Records are JSON documents (`doc`, serde_json of the *Record types) next to the columns that
-- queries filter, order or update on. Where a column and the document both hold a value that
-- changes in place (accounts.monthly_allowance, api_keys.revoked_at) the column wins.
-- `seq` is the insertion order: keyset pagination walks (account, mode, seq) downwards.

CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    monthly_allowance BIGINT NOT NULL,
    doc TEXT NOT NULL
);

CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    account TEXT NOT NULL REFERENCES accounts (id),
    hash TEXT NOT NULL UNIQUE,
    revoked_at BIGINT,
    doc TEXT NOT NULL
);
CREATE INDEX api_keys_account ON api_keys (account, seq);

CREATE TABLE allowance_usage (
    account TEXT NOT NULL,
    period TEXT NOT NULL,
    used BIGINT NOT NULL,
    PRIMARY KEY (account, period)
);

CREATE TABLE templates (
    id TEXT PRIMARY KEY,
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    account TEXT NOT NULL,
    mode TEXT NOT NULL,
    version BIGINT NOT NULL,
    archived BOOLEAN NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX templates_page ON templates (account, mode, seq);

CREATE TABLE envelopes (
    id TEXT PRIMARY KEY,
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    account TEXT NOT NULL,
    mode TEXT NOT NULL,
    version BIGINT NOT NULL,
    status TEXT NOT NULL,
    template TEXT,
    expires_at BIGINT,
    doc TEXT NOT NULL
);
CREATE INDEX envelopes_page ON envelopes (account, mode, seq);
CREATE INDEX envelopes_by_template ON envelopes (account, mode, template, seq);
CREATE INDEX envelopes_expiring ON envelopes (expires_at) WHERE status IN ('draft', 'sent');

CREATE TABLE events (
    id TEXT PRIMARY KEY,
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    account TEXT NOT NULL,
    mode TEXT NOT NULL,
    event_type TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX events_page ON events (account, mode, seq);
CREATE INDEX events_by_type ON events (account, mode, event_type, seq);

CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    account TEXT NOT NULL,
    mode TEXT NOT NULL,
    status TEXT NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX webhook_endpoints_page ON webhook_endpoints (account, mode, seq);

-- The outbox. No foreign key to the endpoint: deleting an endpoint keeps its delivery history.
CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    account TEXT NOT NULL,
    mode TEXT NOT NULL,
    event_id TEXT NOT NULL REFERENCES events (id),
    endpoint_id TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    next_attempt_at BIGINT,
    created_at BIGINT NOT NULL,
    last_attempt_at BIGINT
);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id, seq);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

-- Every attempt to deliver, for `GET /events/{id}/deliveries`.
CREATE TABLE webhook_attempts (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id),
    event_id TEXT NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX webhook_attempts_event ON webhook_attempts (event_id, seq);

CREATE TABLE signing_tokens (
    token_hash TEXT PRIMARY KEY,
    envelope TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX signing_tokens_envelope ON signing_tokens (envelope);

CREATE TABLE file_links (
    token_hash TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL,
    doc TEXT NOT NULL
);

-- One row per (scope, key). `claim` is a random nonce renewed by every claim, so that a takeover
-- of an abandoned claim is a compare-and-swap that exactly one racer wins.
CREATE TABLE idempotency_keys (
    account TEXT NOT NULL,
    mode TEXT NOT NULL,
    idem_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    claim TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    done BOOLEAN NOT NULL,
    status BIGINT,
    body BYTEA,
    expires_at BIGINT,
    PRIMARY KEY (account, mode, idem_key)
);

CREATE TABLE blobs (
    blob_key TEXT PRIMARY KEY,
    data BYTEA NOT NULL
);
