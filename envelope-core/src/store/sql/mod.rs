//! Durable [`Store`] and [`BlobStore`] over SQLite (a file) or PostgreSQL (a pool), with sqlx.
//!
//! | constructor | engine | notes |
//! |---|---|---|
//! | [`SqlStore::open_sqlite`] | SQLite file | WAL, `synchronous=FULL`, foreign keys, busy timeout |
//! | [`SqlStore::connect_postgres`] | PostgreSQL | a pool; several processes may share the database |
//! | [`SqlStore::connect_postgres_in_schema`] | PostgreSQL | same, inside one schema (tests, tenants) |
//!
//! One SQL layer serves both engines: every statement is written once, with `$1` placeholders,
//! which SQLite and PostgreSQL both accept, and the code that runs it is compiled once per pool
//! type by the [`with_pool!`] and [`with_tx!`] macros (sqlx's `Any` driver would do the same at
//! run time, but it cannot tell SQLite's `BEGIN IMMEDIATE` from PostgreSQL's `BEGIN`, and a typed
//! pool keeps the column types exact). Only the migrations and two catalog queries differ.
//!
//! Records are stored as JSON documents next to the columns queries need; see
//! `docs/STORAGE.md` for the schema and for where each clause of the contract is enforced.
//!
//! This module must never hold business rules: it stores what the service decided and enforces
//! only the storage contract (scope, versions, allowance, uniqueness).

mod accounts;
mod blobs;
mod deliveries;
mod envelopes;
mod events;
mod idempotency;
mod links;
mod lists;
mod schema;
mod store_impl;
mod templates;
mod webhooks;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

pub use blobs::SqlBlobStore;
pub use schema::SCHEMA_VERSION;

use super::{StoreError, StoreResult};
use crate::clock::Timestamp;

/// The database engine behind a [`SqlStore`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// A pool of either engine. Cloning is cheap (pools are reference-counted).
#[derive(Debug, Clone)]
pub(crate) enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs `$body` with `$p` bound to the pool, compiled once per engine.
macro_rules! with_pool {
    ($pool:expr, |$p:ident| $body:expr) => {
        match $pool {
            $crate::store::sql::Pool::Sqlite($p) => $body,
            $crate::store::sql::Pool::Postgres($p) => $body,
        }
    };
}

/// Runs `$body` inside one write transaction bound to `$tx`, compiled once per engine, and
/// commits when `$body` finishes. A `?` or `return` inside `$body` drops the transaction, which
/// rolls it back: all or nothing.
///
/// SQLite starts with `BEGIN IMMEDIATE`: the write lock is taken up front, so concurrent writers
/// wait (busy timeout) instead of failing when a read lock cannot be upgraded.
macro_rules! with_tx {
    ($pool:expr, |$tx:ident| $body:expr) => {
        match $pool {
            $crate::store::sql::Pool::Sqlite(p) => {
                let mut $tx = p
                    .begin_with("BEGIN IMMEDIATE")
                    .await
                    .map_err($crate::store::sql::db_err)?;
                let out = $body;
                $tx.commit().await.map_err($crate::store::sql::db_err)?;
                out
            }
            $crate::store::sql::Pool::Postgres(p) => {
                let mut $tx = p.begin().await.map_err($crate::store::sql::db_err)?;
                let out = $body;
                $tx.commit().await.map_err($crate::store::sql::db_err)?;
                out
            }
        }
    };
}

pub(crate) use {with_pool, with_tx};

/// Why a store could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The database was migrated by a newer binary; running an older one could corrupt it.
    #[error(
        "database schema version {found} is newer than this binary supports (version {supported}); \
         upgrade envelope, or restore a backup taken before the upgrade"
    )]
    SchemaTooNew { found: i64, supported: i64 },
    /// A bad setting (path, URL, schema name).
    #[error("invalid store setting: {0}")]
    Invalid(String),
    /// Connecting or migrating failed.
    #[error("cannot open the database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("cannot migrate the database: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
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

/// How long a writer waits for SQLite's write lock before giving up with `Unavailable`.
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(10);

impl SqlStore {
    /// Opens (creating it if missing) the SQLite database file at `path`, and migrates it.
    ///
    /// Settings: WAL journal (readers never block the writer), `synchronous=FULL` (every commit
    /// is fsynced: with `NORMAL`, WAL survives a process crash but a power loss may drop the last
    /// commits, and the contract promises that a returned `Ok` survives), foreign keys on, and a
    /// busy timeout so that writers queue for the lock.
    pub async fn open_sqlite(path: impl AsRef<Path>) -> Result<SqlStore, OpenError> {
        let options = SqliteConnectOptions::new()
            .filename(path.as_ref())
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(SQLITE_BUSY_TIMEOUT);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options)
            .await?;
        Self::ready(Pool::Sqlite(pool)).await
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
                "schema name {schema:?} must match [a-z_][a-z0-9_]* (at most 63 characters)"
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
        let doc: Option<String> = with_pool!(&self.pool, |p| {
            sqlx::query_scalar(sql)
                .bind(id)
                .bind(&scope.account)
                .bind(scope.mode.as_str())
                .fetch_optional(p)
                .await
                .map_err(db_err)?
        });
        doc.map(|d| decode(what, &d)).transpose()
    }

    /// The document selected by `sql` (`SELECT doc ... WHERE id = $1`, a constant), decoded.
    pub(crate) async fn doc_by_id<T: serde::de::DeserializeOwned>(
        &self,
        sql: &'static str,
        what: &str,
        id: &str,
    ) -> StoreResult<Option<T>> {
        let doc: Option<String> = with_pool!(&self.pool, |p| {
            sqlx::query_scalar(sql)
                .bind(id)
                .fetch_optional(p)
                .await
                .map_err(db_err)?
        });
        doc.map(|d| decode(what, &d)).transpose()
    }

    /// A [`BlobStore`](super::BlobStore) in the same database (the `blobs` table).
    pub fn blobs(&self) -> SqlBlobStore {
        SqlBlobStore::new(self.pool.clone())
    }

    /// Waits for the connections to finish and closes them (for SQLite: checkpoints the WAL).
    pub async fn close(&self) {
        with_pool!(&self.pool, |p| p.close().await)
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
