//! Durable [`Store`](crate::store::Store) and [`BlobStore`](crate::store::BlobStore) over SQLite (a file) or PostgreSQL (a pool), with sqlx.
//!
//! | constructor | engine | notes |
//! |---|---|---|
//! | [`SqlStore::open_sqlite`] | SQLite file | WAL with a group commit, one writer connection, point reads on the calling thread (`sqlite.rs`) |
//! | [`SqlStore::connect_postgres`] | PostgreSQL | a pool; several processes may share the database |
//! | [`SqlStore::connect_postgres_in_schema`] | PostgreSQL | same, inside one schema (tests, tenants) |
//!
//! One SQL layer serves both engines: every statement is written once, with `$1` placeholders,
//! which SQLite and PostgreSQL both accept, and the code that runs it is compiled once per pool
//! type by the `with_pool!`, `point_read!`, `with_write!` and `with_tx!` macros (sqlx's `Any`
//! driver would do the same at run time, but it cannot tell SQLite's `BEGIN IMMEDIATE` from
//! PostgreSQL's `BEGIN`, and a typed pool keeps the column types exact). Only the migrations and
//! two catalog queries differ.
//!
//! Records are stored as JSON documents next to the columns queries need; see
//! `docs/STORAGE.md` for the schema and for where each clause of the contract is enforced.
//!
//! This module must never hold business rules: it stores what the service decided and enforces
//! only the storage contract (scope, versions, allowance, uniqueness).

mod accounts;
mod blobs;
mod bulk_sends;
mod envelopes;
mod events;
mod group_commit;
mod held;
mod idempotency;
mod inline;
mod links;
mod lists;
mod outbox;
mod packed;
mod ready;
mod retention;
mod schema;
mod sqlite;
mod templates;
mod webhooks;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

pub use blobs::SqlBlobStore;
pub use group_commit::{CommitStats, WalSync};
pub use schema::SCHEMA_VERSION;

use super::{StoreError, StoreResult};
use crate::clock::Timestamp;

/// The database engine behind a [`SqlStore`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// A SQLite database file.
    Sqlite,
    /// A PostgreSQL database.
    Postgres,
}

/// A pool of either engine. Cloning is cheap (pools are reference-counted).
#[derive(Debug, Clone)]
pub(crate) enum Pool {
    Sqlite(sqlite::Lite),
    Postgres(PgPool),
}

/// Runs `$body`, which only reads, with `$p` bound to the pool, compiled once per engine. On
/// SQLite it first waits until every commit begun before it is on disk (see [`group_commit`]).
/// Writes go through [`with_tx!`].
macro_rules! with_pool {
    ($pool:expr, |$p:ident| $body:expr) => {
        match $pool {
            $crate::store::sql::Pool::Sqlite(lite) => {
                lite.commits.visible().await?;
                let $p = &lite.pool;
                $body
            }
            $crate::store::sql::Pool::Postgres($p) => $body,
        }
    };
}

/// Reads at most one row by key, compiled once per engine: `point_read!(&self.pool, SQL, (a, b)
/// as (i64, String))`. On SQLite it runs on the calling thread (see [`inline`]) after the same
/// durability wait as [`with_pool!`]; on PostgreSQL through the pool. `SQL` must be a constant
/// whose `$n` placeholders appear in order.
macro_rules! point_read {
    ($pool:expr, $sql:expr, ($($param:expr),* $(,)?) as $row:ty) => {
        match $pool {
            $crate::store::sql::Pool::Sqlite(lite) => {
                lite.commits.visible().await?;
                lite.reads
                    .row($sql, ($($param,)*), |r| <$row>::try_from(r))?
            }
            $crate::store::sql::Pool::Postgres(p) => sqlx::query_as::<_, $row>($sql)
                $(.bind($param))*
                .fetch_optional(p)
                .await
                .map_err($crate::store::sql::db_err)?,
        }
    };
}

