//! `purge_expired`: deletes idempotency records and links that can no longer be used, a bounded
//! batch at a time (each batch is one short write, so writers never wait long behind it).
//! The `expires_at` / `started_at` indexes of migration 0002 make each batch an index range.

use super::{SqlStore, db_err, millis, with_write};
use crate::store::{PurgeBefore, Purged, StoreResult};

const FINISHED: &str = "DELETE FROM idempotency_keys WHERE (account, mode, idem_key) IN \
    (SELECT account, mode, idem_key FROM idempotency_keys \
     WHERE done = TRUE AND expires_at < $1 LIMIT $2)";
const ABANDONED: &str = "DELETE FROM idempotency_keys WHERE (account, mode, idem_key) IN \
    (SELECT account, mode, idem_key FROM idempotency_keys \
     WHERE done = FALSE AND started_at < $1 LIMIT $2)";
const TOKENS: &str = "DELETE FROM signing_tokens WHERE token_hash IN \
    (SELECT token_hash FROM signing_tokens WHERE expires_at < $1 LIMIT $2)";
const LINKS: &str = "DELETE FROM file_links WHERE token_hash IN \
    (SELECT token_hash FROM file_links WHERE expires_at < $1 LIMIT $2)";

impl SqlStore {
    pub(super) async fn purge_expired_impl(
        &self,
        before: &PurgeBefore,
        limit: usize,
    ) -> StoreResult<Purged> {
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
        })
    }

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
