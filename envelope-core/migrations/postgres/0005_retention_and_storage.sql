-- Retention and storage quotas (schema version 5). Keep in step with ../sqlite/0005_*.sql.
--
-- Columns that retention queries filter on, written with every record write and backfilled
-- from the documents here; rows written by an older binary during a rolling upgrade leave them
-- NULL, and NULL is never stale: such rows are kept until a new binary writes them again.

-- When the envelope last changed (EnvelopeRecord::last_change): the latest of its own
-- timestamps, top level and signers'.
ALTER TABLE envelopes ADD COLUMN updated_at BIGINT;
-- When live retention deleted its PDFs (EnvelopeRecord::files_deleted_at).
ALTER TABLE envelopes ADD COLUMN files_deleted_at BIGINT;
-- The blob keys the row holds (EnvelopeRecord::held_files), space-separated: what an update
-- releases or holds anew is the difference with the new record's.
ALTER TABLE envelopes ADD COLUMN blobs TEXT;
UPDATE envelopes SET
    updated_at = (
        SELECT (EXTRACT(EPOCH FROM GREATEST(
            (d->>'created_at')::timestamptz, (d->>'sent_at')::timestamptz,
            (d->>'completed_at')::timestamptz, (d->>'voided_at')::timestamptz,
            (SELECT MAX(GREATEST(
                (s->>'sent_at')::timestamptz, (s->>'last_reminded_at')::timestamptz,
                (s->>'consented_at')::timestamptz, (s->>'viewed_at')::timestamptz,
                (s->>'signed_at')::timestamptz, (s->>'declined_at')::timestamptz))
             FROM jsonb_array_elements(d->'signers') s)
        )) * 1000)::BIGINT
        FROM (SELECT envelopes.doc::jsonb AS d) j
    ),
    blobs = (doc::jsonb #>> '{original,blob}')
        || COALESCE(' ' || (doc::jsonb #>> '{signed,blob}'), '')
        || COALESCE(' ' || (doc::jsonb #>> '{audit_trail,blob}'), '');
-- Test retention (by mode, oldest first) and live retention (finished envelopes that still
-- hold their files).
CREATE INDEX envelopes_by_change ON envelopes (mode, updated_at);
CREATE INDEX envelopes_with_files ON envelopes (mode, updated_at)
    WHERE status IN ('completed', 'voided') AND files_deleted_at IS NULL;

ALTER TABLE templates ADD COLUMN updated_at BIGINT;
-- The blob key the template holds (its file), as for envelopes.
ALTER TABLE templates ADD COLUMN blobs TEXT;
UPDATE templates SET
    updated_at = (EXTRACT(EPOCH FROM (doc::jsonb ->> 'updated_at')::timestamptz) * 1000)::BIGINT,
    blobs = doc::jsonb #>> '{file,blob}';
CREATE INDEX templates_by_change ON templates (mode, updated_at);

-- The envelope of each event, so that an envelope's events are deleted with it.
ALTER TABLE events ADD COLUMN envelope TEXT;
UPDATE events SET envelope = doc::jsonb #>> '{event,data,object,id}';
CREATE INDEX events_by_envelope ON events (envelope);

-- The blob of each download link, so that links go with the last hold of their blob.
ALTER TABLE file_links ADD COLUMN blob TEXT;
UPDATE file_links SET blob = doc::jsonb ->> 'blob';
CREATE INDEX file_links_by_blob ON file_links (blob);

-- When each blob was stored (the service's clock), for the orphan sweep's grace period. NULL
-- for blobs stored before this version or by an older binary: never swept.
ALTER TABLE blobs ADD COLUMN created_at BIGINT;

-- Blobs that records hold: one row per blob while at least one record holds it. `holders`
-- changes under the row's lock, so concurrent releases agree on which one was the last.
CREATE TABLE held_blobs (
    blob_key TEXT PRIMARY KEY,
    account TEXT NOT NULL,
    size BIGINT NOT NULL,
    holders BIGINT NOT NULL
);
INSERT INTO held_blobs (blob_key, account, size, holders)
SELECT blob_key, MIN(account), MAX(size), COUNT(*) FROM (
    SELECT doc::jsonb #>> '{original,blob}' AS blob_key, account,
           (doc::jsonb #>> '{original,size}')::BIGINT AS size FROM envelopes
    UNION ALL
    SELECT doc::jsonb #>> '{signed,blob}', account, (doc::jsonb #>> '{signed,size}')::BIGINT
    FROM envelopes WHERE doc::jsonb #>> '{signed,blob}' IS NOT NULL
    UNION ALL
    SELECT doc::jsonb #>> '{audit_trail,blob}', account,
           (doc::jsonb #>> '{audit_trail,size}')::BIGINT
    FROM envelopes WHERE doc::jsonb #>> '{audit_trail,blob}' IS NOT NULL
    UNION ALL
    SELECT doc::jsonb #>> '{file,blob}', account, (doc::jsonb #>> '{file,size}')::BIGINT
    FROM templates
) held GROUP BY blob_key;

-- Bytes of held blobs per account (each blob once), changed in the transaction of the record
-- write that holds or releases them; and the quota a create may not pass (NULL: none).
CREATE TABLE storage_usage (
    account TEXT PRIMARY KEY,
    bytes BIGINT NOT NULL
);
INSERT INTO storage_usage (account, bytes)
SELECT account, SUM(size) FROM held_blobs GROUP BY account;
ALTER TABLE accounts ADD COLUMN storage_quota BIGINT;
