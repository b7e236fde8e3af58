//! The webhook outbox as the delivery worker sees it: leased claims, attempts, resends.
//!
//! A claim is a guarded update (`... WHERE id = $ AND status = 'pending' AND next_attempt_at <=
//! now`) inside one transaction: on PostgreSQL a concurrent claimer re-checks the row after the
//! first commits and skips it; on SQLite writers are serialized by `BEGIN IMMEDIATE`. Either way a
//! delivery is claimed by one worker until its lease runs out.

use async_trait::async_trait;

use crate::ids::{AccountId, DeliveryId, WebhookEndpointId};
use crate::store::OutboxStore;
use std::collections::HashMap;

use super::events::{DeliveryRow, EventRow, delivery_from_row, event_from_row};
use super::{SqlStore, db_err, decode, encode, millis, with_pool, with_tx, with_write};
use crate::clock::Timestamp;
use crate::model::{
    DeliveryAttempt, DeliveryNext, DueDelivery, EnvelopeRecord, Mode, WebhookDelivery,
    WebhookEndpointRecord,
};
use crate::store::{ClaimLimits, StoreError, StoreResult};

/// Due deliveries, oldest first; [`candidates_sql`] appends the exclusions and the window.
const CANDIDATES: &str = "SELECT d.id, d.endpoint_id, d.account FROM webhook_deliveries d \
    JOIN webhook_endpoints e ON e.id = d.endpoint_id \
    WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND e.status = 'enabled'";

/// The candidates query without the busy endpoints and the accounts at their cap, so that
/// their backlog cannot fill the window and hide everyone else's due deliveries. Placeholders
/// `$3..` follow the order of `excluded_endpoints` then `excluded_accounts`.
fn candidates_sql(excluded_endpoints: usize, excluded_accounts: usize) -> String {
    let mut sql = String::from(CANDIDATES);
    let mut n = 3;
    for (column, count) in [
        ("d.endpoint_id", excluded_endpoints),
        ("d.account", excluded_accounts),
    ] {
        if count > 0 {
            let marks: Vec<String> = (n..n + count).map(|i| format!("${i}")).collect();
            sql.push_str(&format!(" AND {column} NOT IN ({})", marks.join(", ")));
            n += count;
        }
    }
    sql.push_str(" ORDER BY d.next_attempt_at, d.seq LIMIT $2");
    sql
}

const LEASE: &str = "UPDATE webhook_deliveries SET next_attempt_at = $1 \
    WHERE id = $2 AND status = 'pending' AND next_attempt_at <= $3";

const DELIVERY: &str = "SELECT id, account, mode, event_id, endpoint_id, status, attempts, \
    next_attempt_at, created_at, last_attempt_at FROM webhook_deliveries WHERE id = $1";

const ATTEMPT: &str =
    "INSERT INTO webhook_attempts (delivery_id, event_id, doc) VALUES ($1, $2, $3)";

const MOVE_ON: &str = "UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3, \
    last_attempt_at = $4 WHERE id = $5";

const INSERT: &str = "INSERT INTO webhook_deliveries \
    (id, account, mode, event_id, endpoint_id, status, attempts, next_attempt_at, created_at) \
    VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $7)";

