//! [`SqlBlobStore`]: document bytes in the store's own database, in chunks.
//!
//! One database means one backup and one thing to run. A blob is one row of `blobs` (key, size,
//! generation, time) and its bytes in rows of `blob_chunks` of at most [`SqlBlobStore::CHUNK`]
//! bytes, keyed by `(blob_key, generation, seq)` (schema 11; docs/STORAGE.md, "Blobs in
//! chunks"). So:
//!
//! - **`put`** writes the header and every chunk in one transaction: a reader sees all of the
//!   bytes or none. A retried `put` of a key takes the next generation and deletes the chunks of
//!   the earlier ones in that same transaction.
//! - **`get_stream`** reads the header (size and generation), then each chunk in a statement of
//!   its own when the consumer asks for it: no transaction stays open across a slow reader (it
//!   would hold back SQLite's WAL checkpoints), no connection is held between chunks, and at
//!   most one chunk is in memory per reader. A chunk of the generation that is gone (the key was
//!   overwritten or deleted meanwhile) ends the stream with an error: never a mix of old and new
//!   bytes, never fewer bytes that look whole.
//! - **`size`** reads the header only.
//!
//! On SQLite the chunks are read through a small pool of their own without a memory map (see
//! `sqlite.rs`), never through the mapped point-read connections: mapped pages would stay in the
//! process's memory after the readers leave. For large volumes, [`DirBlobStore`] keeps the
//! bytes in files instead.
//!
//! [`DirBlobStore`]: crate::store::DirBlobStore

use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use futures_util::TryStreamExt;

use super::{Pool, corrupt, db_err, from_millis, millis, point_read, with_pool, with_tx};
use crate::clock::Timestamp;
use crate::store::{BlobInfo, BlobStore, BlobStream, StoreError, StoreResult};

/// Blobs in the same database as the records. Made by [`super::SqlStore::blobs`].
#[derive(Debug, Clone)]
pub struct SqlBlobStore {
    pool: Pool,
}

/// Runs `$body`, which only reads blob chunks, with `$p` bound to a pool, compiled once per
/// engine: like [`with_pool!`], but on SQLite through the blob readers' own connections.
macro_rules! with_blob_reads {
    ($pool:expr, |$p:ident| $body:expr) => {
        match $pool {
            Pool::Sqlite(lite) => {
                lite.commits.visible().await?;
                let $p = &lite.blob_reads;
                $body
            }
            Pool::Postgres($p) => $body,
        }
    };
}

const HEADER: &str = "SELECT size, generation FROM blobs WHERE blob_key = $1";

const CHUNK_AT: &str =
    "SELECT data FROM blob_chunks WHERE blob_key = $1 AND generation = $2 AND seq = $3";

/// The header and the chunks of its generation in one statement, hence one snapshot. The left
/// join gives an empty blob (no chunks) one row with no data.
const WHOLE: &str = "SELECT b.size, c.data FROM blobs b \
    LEFT JOIN blob_chunks c ON c.blob_key = b.blob_key AND c.generation = b.generation \
    WHERE b.blob_key = $1 ORDER BY c.seq";

const UPSERT: &str = "INSERT INTO blobs (blob_key, size, generation, created_at) \
    VALUES ($1, $2, 0, $3) \
    ON CONFLICT (blob_key) DO UPDATE \
    SET size = excluded.size, generation = blobs.generation + 1, \
        created_at = excluded.created_at \
    RETURNING generation";

impl SqlBlobStore {
    /// The most bytes one stored chunk holds, and so the most a reader of
    /// [`BlobStore::get_stream`] holds at a time. 256 KiB: a 24 MB PDF is 96 statements, whose
    /// fixed cost (a lookup, a thread hop on SQLite, a round trip on PostgreSQL) is small beside
    /// copying 256 KiB, while forty slow readers hold 10 MB between them, not forty copies.
    pub const CHUNK: usize = 256 * 1024;

    pub(super) fn new(pool: Pool) -> Self {
        SqlBlobStore { pool }
    }

    /// The size and generation of the blob under `key`.
    async fn header(&self, key: &str) -> StoreResult<Option<(u64, i64)>> {
        let row = point_read!(&self.pool, HEADER, (key) as (i64, i64));
        row.map(|(size, generation)| {
            let size = u64::try_from(size).map_err(|_| corrupt("blob", "negative size"))?;
            Ok((size, generation))
        })
        .transpose()
    }
}

/// Where a [`SqlBlobStore::get_stream`] reader is: the next chunk to read and the bytes so far.
struct Reading {
    pool: Pool,
    key: String,
    generation: i64,
    size: u64,
    seq: i64,
    read: u64,
}