/// Reads one stored document by key and decodes it as `$what`: `doc_read!(&self.pool, SQL, WHAT,
/// (a, b))`, with `SQL` selecting one text column. Like [`point_read!`], except that on SQLite
/// the document is parsed straight from SQLite's buffer, with no `String` copy first.
macro_rules! doc_read {
    ($pool:expr, $sql:expr, $what:expr, ($($param:expr),* $(,)?)) => {
        match $pool {
            $crate::store::sql::Pool::Sqlite(lite) => {
                lite.commits.visible().await?;
                lite.reads
                    .text($sql, ($($param,)*), |d| $crate::store::sql::decode($what, d))
            }
            $crate::store::sql::Pool::Postgres(p) => sqlx::query_as::<_, (String,)>($sql)
                $(.bind($param))*
                .fetch_optional(p)
                .await
                .map_err($crate::store::sql::db_err)?
                .map(|(d,)| $crate::store::sql::decode($what, &d))
                .transpose(),
        }
    };
}

/// Runs `$body` inside one write transaction bound to `$tx`, compiled once per engine, and
/// commits when `$body` finishes. A `?` or `return` inside `$body` drops the transaction, which
/// rolls it back: all or nothing. It returns once the commit is durable.
///
/// SQLite: this process's writers take turns ([`group_commit`]), then `BEGIN IMMEDIATE` takes
/// the write lock up front (other processes wait for it: busy timeout), and after the `COMMIT`
/// the writer waits for the group fsync that covers it.
macro_rules! with_tx {
    ($pool:expr, |$tx:ident| $body:expr) => {
        match $pool {
            $crate::store::sql::Pool::Sqlite(lite) => {
                let turn = lite.commits.write_turn().await;
                let mut $tx = lite
                    .writer
                    .begin_with("BEGIN IMMEDIATE")
                    .await
                    .map_err($crate::store::sql::db_err)?;
                let out = $body;
                let ticket = lite.commits.ticket();
                let committing = std::time::Instant::now();
                $tx.commit().await.map_err($crate::store::sql::db_err)?;
                drop(turn);
                ticket.committed().await?;
                // Until durable: the group commit's shared fsync included.
                metrics::histogram!("envelope_store_commit_seconds", "engine" => "sqlite")
                    .record(committing.elapsed().as_secs_f64());
                out
            }
            $crate::store::sql::Pool::Postgres(p) => {
                let mut $tx = p.begin().await.map_err($crate::store::sql::db_err)?;
                let out = $body;
                let committing = std::time::Instant::now();
                $tx.commit().await.map_err($crate::store::sql::db_err)?;
                metrics::histogram!("envelope_store_commit_seconds", "engine" => "postgres")
                    .record(committing.elapsed().as_secs_f64());
                out
            }
        }
    };
}

/// Runs `$body`, one write statement, with `$e` bound to an executor: the pool on PostgreSQL,
/// the writer connection on SQLite. Either way the statement is its own transaction; on SQLite it
/// takes its turn and joins the group commit like [`with_tx!`], without the two extra round
/// trips of `BEGIN` and `COMMIT`.
macro_rules! with_write {
    ($pool:expr, |$e:ident| $body:expr) => {
        match $pool {
            $crate::store::sql::Pool::Sqlite(lite) => {
                let turn = lite.commits.write_turn().await;
                // The statement commits inside `$body`: the ticket must exist before it does.
                let ticket = lite.commits.ticket();
                let $e = &lite.writer;
                let out = $body;
                drop(turn);
                ticket.committed().await?;
                out
            }
            $crate::store::sql::Pool::Postgres($e) => $body,
        }
    };
}

pub(crate) use {point_read, with_pool, with_tx, with_write};

