//! The webhook outbox as the delivery worker sees it: leased claims, attempts, resends.
//!
//! A claim is a guarded update (`... WHERE id = $ AND status = 'pending' AND next_attempt_at <=
//! now`) inside one transaction: on PostgreSQL a concurrent claimer re-checks the row after the
//! first commits and skips it; on SQLite writers are serialized by `BEGIN IMMEDIATE`. Either way a
//! delivery is claimed by one worker until its lease runs out.

use std::collections::HashMap;

use super::events::{DeliveryRow, EventRow, delivery_from_row, event_from_row};
use super::{SqlStore, db_err, decode, encode, millis, with_pool, with_tx};
use crate::clock::Timestamp;
use crate::model::{
    DeliveryAttempt, DeliveryNext, DueDelivery, Scope, WebhookDelivery, WebhookEndpointRecord,
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

impl SqlStore {
    pub(super) async fn claim_deliveries_impl(
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
        let full: Vec<&str> = limits.full_accounts().collect();
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
            let candidates: Vec<(String, String, String)> =
                query.fetch_all(&mut *tx).await.map_err(db_err)?;
            let mut per: HashMap<String, usize> = HashMap::new();
            let mut per_account: HashMap<String, usize> = HashMap::new();
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

    pub(super) async fn record_attempts_impl(
        &self,
        batch: &[(DeliveryAttempt, DeliveryNext)],
    ) -> StoreResult<()> {
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

    pub(super) async fn delivery_attempts_impl(
        &self,
        scope: &Scope,
        event: &str,
    ) -> StoreResult<Vec<DeliveryAttempt>> {
        let docs: Vec<String> = with_pool!(&self.pool, |p| {
            sqlx::query_scalar(
                "SELECT a.doc FROM webhook_attempts a JOIN events e ON e.id = a.event_id \
                 WHERE a.event_id = $1 AND e.account = $2 AND e.mode = $3 ORDER BY a.seq",
            )
            .bind(event)
            .bind(&scope.account)
            .bind(scope.mode.as_str())
            .fetch_all(p)
            .await
            .map_err(db_err)?
        });
        docs.iter().map(|d| decode("webhook attempt", d)).collect()
    }

    pub(super) async fn insert_deliveries_impl(
        &self,
        deliveries: &[WebhookDelivery],
    ) -> StoreResult<()> {
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
}