impl Reading {
    /// The next chunk, read in a statement of its own; `None` once `size` bytes were read.
    async fn next(mut self) -> StoreResult<Option<(Bytes, Reading)>> {
        if self.read == self.size {
            return Ok(None);
        }
        let chunk: Option<Vec<u8>> = with_blob_reads!(&self.pool, |p| {
            sqlx::query_scalar(CHUNK_AT)
                .bind(&self.key)
                .bind(self.generation)
                .bind(self.seq)
                .fetch_optional(p)
                .await
                .map_err(db_err)?
        });
        let Some(chunk) = chunk else {
            return Err(StoreError::Unavailable(
                format!(
                    "blob {} was overwritten or deleted while it was read ({} of {} bytes sent)",
                    self.key, self.read, self.size
                )
                .into(),
            ));
        };
        let len = chunk.len() as u64;
        if len == 0 || self.read + len > self.size {
            return Err(corrupt(
                "blob",
                format!(
                    "chunk {} of {} ends past its size {}",
                    self.seq, self.key, self.size
                ),
            ));
        }
        self.read += len;
        self.seq += 1;
        Ok(Some((Bytes::from(chunk), self)))
    }
}

#[async_trait]
impl BlobStore for SqlBlobStore {
    /// One transaction: the header (the next generation for a key stored before: a retried
    /// `put` overwrites), the chunks of earlier generations deleted, the new chunks inserted.
    /// Each chunk is bound as a slice of `bytes`: no whole copy.
    async fn put(&self, key: &str, bytes: Bytes, stored_at: Timestamp) -> StoreResult<()> {
        let size = i64::try_from(bytes.len()).map_err(|_| {
            StoreError::Unavailable(format!("blob of {} bytes is too large", bytes.len()).into())
        })?;
        with_tx!(&self.pool, |tx| {
            let generation: i64 = sqlx::query_scalar(UPSERT)
                .bind(key)
                .bind(size)
                .bind(millis(stored_at))
                .fetch_one(&mut *tx)
                .await
                .map_err(db_err)?;
            sqlx::query("DELETE FROM blob_chunks WHERE blob_key = $1 AND generation < $2")
                .bind(key)
                .bind(generation)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?;
            for (seq, chunk) in (0i64..).zip(bytes.chunks(Self::CHUNK)) {
                sqlx::query(
                    "INSERT INTO blob_chunks (blob_key, generation, seq, data) \
                     VALUES ($1, $2, $3, $4)",
                )
                .bind(key)
                .bind(generation)
                .bind(seq)
                .bind(chunk)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?;
            }
        });
        Ok(())
    }

    /// The whole blob, from one statement (one snapshot: never two generations), appended into
    /// one buffer of the blob's size as the rows arrive.
    async fn get(&self, key: &str) -> StoreResult<Option<Bytes>> {
        let whole: Option<(u64, BytesMut)> = with_blob_reads!(&self.pool, |p| {
            let mut rows = sqlx::query_as::<_, (i64, Option<Vec<u8>>)>(WHOLE)
                .bind(key)
                .fetch(p);
            let mut whole: Option<(u64, BytesMut)> = None;
            while let Some((size, data)) = rows.try_next().await.map_err(db_err)? {
                let size = u64::try_from(size).map_err(|_| corrupt("blob", "negative size"))?;
                let (_, buf) = whole.get_or_insert_with(|| {
                    (
                        size,
                        BytesMut::with_capacity(usize::try_from(size).unwrap_or(0)),
                    )
                });
                if let Some(data) = data {
                    buf.extend_from_slice(&data);
                }
            }
            whole
        });
        let Some((size, buf)) = whole else {
            return Ok(None);
        };
        if buf.len() as u64 != size {
            return Err(corrupt(
                "blob",
                format!(
                    "{key} has {} bytes in chunks, {size} in its size",
                    buf.len()
                ),
            ));
        }
        Ok(Some(buf.freeze()))
    }

    /// The header now, each chunk when the consumer asks for it (see the module docs).
    async fn get_stream(&self, key: &str) -> StoreResult<Option<BlobStream>> {
        let Some((size, generation)) = self.header(key).await? else {
            return Ok(None);
        };
        let start = Reading {
            pool: self.pool.clone(),
            key: key.to_string(),
            generation,
            size,
            seq: 0,
            read: 0,
        };
        // `try_unfold` ends the stream after the first error.
        let chunks = futures_util::stream::try_unfold(start, Reading::next);
        Ok(Some(BlobStream::new(size, chunks)))
    }

    /// The header's size: never reads the bytes.
    async fn size(&self, key: &str) -> StoreResult<Option<u64>> {
        Ok(self.header(key).await?.map(|(size, _)| size))
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

    /// The chunks and the header, in one transaction. On SQLite `secure_delete` overwrites
    /// their bytes with zeros.
    async fn delete(&self, key: &str) -> StoreResult<bool> {
        let n = with_tx!(&self.pool, |tx| {
            sqlx::query("DELETE FROM blob_chunks WHERE blob_key = $1")
                .bind(key)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?;
            sqlx::query("DELETE FROM blobs WHERE blob_key = $1")
                .bind(key)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?
                .rows_affected()
        });
        Ok(n > 0)
    }
}