/// Why a store could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The database was migrated by a newer binary; running an older one could corrupt it.
    #[error(
        "database schema version {found} is newer than this binary supports (version {supported}); \
         upgrade envelope, or restore a backup taken before the upgrade"
    )]
    SchemaTooNew {
        /// The schema version the database has.
        found: i64,
        /// The newest schema version this binary knows.
        supported: i64,
    },
    /// A bad setting (path, URL, schema name).
    #[error("invalid store setting: {0}")]
    Invalid(String),
    /// Connecting or migrating failed.
    #[error("cannot open the database: {0}")]
    Database(#[from] sqlx::Error),
    /// Applying the schema migrations failed.
    #[error("cannot migrate the database: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The first fsync of the database failed.
    #[error("cannot make the database durable: {0}")]
    Sync(StoreError),
    /// The connections for point reads could not be opened.
    #[error("cannot open the database for reading: {0}")]
    Readers(StoreError),
}

/// A [`Store`](super::Store) over SQLite or PostgreSQL. Cheap to clone.
#[derive(Clone)]
pub struct SqlStore {
    pool: Pool,
}

impl std::fmt::Debug for SqlStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqlStore")
            .field("engine", &self.engine())
            .finish_non_exhaustive()
    }
}

impl SqlStore {
    /// Opens (creating it if missing) the SQLite database file at `path`, and migrates it.
    ///
    /// Settings: WAL journal (readers never block the writer), foreign keys on, and a busy
    /// timeout so that writers of other processes queue for the lock. Every write returns once
    /// its commit is fsynced, as with `synchronous=FULL`, but through a group commit: SQLite runs
    /// with `synchronous=NORMAL` and one fsync of the WAL covers every commit made while the
    /// previous one ran (see `group_commit.rs`). Must be called within a Tokio runtime.
    pub async fn open_sqlite(path: impl AsRef<Path>) -> Result<SqlStore, OpenError> {
        Self::open_sqlite_inner(path.as_ref(), None).await
    }

    /// Like [`SqlStore::open_sqlite`], with `sync` in place of the fsync of the WAL: the seam
    /// through which tests make an fsync fail. A `sync` that does not really fsync gives up
    /// durability, so only tests should use this.
    pub async fn open_sqlite_with_wal_sync(
        path: impl AsRef<Path>,
        sync: std::sync::Arc<dyn WalSync>,
    ) -> Result<SqlStore, OpenError> {
        Self::open_sqlite_inner(path.as_ref(), Some(sync)).await
    }

    async fn open_sqlite_inner(
        path: &Path,
        sync: Option<std::sync::Arc<dyn WalSync>>,
    ) -> Result<SqlStore, OpenError> {
        let lite = sqlite::Lite::open(path, sync).await?;
        let store = Self::ready(Pool::Sqlite(lite)).await?;
        if let Pool::Sqlite(lite) = &store.pool {
            lite.migrated().await?;
        }
        Ok(store)
    }

    /// Commits and fsyncs made by this store's SQLite group commit (`None` on PostgreSQL).
    pub fn commit_stats(&self) -> Option<CommitStats> {
        match &self.pool {
            Pool::Sqlite(lite) => Some(lite.commits.stats()),
            Pool::Postgres(_) => None,
        }
    }

    /// Connects a pool to the PostgreSQL database at `url` (`postgres://user@host/db`) and
    /// migrates it. Tables live in the connection's default schema (`search_path`).
    pub async fn connect_postgres(url: &str) -> Result<SqlStore, OpenError> {
        let options = PgConnectOptions::from_str(url)?;
        Self::connect_pg(options).await
    }

    /// Like [`SqlStore::connect_postgres`], with every connection's `search_path` set to
    /// `schema`, which is created when missing. `schema` must match `[a-z_][a-z0-9_]*`.
    pub async fn connect_postgres_in_schema(
        url: &str,
        schema: &str,
    ) -> Result<SqlStore, OpenError> {
        if !valid_schema_name(schema) {
            return Err(OpenError::Invalid(format!(
                "schema name \"{schema}\" must match [a-z_][a-z0-9_]* (at most 63 characters)"
            )));
        }
        let options = PgConnectOptions::from_str(url)?;
        // Create the schema over a plain connection first: the pool's connections put it on
        // their search_path, and the migrations must land in it.
        {
            use sqlx::Connection;
            let mut conn = sqlx::PgConnection::connect_with(&options).await?;
            let sql = format!("CREATE SCHEMA IF NOT EXISTS {schema}");
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .execute(&mut conn)
                .await?;
            conn.close().await?;
        }
        Self::connect_pg(options.options([("search_path", schema)])).await
    }

