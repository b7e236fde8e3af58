//! The SQLite side of [`SqlStore`](super::SqlStore): its connections and settings, the
//! background checkpoints, and the checkpoint on close. Why each setting: docs/STORAGE.md.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use super::OpenError;
use super::group_commit::{GroupCommit, WalSync};
use super::inline::InlineReads;

/// A SQLite database: one connection for writes (writes are serialized anyway, and one
/// connection keeps the pages they touch in its cache), a pool for the reads that stay on sqlx
/// (lists), a small pool for blob chunks (see `blobs.rs`), the group commit of the writes (see
/// `group_commit.rs`) and the connections for point reads on the calling thread (see
/// `inline.rs`).
#[derive(Debug, Clone)]
pub(crate) struct Lite {
    pub(crate) writer: SqlitePool,
    pub(crate) pool: SqlitePool,
    pub(crate) blob_reads: SqlitePool,
    pub(crate) commits: GroupCommit,
    pub(crate) reads: Arc<InlineReads>,
}

impl Lite {
    /// Opens the connections of the database at `path` (created if missing) and starts its
    /// syncer and checkpoint tasks. Migrations come next, then [`Lite::migrated`].
    /// `sync` replaces the fsync of the WAL file (tests); `None` is the real one.
    pub(super) async fn open(
        path: &Path,
        sync: Option<Arc<dyn WalSync>>,
    ) -> Result<Lite, OpenError> {
        owner_only(path)?;
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            // Checkpoints run in the background (`checkpoint_when_due`), not inside a commit.
            .pragma("wal_autocheckpoint", "0")
            .pragma("journal_size_limit", WAL_SIZE_LIMIT)
            // Deleted content is overwritten with zeros, not left in free pages and cells: a
            // PDF or a record's personal data that retention deletes is gone from the file's
            // bytes once the WAL is copied back (docs/STORAGE.md, "secure_delete").
            .pragma("secure_delete", "ON")
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        // An in-process connection cannot go stale: no ping before each use (a round trip to
        // the connection's thread), and no recycling (the last close would delete the WAL).
        let pool_options = |n: u32| {
            SqlitePoolOptions::new()
                .max_connections(n)
                .min_connections(1)
                .test_before_acquire(false)
                .idle_timeout(None)
                .max_lifetime(None)
        };
        let writer = pool_options(1)
            .connect_with(options.clone().pragma("cache_size", WRITER_CACHE_KIB))
            .await?;
        let blob_reads = pool_options(BLOB_READERS)
            .connect_with(options.clone().pragma("cache_size", BLOB_READER_CACHE_KIB))
            .await?;
        let pool = pool_options(8).connect_with(options).await?;
        let commits = match sync {
            Some(sync) => GroupCommit::with_wal_sync(sync),
            None => GroupCommit::for_database(path),
        };
        let reads = Arc::new(InlineReads::new(path).map_err(OpenError::Readers)?);
        tokio::spawn(checkpoint_when_due(pool.clone(), commits.clone()));
        Ok(Lite {
            writer,
            pool,
            blob_reads,
            commits,
            reads,
        })
    }

    /// The migrations committed outside the group commit: makes them durable.
    pub(super) async fn migrated(&self) -> Result<(), OpenError> {
        self.commits
            .ticket()
            .committed()
            .await
            .map_err(OpenError::Sync)
    }

    /// Copies the whole WAL into the database and empties it (in a write turn), then closes the
    /// sqlx connections. A failed checkpoint is only logged: the WAL is still valid.
    pub(super) async fn close(&self) {
        {
            let _turn = self.commits.write_turn().await;
            if let Err(e) = checkpoint_as(&self.writer, "PRAGMA wal_checkpoint(TRUNCATE)").await {
                tracing::warn!(error = %e, "final WAL checkpoint failed");
            }
        }
        self.blob_reads.close().await;
        self.pool.close().await;
        self.writer.close().await;
    }
}

/// How long a writer of another process waits for SQLite's write lock before giving up with
/// `Unavailable`.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The writer connection's page cache (`PRAGMA cache_size`, negative: KiB). Every write goes
/// through it, so the index and table pages that writes touch stay hot.
const WRITER_CACHE_KIB: &str = "-32768";

/// Connections that read blob chunks. Each chunk is one short statement and a slow reader
/// holds no connection between chunks, so a few serve many downloads; few also bound the page
/// caches that stay allocated once the readers leave.
const BLOB_READERS: u32 = 4;

/// Their page cache (`PRAGMA cache_size`, negative: KiB). A chunk's overflow pages are read
/// once per download and seldom again soon, so caching them buys little; a small cache keeps
/// what a burst of downloads leaves behind small (4 x 512 KiB). No `mmap_size`: pages of a map
/// would count in the process's memory for as long as the map lives.
const BLOB_READER_CACHE_KIB: &str = "-512";

/// Commits between two WAL checkpoints (SQLite's own default is every 1 000 pages, run inside
/// the `COMMIT` that crosses the mark, while the writer holds the lock).
const CHECKPOINT_EVERY: u64 = 256;

/// The WAL file is cut back to this size when it starts over (`PRAGMA journal_size_limit`).
const WAL_SIZE_LIMIT: &str = "67108864";

/// Copies the WAL into the database after every [`CHECKPOINT_EVERY`] commits, on a reader
/// connection, mostly off the write path. Ends with the store.
///
/// A checkpoint that runs beside writers never catches up with them, and SQLite starts the WAL
/// over only when a writer finds it fully copied, so the WAL would grow for ever. Hence two
/// passes: the bulk of the frames without blocking anyone, then, during a write turn, the few
/// frames appended meanwhile; the next write then starts the WAL over.
async fn checkpoint_when_due(pool: SqlitePool, commits: GroupCommit) {
    let mut completed = commits.subscribe_completed();
    let commits = commits.downgrade(); // a strong handle would keep the store's syncer alive
    let mut last = 0;
    while completed.changed().await.is_ok() {
        let now = *completed.borrow_and_update();
        if now < last + CHECKPOINT_EVERY {
            continue;
        }
        last = now;
        let result = async {
            checkpoint(&pool).await?;
            let Some(commits) = commits.upgrade() else {
                return Ok(());
            };
            let _turn = commits.write_turn().await;
            checkpoint(&pool).await
        }
        .await;
        if let Err(e) = result {
            if pool.is_closed() {
                return;
            }
            tracing::warn!(error = %e, "WAL checkpoint failed; the next one retries");
        }
    }
}

/// `wal_checkpoint(PASSIVE)`: copies what it can without waiting for readers or writers.
async fn checkpoint(pool: &SqlitePool) -> Result<(), sqlx::Error> {
    checkpoint_as(pool, "PRAGMA wal_checkpoint(PASSIVE)").await
}

async fn checkpoint_as(pool: &SqlitePool, pragma: &'static str) -> Result<(), sqlx::Error> {
    sqlx::query(pragma).execute(pool).await.map(|_| ())
}

/// Creates the database file 0600 before SQLite does (SQLite then gives its WAL and shared-memory
/// files the database's mode), and tightens the three when they exist with a wider mode.
fn owner_only(path: &Path) -> Result<(), OpenError> {
    let fail = |p: &Path, e: std::io::Error| {
        OpenError::Invalid(format!("cannot restrict {} to its owner: {e}", p.display()))
    };
    crate::private_files::touch(path).map_err(|e| fail(path, e))?;
    for suffix in ["", "-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let file = Path::new(&name);
        crate::private_files::restrict(file).map_err(|e| fail(file, e))?;
    }
    Ok(())
}
