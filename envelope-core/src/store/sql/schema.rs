//! Versioned schema migrations, run on open.
//!
//! The migrations are `migrations/sqlite/NNNN_*.sql` and `migrations/postgres/NNNN_*.sql`,
//! embedded at compile time by `sqlx::migrate!` and recorded in the `_sqlx_migrations` table
//! (version, checksum). Both directories carry the same version numbers. On PostgreSQL the
//! migrator holds an advisory lock, so servers starting together migrate once.
//!
//! A database migrated by a newer binary is refused with [`OpenError::SchemaTooNew`] before
//! anything is written: an older binary does not know the newer columns and could corrupt them.

use sqlx::migrate::Migrator;

use super::{OpenError, Pool};

static SQLITE: Migrator = sqlx::migrate!("migrations/sqlite");
static POSTGRES: Migrator = sqlx::migrate!("migrations/postgres");

/// The newest schema version this binary knows.
pub const SCHEMA_VERSION: i64 = 14;

fn latest(m: &Migrator) -> i64 {
    m.iter().map(|m| m.version).max().unwrap_or(0)
}

/// Refuses a newer schema, then applies the pending migrations.
pub(super) async fn migrate(pool: &Pool) -> Result<(), OpenError> {
    let (migrator, found) = match pool {
        Pool::Sqlite(super::sqlite::Lite { writer: p, .. }) => {
            let exists: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
            )
            .fetch_one(p)
            .await?;
            let found = if exists > 0 {
                sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
                    .fetch_one(p)
                    .await?
            } else {
                None
            };
            (&SQLITE, found)
        }
        Pool::Postgres(p) => {
            let exists: bool =
                sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
                    .fetch_one(p)
                    .await?;
            let found = if exists {
                sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
                    .fetch_one(p)
                    .await?
            } else {
                None
            };
            (&POSTGRES, found)
        }
    };
    let supported = latest(migrator);
    if let Some(found) = found.filter(|&v: &i64| v > supported) {
        return Err(OpenError::SchemaTooNew { found, supported });
    }
    match pool {
        Pool::Sqlite(lite) => migrator.run(&lite.writer).await?,
        Pool::Postgres(p) => migrator.run(p).await?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_engines_have_the_same_versions() {
        let versions = |m: &Migrator| m.iter().map(|m| m.version).collect::<Vec<_>>();
        assert_eq!(versions(&SQLITE), versions(&POSTGRES));
        assert_eq!(latest(&SQLITE), SCHEMA_VERSION);
    }
}
