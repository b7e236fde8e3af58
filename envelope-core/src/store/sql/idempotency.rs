//! Idempotency keys: exactly one request per (scope, key), even across processes.
//!
//! `begin` never reads-then-writes without a guard:
//! 1. `INSERT .. ON CONFLICT DO NOTHING`: the unique key admits one inserter (on PostgreSQL a
//!    racing insert waits for the first to commit, then does nothing).
//! 2. Otherwise the row decides: a live finished response is replayed (or is a mismatch), a live
//!    claim is in flight (or a mismatch).
//! 3. An abandoned claim or an expired response is taken over by an `UPDATE` guarded by the
//!    random `claim` nonce that was read: of several racers, exactly one changes the row.
//!
//! Steps 2-3 repeat when the row changed or vanished in between (bounded).
//!
//! `origin` names a key's lineage of claims (see [`IdempotencyBegin::Started`]): the first
//! claim's nonce, kept when a retry with the same fingerprint takes over an abandoned claim.

use async_trait::async_trait;

use super::{SqlStore, db_err, millis, with_tx, with_write};
use crate::clock::Timestamp;
use crate::model::Scope;
use crate::store::IdempotencyStore;
use crate::store::{IdempotencyBegin, StoreError, StoreResult, StoredResponse};

const CLAIM: &str = "INSERT INTO idempotency_keys \
    (account, mode, idem_key, fingerprint, claim, origin, started_at, done) \
    VALUES ($1, $2, $3, $4, $5, $5, $6, FALSE) \
    ON CONFLICT (account, mode, idem_key) DO NOTHING";

const READ: &str = "SELECT fingerprint, claim, COALESCE(origin, claim), started_at, done, status, \
    body, expires_at FROM idempotency_keys WHERE account = $1 AND mode = $2 AND idem_key = $3";

const TAKE_OVER: &str = "UPDATE idempotency_keys \
    SET fingerprint = $4, claim = $5, started_at = $6, done = FALSE, origin = $8, \
        status = NULL, body = NULL, expires_at = NULL \
    WHERE account = $1 AND mode = $2 AND idem_key = $3 AND claim = $7";

type Row = (
    String,
    String,
    String,
    i64,
    bool,
    Option<i64>,
    Option<Vec<u8>>,
    Option<i64>,
);

/// How many times `begin` re-reads a row that changed under it before reporting `Unavailable`.
const ATTEMPTS: usize = 8;

#[async_trait]
impl IdempotencyStore for SqlStore {
    async fn idempotency_begin(
        &self,
        scope: &Scope,
        key: &str,
        fingerprint: &str,
        now: Timestamp,
        stale_before: Timestamp,
    ) -> StoreResult<IdempotencyBegin> {
        let mode = scope.mode.as_str();
        for _ in 0..ATTEMPTS {
            let claim = uuid::Uuid::new_v4().to_string();
            let (inserted, row): (u64, Option<Row>) = with_tx!(&self.pool, |tx| {
                let inserted = sqlx::query(CLAIM)
                    .bind(&scope.account)
                    .bind(mode)
                    .bind(key)
                    .bind(fingerprint)
                    .bind(&claim)
                    .bind(millis(now))
                    .execute(&mut *tx)
                    .await
                    .map_err(db_err)?
                    .rows_affected();
                let row = if inserted == 1 {
                    None
                } else {
                    sqlx::query_as(READ)
                        .bind(&scope.account)
                        .bind(mode)
                        .bind(key)
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(db_err)?
                };
                (inserted, row)
            });
            if inserted == 1 {
                return Ok(IdempotencyBegin::Started { origin: claim });
            }
            let Some((f, old_claim, old_origin, started_at, done, status, body, expires_at)) = row
            else {
                continue; // released in between: try to insert again
            };
            let same = f == fingerprint;
            if done && expires_at.is_some_and(|e| e > millis(now)) {
                return Ok(if same {
                    IdempotencyBegin::Replay(StoredResponse {
                        status: status.and_then(|s| u16::try_from(s).ok()).unwrap_or(500),
                        body: body.unwrap_or_default(),
                    })
                } else {
                    IdempotencyBegin::Mismatch
                });
            }
            if !done && started_at > millis(stale_before) {
                return Ok(if same {
                    IdempotencyBegin::InFlight
                } else {
                    IdempotencyBegin::Mismatch
                });
            }
            // A retry of the same request continues its lineage; anything else starts a new one.
            let origin = if !done && same {
                old_origin
            } else {
                claim.clone()
            };
            let taken = with_write!(&self.pool, |e| {
                sqlx::query(TAKE_OVER)
                    .bind(&scope.account)
                    .bind(mode)
                    .bind(key)
                    .bind(fingerprint)
                    .bind(&claim)
                    .bind(millis(now))
                    .bind(&old_claim)
                    .bind(&origin)
                    .execute(e)
                    .await
                    .map_err(db_err)?
                    .rows_affected()
            });
            if taken == 1 {
                return Ok(IdempotencyBegin::Started { origin });
            }
        }
        Err(StoreError::Unavailable(
            "idempotency key kept changing under concurrent requests".into(),
        ))
    }

    async fn idempotency_finish(
        &self,
        scope: &Scope,
        key: &str,
        response: &StoredResponse,
        expires_at: Timestamp,
    ) -> StoreResult<()> {
        with_write!(&self.pool, |e| {
            sqlx::query(
                "UPDATE idempotency_keys SET done = TRUE, status = $4, body = $5, expires_at = $6 \
                 WHERE account = $1 AND mode = $2 AND idem_key = $3 AND done = FALSE",
            )
            .bind(&scope.account)
            .bind(scope.mode.as_str())
            .bind(key)
            .bind(i64::from(response.status))
            .bind(&response.body)
            .bind(millis(expires_at))
            .execute(e)
            .await
            .map_err(db_err)?;
        });
        Ok(())
    }

    async fn idempotency_release(&self, scope: &Scope, key: &str) -> StoreResult<()> {
        with_write!(&self.pool, |e| {
            sqlx::query(
                "DELETE FROM idempotency_keys \
                 WHERE account = $1 AND mode = $2 AND idem_key = $3 AND done = FALSE",
            )
            .bind(&scope.account)
            .bind(scope.mode.as_str())
            .bind(key)
            .execute(e)
            .await
            .map_err(db_err)?;
        });
        Ok(())
    }
}
