//! Retention: deleting stale records with everything that belongs to them, finding finished
//! envelopes whose files live retention deletes, and telling which blobs no record holds.
//!
//! A batch is one transaction, deleting at most `limit` records (the service asks for about a
//! hundred), so that writers never wait long behind it. The outer `DELETE` repeats the
//! conditions of its subquery: on PostgreSQL a row changed concurrently is re-checked after the
//! wait, so an envelope written since it was selected is kept (and a write that waits for the
//! delete finds no row: `Conflict`).

use async_trait::async_trait;

use super::held::{self, move_holds};
use super::{SqlStore, db_err, decode, millis, with_pool, with_tx, with_write};
use crate::clock::Timestamp;
use crate::model::{EnvelopeRecord, Mode};
use crate::store::RetentionStore;
use crate::store::{PurgeBefore, Purged, Removed, StoreResult};

const STALE_ENVELOPES: &str = "DELETE FROM envelopes WHERE id IN \
    (SELECT id FROM envelopes WHERE mode = $1 AND updated_at < $2 \
     ORDER BY updated_at, seq LIMIT $3) \
    AND mode = $1 AND updated_at < $2 RETURNING id, account, blobs";

/// Rows that belong to one envelope (`$1`), deleted with it: children before their parents
/// (foreign keys). A table that names an envelope adds its line here.
const ENVELOPE_ROWS: &[&str] = &[
    "DELETE FROM webhook_attempts WHERE event_id IN (SELECT id FROM events WHERE envelope = $1)",
    "DELETE FROM webhook_deliveries WHERE event_id IN \
     (SELECT id FROM events WHERE envelope = $1)",
    "DELETE FROM events WHERE envelope = $1",
    "DELETE FROM signing_tokens WHERE envelope = $1",
    "DELETE FROM builder_tokens WHERE target = $1",
];

/// Rows that belong to one template (`$1`), deleted with it.
const TEMPLATE_ROWS: &[&str] = &["DELETE FROM builder_tokens WHERE target = $1"];

const STALE_TEMPLATES: &str = "DELETE FROM templates WHERE id IN \
    (SELECT id FROM templates WHERE mode = $1 AND updated_at < $2 \
     ORDER BY updated_at, seq LIMIT $3) \
    AND mode = $1 AND updated_at < $2 RETURNING id, account, blobs";

/// Served by the partial index `envelopes_with_files` (migration 0005).
const WITH_FILES: &str = "SELECT doc FROM envelopes WHERE mode = $1 AND updated_at < $2 \
    AND status IN ('completed', 'voided') AND files_deleted_at IS NULL \
    ORDER BY updated_at, seq LIMIT $3";

/// Keys per `IN (...)` of `RetentionStore::unheld_blobs` of [`SqlStore`].
const KEYS_PER_QUERY: usize = 100;

impl SqlStore {
    /// Runs `delete` (returning `id, account, blobs`), then `dependents` for each deleted ID,
    /// and releases the blobs each held: one transaction.
    async fn delete_stale(
        &self,
        delete: &'static str,
        dependents: &'static [&'static str],
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let out = with_tx!(&self.pool, |tx| {
            let rows: Vec<(String, String, Option<String>)> = sqlx::query_as(delete)
                .bind(mode.as_str())
                .bind(millis(before))
                .bind(limit)
                .fetch_all(&mut *tx)
                .await
                .map_err(db_err)?;
            let mut out = Removed::default();
            for (id, account, blobs) in &rows {
                for sql in dependents {
                    sqlx::query(*sql)
                        .bind(id)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_err)?;
                }
                let freed = move_holds!(tx, account, &held::keys(blobs.as_deref()), &[], false);
                out.blobs.extend(freed);
                out.records += 1;
            }
            out
        });
        Ok(out)
    }
}

#[async_trait]
impl RetentionStore for SqlStore {
    async fn purge_expired(&self, before: &PurgeBefore, limit: usize) -> StoreResult<Purged> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let finished = self
            .delete_batch(FINISHED, millis(before.idempotency), limit)
            .await?;
        // The two idempotency statements share the batch size.
        let left = limit - i64::try_from(finished).unwrap_or(limit);
        let abandoned = if left > 0 {
            self.delete_batch(ABANDONED, millis(before.idempotency), left)
                .await?
        } else {
            0
        };
        Ok(Purged {
            idempotency_keys: finished + abandoned,
            signing_tokens: self
                .delete_batch(TOKENS, millis(before.links), limit)
                .await?,
            file_links: self
                .delete_batch(LINKS, millis(before.links), limit)
                .await?,
            builder_tokens: self
                .delete_batch(BUILDER_TOKENS, millis(before.links), limit)
                .await?,
        })
    }

    async fn delete_stale_envelopes(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed> {
        self.delete_stale(STALE_ENVELOPES, ENVELOPE_ROWS, mode, before, limit)
            .await
    }

    async fn delete_stale_templates(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed> {
        self.delete_stale(STALE_TEMPLATES, TEMPLATE_ROWS, mode, before, limit)
            .await
    }

    async fn envelopes_with_files(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let docs: Vec<String> = with_pool!(&self.pool, |p| {
            sqlx::query_scalar(WITH_FILES)
                .bind(mode.as_str())
                .bind(millis(before))
                .bind(limit)
                .fetch_all(p)
                .await
                .map_err(db_err)?
        });
        docs.iter().map(|d| decode("envelope", d)).collect()
    }

    async fn unheld_blobs(&self, keys: &[String]) -> StoreResult<Vec<String>> {
        let mut held: Vec<String> = Vec::new();
        for chunk in keys.chunks(KEYS_PER_QUERY) {
            // Placeholders only: the keys are bound, never spliced into the text.
            let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
            let sql = format!(
                "SELECT blob_key FROM held_blobs WHERE blob_key IN ({})",
                marks.join(", ")
            );
            let found: Vec<String> = with_pool!(&self.pool, |p| {
                let mut q = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.clone()));
                for k in chunk {
                    q = q.bind(k);
                }
                q.fetch_all(p).await.map_err(db_err)?
            });
            held.extend(found);
        }
        Ok(keys.iter().filter(|k| !held.contains(k)).cloned().collect())
    }
}

const FINISHED: &str = "DELETE FROM idempotency_keys WHERE (account, mode, idem_key) IN \
    (SELECT account, mode, idem_key FROM idempotency_keys \
     WHERE done = TRUE AND expires_at < $1 LIMIT $2)";
const ABANDONED: &str = "DELETE FROM idempotency_keys WHERE (account, mode, idem_key) IN \
    (SELECT account, mode, idem_key FROM idempotency_keys \
     WHERE done = FALSE AND started_at < $1 LIMIT $2)";
const BUILDER_TOKENS: &str = "DELETE FROM builder_tokens WHERE token_hash IN \
    (SELECT token_hash FROM builder_tokens WHERE expires_at < $1 LIMIT $2)";
const TOKENS: &str = "DELETE FROM signing_tokens WHERE token_hash IN \
    (SELECT token_hash FROM signing_tokens WHERE expires_at < $1 LIMIT $2)";
const LINKS: &str = "DELETE FROM file_links WHERE token_hash IN \
    (SELECT token_hash FROM file_links WHERE expires_at < $1 LIMIT $2)";

impl SqlStore {
    async fn delete_batch(&self, sql: &'static str, before: i64, limit: i64) -> StoreResult<usize> {
        let n = with_write!(&self.pool, |e| {
            sqlx::query(sql)
                .bind(before)
                .bind(limit)
                .execute(e)
                .await
                .map_err(db_err)?
                .rows_affected()
        });
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }
}