    async fn connect_pg(options: PgConnectOptions) -> Result<SqlStore, OpenError> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await?;
        Self::ready(Pool::Postgres(pool)).await
    }

    async fn ready(pool: Pool) -> Result<SqlStore, OpenError> {
        schema::migrate(&pool).await?;
        Ok(SqlStore { pool })
    }

    /// Which database engine the store runs on.
    pub fn engine(&self) -> Engine {
        match self.pool {
            Pool::Sqlite(_) => Engine::Sqlite,
            Pool::Postgres(_) => Engine::Postgres,
        }
    }

    /// The document selected by `sql` (`SELECT doc ... WHERE id = $1 AND account = $2 AND mode =
    /// $3`, a constant), decoded; `None` when no row is in scope.
    pub(crate) async fn scoped_doc<T: serde::de::DeserializeOwned>(
        &self,
        sql: &'static str,
        what: &str,
        scope: &crate::model::Scope,
        id: &str,
    ) -> StoreResult<Option<T>> {
        let (account, mode) = (scope.account.as_str(), scope.mode.as_str());
        doc_read!(&self.pool, sql, what, (id, account, mode))
    }

    /// The document selected by `sql` (`SELECT doc ... WHERE id = $1`, a constant), decoded.
    pub(crate) async fn doc_by_id<T: serde::de::DeserializeOwned>(
        &self,
        sql: &'static str,
        what: &str,
        id: &str,
    ) -> StoreResult<Option<T>> {
        doc_read!(&self.pool, sql, what, (id))
    }

    /// A [`BlobStore`](super::BlobStore) in the same database (the `blobs` table).
    pub fn blobs(&self) -> SqlBlobStore {
        SqlBlobStore::new(self.pool.clone())
    }

    /// Waits for the connections to finish and closes them. A SQLite database is checkpointed
    /// first, so that a clean stop leaves no WAL to recover.
    pub async fn close(&self) {
        match &self.pool {
            Pool::Sqlite(lite) => lite.close().await,
            Pool::Postgres(p) => p.close().await,
        }
    }
}

fn valid_schema_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b == b'_')
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Maps a driver error: a unique-key violation is [`StoreError::Duplicate`], anything else is
/// [`StoreError::Unavailable`].
pub(crate) fn db_err(e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::Database(d) if d.is_unique_violation() => StoreError::Duplicate,
        _ => StoreError::Unavailable(Box::new(e)),
    }
}

/// A stored document that does not parse: the database was written by something else.
pub(crate) fn corrupt(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(format!("corrupt {what} record in the database: {e}").into())
}

pub(crate) fn encode<T: serde::Serialize>(value: &T) -> StoreResult<String> {
    serde_json::to_string(value).map_err(|e| StoreError::Unavailable(Box::new(e)))
}

pub(crate) fn decode<T: serde::de::DeserializeOwned>(what: &str, doc: &str) -> StoreResult<T> {
    serde_json::from_str(doc).map_err(|e| corrupt(what, e))
}

pub(crate) fn millis(t: Timestamp) -> i64 {
    t.millis()
}

pub(crate) fn from_millis(what: &str, ms: i64) -> StoreResult<Timestamp> {
    Timestamp::from_millis(ms).ok_or_else(|| corrupt(what, format!("timestamp {ms} out of range")))
}

/// Versions are `u64` in records and `BIGINT` in the database.
pub(crate) fn version(v: u64) -> StoreResult<i64> {
    i64::try_from(v).map_err(|_| StoreError::Conflict)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_are_plain_identifiers() {
        for ok in ["t_abc123", "_x", "envelope"] {
            assert!(valid_schema_name(ok), "{ok}");
        }
        for bad in ["", "1abc", "Upper", "a-b", "a;drop", "a b", &"x".repeat(64)] {
            assert!(!valid_schema_name(bad), "{bad}");
        }
    }
}