#[async_trait]
impl OutboxStore for SqlStore {
    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limits: &ClaimLimits<'_>,
    ) -> StoreResult<Vec<DueDelivery>> {
        let limit = limits.limit;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let window = i64::try_from(limit.saturating_mul(4).min(2000)).unwrap_or(2000);
        let full: Vec<&AccountId> = limits.full_accounts().collect();
        let sql = candidates_sql(limits.busy_endpoints.len(), full.len());
        let claimed: Vec<(WebhookDelivery, String, EventRow)> = with_tx!(&self.pool, |tx| {
            let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql.clone()))
                .bind(millis(now))
                .bind(window);
            for endpoint in limits.busy_endpoints {
                query = query.bind(endpoint);
            }
            for account in &full {
                query = query.bind(*account);
            }
            let candidates: Vec<(DeliveryId, WebhookEndpointId, AccountId)> =
                query.fetch_all(&mut *tx).await.map_err(db_err)?;
            let mut per: HashMap<WebhookEndpointId, usize> = HashMap::new();
            let mut per_account: HashMap<AccountId, usize> = HashMap::new();
            let mut out = Vec::new();
            for (id, endpoint, account) in candidates {
                if out.len() == limit {
                    break;
                }
                let a = per_account.get(&account).copied().unwrap_or(0);
                if a >= limits.account_room(&account) {
                    continue;
                }
                let n = per.entry(endpoint.clone()).or_insert(0);
                if *n >= limits.per_endpoint {
                    continue;
                }
                let changed = sqlx::query(LEASE)
                    .bind(millis(lease_until))
                    .bind(&id)
                    .bind(millis(now))
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?
                    .rows_affected();
                if changed == 0 {
                    continue; // another worker took it
                }
                *n += 1;
                *per_account.entry(account).or_insert(0) += 1;
                let row: DeliveryRow = sqlx::query_as(DELIVERY)
                    .bind(&id)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(db_err)?;
                let delivery = delivery_from_row(row)?;
                let ep: String =
                    sqlx::query_scalar("SELECT doc FROM webhook_endpoints WHERE id = $1")
                        .bind(&endpoint)
                        .fetch_one(&mut *tx)
                        .await
                        .map_err(db_err)?;
                let ev: EventRow = sqlx::query_as("SELECT doc, packed FROM events WHERE id = $1")
                    .bind(&delivery.event)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(db_err)?;
                out.push((delivery, ep, ev));
            }
            out
        });
        let mut due = Vec::with_capacity(claimed.len());
        for (delivery, ep, ev) in claimed {
            let ep: WebhookEndpointRecord = decode("webhook endpoint", &ep)?;
            let ev = event_from_row(ev)?;
            let mut secrets = vec![ep.secret.clone()];
            if let (Some(old), Some(until)) = (&ep.previous_secret, ep.previous_secret_expires_at)
                && until > now
            {
                secrets.push(old.clone());
            }
            due.push(DueDelivery {
                delivery,
                url: ep.url,
                secrets,
                event: ev.event,
            });
        }
        Ok(due)
    }

    async fn record_attempts(&self, batch: &[(DeliveryAttempt, DeliveryNext)]) -> StoreResult<()> {
        let docs = batch
            .iter()
            .map(|(a, _)| encode(a))
            .collect::<StoreResult<Vec<_>>>()?;
        with_tx!(&self.pool, |tx| {
            for ((attempt, next), doc) in batch.iter().zip(&docs) {
                let (status, next_at) = match next {
                    DeliveryNext::Delivered => ("delivered", None),
                    DeliveryNext::Retry(t) => ("pending", Some(millis(*t))),
                    DeliveryNext::Failed => ("failed", None),
                };
                let changed = sqlx::query(MOVE_ON)
                    .bind(status)
                    .bind(i64::from(attempt.number))
                    .bind(next_at)
                    .bind(millis(attempt.at))
                    .bind(&attempt.delivery)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?
                    .rows_affected();
                if changed == 0 {
                    // Deleted with its envelope (retention) while the attempt ran.
                    continue;
                }
                sqlx::query(ATTEMPT)
                    .bind(&attempt.delivery)
                    .bind(&attempt.event)
                    .bind(doc)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?;
            }
        });
        Ok(())
    }

    async fn insert_deliveries(&self, deliveries: &[WebhookDelivery]) -> StoreResult<()> {
        with_tx!(&self.pool, |tx| {
            for d in deliveries {
                sqlx::query(INSERT)
                    .bind(&d.id)
                    .bind(&d.account)
                    .bind(d.mode.as_str())
                    .bind(&d.event)
                    .bind(&d.endpoint)
                    .bind(d.next_attempt_at.map(millis))
                    .bind(millis(d.created_at))
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| match &e {
                        sqlx::Error::Database(db) if db.is_unique_violation() => {
                            StoreError::Duplicate
                        }
                        _ => db_err(e),
                    })?;
            }
        });
        Ok(())
    }

    /// In turns by account: a record's turn is its rank among its account's due records. The
    /// ranks are counted on the partial index of migration 0009 (`account, next_email_at, seq`)
    /// without reading the records; only the `limit` chosen rows' documents are read.
    async fn due_emails(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<EnvelopeRecord>> {
        self.envelopes_due(
            "SELECT e.doc FROM envelopes e JOIN ( \
                 SELECT seq, next_email_at, ROW_NUMBER() OVER \
                     (PARTITION BY account ORDER BY next_email_at, seq) AS turn \
                 FROM envelopes WHERE next_email_at <= $1 \
                 ORDER BY turn, next_email_at, seq LIMIT $2 \
             ) due ON e.seq = due.seq \
             ORDER BY due.turn, due.next_email_at, due.seq",
            now,
            limit,
        )
        .await
    }

    async fn take_email(
        &self,
        account: &AccountId,
        mode: Mode,
        day: &str,
        default_limit: Option<u32>,
    ) -> StoreResult<bool> {
        let r = with_write!(&self.pool, |e| {
            sqlx::query(take_email_sql().as_str())
                .bind(account)
                .bind(mode.as_str())
                .bind(day)
                .bind(default_limit.map(i64::from))
                .execute(e)
                .await
                .map_err(db_err)?
                .rows_affected()
        });
        Ok(r > 0)
    }

    /// Counts pending webhook deliveries and envelopes with pending emails (the partial index
    /// of migration 0004).
    async fn queue_depths(&self) -> StoreResult<crate::store::QueueDepths> {
        let count = |sql: &'static str| async move {
            let n: i64 = with_pool!(&self.pool, |p| {
                sqlx::query_scalar(sql).fetch_one(p).await.map_err(db_err)?
            });
            Ok::<u64, StoreError>(u64::try_from(n).unwrap_or(0))
        };
        Ok(crate::store::QueueDepths {
            webhook_deliveries: count(
                "SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending'",
            )
            .await?,
            envelopes_with_emails: count(
                "SELECT COUNT(*) FROM envelopes WHERE next_email_at IS NOT NULL",
            )
            .await?,
        })
    }
}

/// The account's own budget for the mode `$2`, read in the budget's statement.
const OWN_LIMIT: &str = "(SELECT CASE WHEN $2 = 'test' THEN test_email_daily_limit \
    ELSE live_email_daily_limit END FROM accounts WHERE id = $1)";

/// Takes one email from `(account, mode, day)` = `($1, $2, $3)` while the count is below the
/// budget (own, else the default `$4`, else none): no row changed means refused. The budget is
/// read in the statement, under the usage row's lock (PostgreSQL) or the one writer (SQLite),
/// so two processes never both take the last email.
fn take_email_sql() -> &'static String {
    static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SQL.get_or_init(|| {
        format!(
            "INSERT INTO email_usage (account, mode, day, used) \
             SELECT $1, $2, $3, 1 WHERE 0 < COALESCE({OWN_LIMIT}, $4, 1) \
             ON CONFLICT (account, mode, day) DO UPDATE SET used = email_usage.used + 1 \
             WHERE email_usage.used < COALESCE({OWN_LIMIT}, $4, email_usage.used + 1)"
        )
    })
}
