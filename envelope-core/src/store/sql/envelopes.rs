//! Envelopes: the one transaction that writes an envelope, its events, the webhook outbox rows
//! and the allowance debit, all or nothing; and the envelope reads.

use super::lists::{Filter, ListSql};
use super::{SqlStore, db_err, decode, encode, millis, version, with_pool, with_tx};
use crate::clock::Timestamp;
use crate::ids;
use crate::model::{EnvelopeRecord, EventRecord, Scope, WebhookEndpointRecord};
use crate::store::{AllowanceDebit, EnvelopeFilter, Listed, PageRequest, StoreError, StoreResult};

const INSERT_ENVELOPE: &str = "INSERT INTO envelopes \
    (id, account, mode, version, status, template, expires_at, doc, next_email_at) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";

/// Compare-and-set on `version` (and scope): zero rows changed is a conflict.
const UPDATE_ENVELOPE: &str = "UPDATE envelopes \
    SET version = $4, status = $5, template = $6, expires_at = $7, doc = $8, next_email_at = $10 \
    WHERE id = $1 AND account = $2 AND mode = $3 AND version = $9";

/// One statement that debits only while `used < allowance`: no row is inserted when the allowance
/// is 0, and the conflicting row is updated only below the allowance. Zero rows changed means
/// the balance is spent. Concurrent debits serialize on the row lock (PostgreSQL) or the write
/// lock (SQLite), so the check and the increment cannot interleave.
const DEBIT: &str = "INSERT INTO allowance_usage (account, period, used) \
    SELECT $1, $2, 1 WHERE $3 > 0 \
    ON CONFLICT (account, period) DO UPDATE SET used = allowance_usage.used + 1 \
    WHERE allowance_usage.used < $3";

const INSERT_EVENT: &str = "INSERT INTO events \
    (id, account, mode, event_type, created_at, doc) VALUES ($1, $2, $3, $4, $5, $6)";

const ENABLED_ENDPOINTS: &str = "SELECT doc FROM webhook_endpoints \
    WHERE account = $1 AND mode = $2 AND status = 'enabled' ORDER BY seq";

const INSERT_DELIVERY: &str = "INSERT INTO webhook_deliveries \
    (id, account, mode, event_id, endpoint_id, status, attempts, next_attempt_at, created_at) \
    VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6)";

const LIST: ListSql = ListSql {
    cursor: "SELECT seq FROM envelopes WHERE id = $1 AND account = $2 AND mode = $3",
    page: "SELECT doc FROM envelopes WHERE account = $1 AND mode = $2 AND seq < $3 \
           ORDER BY seq DESC LIMIT $4",
};

const LIST_BY_TEMPLATE: ListSql = ListSql {
    cursor: LIST.cursor,
    page: "SELECT doc FROM envelopes WHERE account = $1 AND mode = $2 AND seq < $3 \
           AND template = $5 ORDER BY seq DESC LIMIT $4",
};

