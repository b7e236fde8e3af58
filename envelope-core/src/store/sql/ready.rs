//! Readiness of a SQL store: a read and an overwrite of the one row of `readiness_probe`
//! (migration 0003), so that an orchestrator's probe every few seconds never grows the
//! database. On SQLite the write joins the group commit, so it also proves the fsync works.
//! Also the key checks of migration 0010 (`HealthStore::key_check`), read once at start.

use async_trait::async_trait;

use super::{Pool, SqlStore, db_err, millis, with_pool, with_tx, with_write};
use crate::clock::Timestamp;
use crate::store::HealthStore;
use crate::store::{NotReady, NotReadyCause, StoreResult};

const READ: &str = "SELECT checked_at FROM readiness_probe WHERE id = 1";
const WRITE: &str = "INSERT INTO readiness_probe (id, checked_at) VALUES (1, $1) \
    ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at";

/// The first writer's value stays: a later one inserts nothing, and every caller reads back
/// the one stored (on PostgreSQL a concurrent insert waits for the first and then does
/// nothing).
const KEY_CHECK_INSERT: &str =
    "INSERT INTO key_checks (name, sealed) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING";
const KEY_CHECK_READ: &str = "SELECT sealed FROM key_checks WHERE name = $1";

impl SqlStore {
    fn failure(&self) -> Option<NotReady> {
        match &self.pool {
            Pool::Sqlite(lite) => lite
                .commits
                .failure()
                .map(|why| NotReady::new(NotReadyCause::Failed, failed_fsync(&why))),
            Pool::Postgres(_) => None,
        }
    }

    async fn probe_read(&self) -> StoreResult<Option<i64>> {
        let row: Option<(i64,)> = with_pool!(&self.pool, |p| {
            sqlx::query_as(READ)
                .fetch_optional(p)
                .await
                .map_err(db_err)?
        });
        Ok(row.map(|(at,)| at))
    }

    async fn probe_write(&self, now: Timestamp) -> StoreResult<()> {
        with_write!(&self.pool, |e| {
            sqlx::query(WRITE)
                .bind(millis(now))
                .execute(e)
                .await
                .map_err(db_err)?
                .rows_affected()
        });
        Ok(())
    }
}

fn failed_fsync(why: &str) -> String {
    format!("an fsync of the SQLite WAL failed ({why}); only a restart recovers the database")
}

#[async_trait]
impl HealthStore for SqlStore {
    async fn check_ready(&self, now: Timestamp) -> Result<(), NotReady> {
        if let Some(failed) = self.failure() {
            return Err(failed);
        }
        if let Err(e) = self.probe_read().await {
            return Err(self
                .failure()
                .unwrap_or(NotReady::new(NotReadyCause::Unreadable, e)));
        }
        match self.probe_write(now).await {
            Ok(()) => Ok(()),
            // A write whose fsync failed is the store failing for good, not a passing refusal.
            Err(e) => Err(self
                .failure()
                .unwrap_or(NotReady::new(NotReadyCause::Unwritable, e))),
        }
    }

    /// See [`HealthStore::failed_for_good`](crate::store::HealthStore::failed_for_good).
    async fn failed_for_good(&self) -> String {
        match &self.pool {
            Pool::Sqlite(lite) => failed_fsync(&lite.commits.failed().await),
            // PostgreSQL handles a failed fsync itself (it restarts and recovers from its WAL):
            // this process sees connections fail for a while, never a permanent failure.
            Pool::Postgres(_) => std::future::pending().await,
        }
    }

    async fn key_check(&self, name: &str, proposed: &str) -> StoreResult<String> {
        let stored: String = with_tx!(&self.pool, |tx| {
            sqlx::query(KEY_CHECK_INSERT)
                .bind(name)
                .bind(proposed)
                .execute(&mut *tx)
                .await
                .map_err(db_err)?;
            sqlx::query_scalar(KEY_CHECK_READ)
                .bind(name)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_err)?
        });
        Ok(stored)
    }
}
