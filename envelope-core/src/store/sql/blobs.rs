//! [`SqlBlobStore`]: document bytes in the `blobs` table of the store's own database.
//!
//! One database means one backup and one thing to run; a blob write is a single statement, so a
//! reader sees all of the bytes or none. For large volumes, [`DirBlobStore`] keeps the bytes in
//! files instead.
//!
//! [`DirBlobStore`]: crate::store::DirBlobStore

use async_trait::async_trait;
use bytes::Bytes;

use super::{Pool, db_err, from_millis, millis, with_pool, with_write};
use crate::clock::Timestamp;
use crate::store::{BlobInfo, BlobStore, StoreResult};

/// Blobs in the same database as the records. Made by [`super::SqlStore::blobs`].
#[derive(Debug, Clone)]
pub struct SqlBlobStore {
    pool: Pool,
}

impl SqlBlobStore {
    pub(super) fn new(pool: Pool) -> Self {
        SqlBlobStore { pool }
    }
}

#[async_trait]
impl BlobStore for SqlBlobStore {
    /// Keys are never reused, but a retried `put` of the same key must succeed: it overwrites.
    async fn put(&self, key: &str, bytes: Bytes, stored_at: Timestamp) -> StoreResult<()> {
        with_write!(&self.pool, |e| {
            sqlx::query(
                "INSERT INTO blobs (blob_key, data, created_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (blob_key) DO UPDATE \
                 SET data = excluded.data, created_at = excluded.created_at",
            )
            .bind(key)
            .bind(bytes.as_ref())
            .bind(millis(stored_at))
            .execute(e)
            .await
            .map_err(db_err)?;
        });
        Ok(())
    }

    async fn get(&self, key: &str) -> StoreResult<Option<Bytes>> {
        let data: Option<Vec<u8>> = with_pool!(&self.pool, |p| {
            sqlx::query_scalar("SELECT data FROM blobs WHERE blob_key = $1")
                .bind(key)
                .fetch_optional(p)
                .await
                .map_err(db_err)?
        });
        Ok(data.map(Bytes::from))
    }

    /// Walks the primary key; never reads the bytes.
    async fn list(&self, after: Option<&str>, limit: usize) -> StoreResult<Vec<BlobInfo>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<(String, Option<i64>)> = with_pool!(&self.pool, |p| {
            match after {
                None => sqlx::query_as(
                    "SELECT blob_key, created_at FROM blobs ORDER BY blob_key LIMIT $1",
                )
                .bind(limit)
                .fetch_all(p)
                .await
                .map_err(db_err)?,
                Some(after) => sqlx::query_as(
                    "SELECT blob_key, created_at FROM blobs WHERE blob_key > $1 \
                     ORDER BY blob_key LIMIT $2",
                )
                .bind(after)
                .bind(limit)
                .fetch_all(p)
                .await
                .map_err(db_err)?,
            }
        });
        rows.into_iter()
            .map(|(key, at)| {
                Ok(BlobInfo {
                    stored_at: at.map(|ms| from_millis("blob", ms)).transpose()?,
                    key,
                })
            })
            .collect()
    }

    async fn delete(&self, key: &str) -> StoreResult<bool> {
        let n = with_write!(&self.pool, |e| {
            sqlx::query("DELETE FROM blobs WHERE blob_key = $1")
                .bind(key)
                .execute(e)
                .await
                .map_err(db_err)?
                .rows_affected()
        });
        Ok(n > 0)
    }
}