impl SqlStore {
    /// Inserts (`create`) or updates the envelope, debits, appends the events and fans each event
    /// out to the outbox, in one transaction.
    pub(super) async fn write_envelope(
        &self,
        env: &EnvelopeRecord,
        events: &[EventRecord],
        debit: Option<&AllowanceDebit>,
        create: bool,
    ) -> StoreResult<()> {
        let doc = encode(env)?;
        let new = version(env.version)?;
        let old = if create {
            0
        } else {
            new.checked_sub(1).ok_or(StoreError::Conflict)?
        };
        let event_docs = events.iter().map(encode).collect::<StoreResult<Vec<_>>>()?;
        let mode = env.mode.as_str();
        let status = env.status.as_str();
        let expires_at = env.expires_at.map(millis);
        let next_email_at = env.next_email_at().map(millis);
        with_tx!(&self.pool, |tx| {
            if create {
                sqlx::query(INSERT_ENVELOPE)
                    .bind(&env.id)
                    .bind(&env.account)
                    .bind(mode)
                    .bind(new)
                    .bind(status)
                    .bind(&env.template)
                    .bind(expires_at)
                    .bind(&doc)
                    .bind(next_email_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?;
            } else {
                let changed = sqlx::query(UPDATE_ENVELOPE)
                    .bind(&env.id)
                    .bind(&env.account)
                    .bind(mode)
                    .bind(new)
                    .bind(status)
                    .bind(&env.template)
                    .bind(expires_at)
                    .bind(&doc)
                    .bind(old)
                    .bind(next_email_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?
                    .rows_affected();
                if changed == 0 {
                    return Err(StoreError::Conflict);
                }
            }
            if let Some(d) = debit {
                let changed = sqlx::query(DEBIT)
                    .bind(&d.account)
                    .bind(&d.period)
                    .bind(i64::from(d.allowance))
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?
                    .rows_affected();
                if changed == 0 {
                    return Err(StoreError::InsufficientBalance);
                }
            }
            // Subscribed endpoints, read once per scope inside the transaction.
            let mut endpoints: Vec<(Scope, Vec<WebhookEndpointRecord>)> = Vec::new();
            for (e, edoc) in events.iter().zip(&event_docs) {
                let emode = e.mode.as_str();
                let created = millis(e.event.created_at);
                sqlx::query(INSERT_EVENT)
                    .bind(&e.event.id)
                    .bind(&e.account)
                    .bind(emode)
                    .bind(e.event.kind.as_str())
                    .bind(created)
                    .bind(edoc)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?;
                let scope = Scope {
                    account: e.account.clone(),
                    mode: e.mode,
                };
                let i = match endpoints.iter().position(|(s, _)| *s == scope) {
                    Some(i) => i,
                    None => {
                        let docs: Vec<String> = sqlx::query_scalar(ENABLED_ENDPOINTS)
                            .bind(&e.account)
                            .bind(emode)
                            .fetch_all(&mut *tx)
                            .await
                            .map_err(db_err)?;
                        let eps = docs
                            .iter()
                            .map(|d| decode("webhook endpoint", d))
                            .collect::<StoreResult<Vec<WebhookEndpointRecord>>>()?;
                        endpoints.push((scope, eps));
                        endpoints.len() - 1
                    }
                };
                let kind = e.event.kind.as_str();
                for ep in endpoints[i].1.iter().filter(|ep| ep.subscribes_to(kind)) {
                    sqlx::query(INSERT_DELIVERY)
                        .bind(ids::new_id(ids::DELIVERY))
                        .bind(&e.account)
                        .bind(emode)
                        .bind(&e.event.id)
                        .bind(&ep.id)
                        .bind(created)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_err)?;
                }
            }
        });
        Ok(())
    }

    pub(super) async fn get_envelope_impl(
        &self,
        scope: &Scope,
        id: &str,
    ) -> StoreResult<Option<EnvelopeRecord>> {
        self.scoped_doc(
            "SELECT doc FROM envelopes WHERE id = $1 AND account = $2 AND mode = $3",
            "envelope",
            scope,
            id,
        )
        .await
    }

    pub(super) async fn list_envelopes_impl(
        &self,
        scope: &Scope,
        filter: &EnvelopeFilter,
        page: &PageRequest,
    ) -> StoreResult<Listed<EnvelopeRecord>> {
        match &filter.template {
            None => {
                self.list_docs("envelope", &LIST, scope, Filter::None, page)
                    .await
            }
            Some(t) => {
                let f = Filter::Text(t.clone());
                self.list_docs("envelope", &LIST_BY_TEMPLATE, scope, f, page)
                    .await
            }
        }
    }

    /// Served by the partial index on `next_email_at` (migration 0004).
    pub(super) async fn due_emails_impl(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        self.envelopes_due(
            "SELECT doc FROM envelopes WHERE next_email_at <= $1 \
             ORDER BY next_email_at, seq LIMIT $2",
            now,
            limit,
        )
        .await
    }

    /// Served by the partial index on `expires_at` of draft and sent envelopes.
    pub(super) async fn expired_envelopes_impl(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        self.envelopes_due(
            "SELECT doc FROM envelopes WHERE status IN ('draft', 'sent') \
             AND expires_at <= $1 ORDER BY expires_at, seq LIMIT $2",
            now,
            limit,
        )
        .await
    }

    /// Envelopes of any scope that `sql` (with `$1` = now, `$2` = limit) finds due.
    async fn envelopes_due(
        &self,
        sql: &'static str,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let docs: Vec<String> = with_pool!(&self.pool, |p| {
            sqlx::query_scalar(sql)
                .bind(millis(now))
                .bind(limit)
                .fetch_all(p)
                .await
                .map_err(db_err)?
        });
        docs.iter().map(|d| decode("envelope", d)).collect()
    }
}
