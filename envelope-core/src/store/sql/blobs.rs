//! [`SqlBlobStore`]: document bytes in the `blobs` table of the store's own database.
//!
//! One database means one backup and one thing to run; a blob write is a single statement, so a
//! reader sees all of the bytes or none. For large volumes, [`DirBlobStore`] keeps the bytes in
//! files instead.
//!
//! [`DirBlobStore`]: crate::store::DirBlobStore

use async_trait::async_trait;
use bytes::Bytes;

use super::{Pool, db_err, with_pool, with_write};
use crate::store::{BlobStore, StoreResult};

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
    async fn put(&self, key: &str, bytes: Bytes) -> StoreResult<()> {
        with_write!(&self.pool, |e| {
            sqlx::query(
                "INSERT INTO blobs (blob_key, data) VALUES ($1, $2) \
                 ON CONFLICT (blob_key) DO UPDATE SET data = excluded.data",
            )
            .bind(key)
            .bind(bytes.as_ref())
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
}
