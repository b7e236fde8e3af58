-- Schema 9: the daily email budget and fair email (docs/MAIL.md, "Daily email budget").
--
-- An account's own daily email budget per mode; NULL takes the service's default
-- (--test-email-daily-limit, --live-email-daily-limit). Columns, like monthly_allowance, so
-- that the budget's one statement reads them under the usage row's lock.
ALTER TABLE accounts ADD COLUMN test_email_daily_limit BIGINT;
ALTER TABLE accounts ADD COLUMN live_email_daily_limit BIGINT;

-- Emails taken from each account's budget per mode and UTC day (YYYY-MM-DD): one row per
-- account, mode and day on which it sent email, counted up by one conditional upsert.
CREATE TABLE email_usage (
    account TEXT NOT NULL,
    mode TEXT NOT NULL,
    day TEXT NOT NULL,
    used BIGINT NOT NULL,
    PRIMARY KEY (account, mode, day)
);

-- The email worker takes due envelopes in turns by account (ROW_NUMBER() OVER (PARTITION BY
-- account ORDER BY next_email_at, seq)): this index gives each account's due envelopes in that
-- order without reading the records.
CREATE INDEX envelopes_email_due_by_account ON envelopes (account, next_email_at, seq)
    WHERE next_email_at IS NOT NULL;

INSERT INTO schema_notes (version, note) VALUES (9, 'daily email budgets');
