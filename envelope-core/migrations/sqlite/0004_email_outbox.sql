-- The email outbox lives in the envelope records (their `emails`); this column is when the
-- earliest pending email of the record is due (EnvelopeRecord::next_email_at), written with
-- every envelope write, so that the email worker finds due emails through one small index.
-- Records written before it have no emails: NULL.
ALTER TABLE envelopes ADD COLUMN next_email_at BIGINT;
CREATE INDEX envelopes_email_due ON envelopes (next_email_at) WHERE next_email_at IS NOT NULL;
