//! Readiness of the durable stores under real failures: a SQLite store whose fsync fails (through
//! the `WalSync` seam of its group commit) and a PostgreSQL store whose role loses its write
//! privilege. The healthy case is the `readiness` clause of the conformance suite.
//!
//! The PostgreSQL test needs `ENVELOPE_TEST_DATABASE_URL` with a role that may create roles (the
//! CI and local servers use `postgres`); without it, it prints why it skipped and passes.

use envelope_core::store::HealthStore;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use envelope_core::Timestamp;
use envelope_core::store::WalSync;
use envelope_core::store::{NotReadyCause, SqlStore};

fn at(seconds: i64) -> Timestamp {
    Timestamp::from_millis(1_700_000_000_000 + seconds * 1000).unwrap()
}

/// An fsync that works until the test breaks it.
#[derive(Default)]
struct BreakableSync {
    broken: AtomicBool,
}

impl WalSync for BreakableSync {
    fn sync(&self) -> std::io::Result<()> {
        if self.broken.load(Ordering::SeqCst) {
            Err(std::io::Error::other("injected EIO"))
        } else {
            Ok(())
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_probes_overwrite_one_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("envelope.db");
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    for s in 0..50 {
        store.check_ready(at(s)).await.unwrap();
    }
    store.close().await;
    use sqlx::Connection;
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let rows: Vec<(i64, i64)> = sqlx::query_as("SELECT id, checked_at FROM readiness_probe")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        rows,
        [(1, at(49).millis())],
        "one row, holding the last probe"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_failed_fsync_is_a_permanent_failure() {
    let dir = tempfile::tempdir().unwrap();
    let sync = Arc::new(BreakableSync::default());
    let store = SqlStore::open_sqlite_with_wal_sync(dir.path().join("envelope.db"), sync.clone())
        .await
        .unwrap();
    store.check_ready(at(0)).await.unwrap();

    sync.broken.store(true, Ordering::SeqCst);
    // The probe's own write meets the failed fsync.
    let e = store.check_ready(at(1)).await.unwrap_err();
    assert_eq!(e.cause, NotReadyCause::Failed, "{e}");
    assert!(e.detail.contains("injected EIO"), "{e}");
    // A working fsync again does not bring it back: what the kernel dropped is lost.
    sync.broken.store(false, Ordering::SeqCst);
    let e = store.check_ready(at(2)).await.unwrap_err();
    assert_eq!(e.cause, NotReadyCause::Failed, "{e}");
    let why = store.failed_for_good().await;
    assert!(why.contains("restart"), "{why}");
}

/// A role of its own (privileges do not bind a superuser), owning a fresh schema.
struct PgRole {
    admin_url: String,
    name: String,
}

impl PgRole {
    async fn create(admin_url: &str) -> PgRole {
        let name = format!(
            "t_{}",
            envelope_core::ids::random_base62(16).to_ascii_lowercase()
        );
        let role = PgRole {
            admin_url: admin_url.to_string(),
            name,
        };
        let n = &role.name;
        role.admin(&format!("CREATE ROLE {n} LOGIN")).await;
        // `connect_postgres_in_schema` creates its schema if missing, which asks for this.
        let db = role.database();
        role.admin(&format!("GRANT CREATE ON DATABASE {db} TO {n}"))
            .await;
        role.admin(&format!("CREATE SCHEMA {n} AUTHORIZATION {n}"))
            .await;
        role
    }

    async fn admin(&self, sql: &str) {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&self.admin_url).await.unwrap();
        sqlx::query(sqlx::AssertSqlSafe(sql.to_string()))
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        conn.close().await.unwrap();
    }

    /// Runs `sql` as the role (an owner may revoke its own privileges).
    async fn as_role(&self, sql: &str) {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&self.url()).await.unwrap();
        let sql = format!("SET search_path = {}; {sql}", self.name);
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.clone()))
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        conn.close().await.unwrap();
    }

    fn database(&self) -> String {
        let url = url::Url::parse(&self.admin_url).unwrap();
        url.path().trim_start_matches('/').to_string()
    }

    fn url(&self) -> String {
        let mut url = url::Url::parse(&self.admin_url).unwrap();
        url.set_username(&self.name).unwrap();
        url.set_password(None).unwrap();
        url.to_string()
    }

    async fn drop(self) {
        let n = &self.name;
        self.admin(&format!("DROP SCHEMA IF EXISTS {n} CASCADE"))
            .await;
        let db = self.database();
        self.admin(&format!("REVOKE CREATE ON DATABASE {db} FROM {n}"))
            .await;
        self.admin(&format!("DROP ROLE IF EXISTS {n}")).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_without_write_privilege_is_unwritable() {
    let Ok(admin_url) = std::env::var("ENVELOPE_TEST_DATABASE_URL") else {
        eprintln!("skipped: ENVELOPE_TEST_DATABASE_URL is not set");
        return;
    };
    let role = PgRole::create(&admin_url).await;
    let result = tokio::spawn({
        let (url, schema) = (role.url(), role.name.clone());
        async move {
            let store = SqlStore::connect_postgres_in_schema(&url, &schema)
                .await
                .expect("connect as the test role");
            store.check_ready(at(0)).await.unwrap();
            store
        }
    })
    .await;
    let store = match result {
        Ok(store) => store,
        Err(e) => {
            role.drop().await;
            std::panic::resume_unwind(e.into_panic());
        }
    };
    role.as_role("REVOKE INSERT, UPDATE ON readiness_probe FROM CURRENT_USER")
        .await;
    let unwritable = store.check_ready(at(1)).await;
    role.as_role("GRANT INSERT, UPDATE ON readiness_probe TO CURRENT_USER")
        .await;
    let ready_again = store.check_ready(at(2)).await;
    store.close().await;
    role.drop().await;

    let e = unwritable.expect_err("a store that may not write is not ready");
    assert_eq!(e.cause, NotReadyCause::Unwritable, "{e}");
    assert!(e.detail.contains("permission denied"), "{e}");
    ready_again.expect("ready once the privilege is back");
}

/// The service probes the store at most once per `READINESS_TTL` of its clock, however often
/// it is asked: counted in SQLite commits, each probe being one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_probes_once_per_second() {
    use envelope_core::service::{READINESS_TTL, Readiness};
    use envelope_core::{ManualClock, SigningService};

    let dir = tempfile::tempdir().unwrap();
    let store = SqlStore::open_sqlite(dir.path().join("envelope.db"))
        .await
        .unwrap();
    let clock = Arc::new(ManualClock::new(at(0)));
    let svc = SigningService::builder()
        .blobs(Arc::new(store.blobs()))
        .store(Arc::new(store.clone()))
        .clock(clock.clone())
        .build();
    let commits = || store.commit_stats().unwrap().commits;

    let before = commits();
    let asks: Vec<_> = (0..50)
        .map(|_| {
            let svc = svc.clone();
            tokio::spawn(async move { svc.readiness().await })
        })
        .collect();
    for ask in asks {
        assert_eq!(ask.await.unwrap(), Readiness::Ready);
    }
    assert_eq!(commits() - before, 1, "50 concurrent asks, one probe");

    let ttl_ms = READINESS_TTL.as_millis() as i64;
    clock.set(at(0) + chrono::TimeDelta::milliseconds(ttl_ms - 1));
    assert_eq!(svc.readiness().await, Readiness::Ready);
    assert_eq!(commits() - before, 1, "still within the TTL");
    clock.set(at(0) + chrono::TimeDelta::milliseconds(ttl_ms));
    assert_eq!(svc.readiness().await, Readiness::Ready);
    assert_eq!(commits() - before, 2, "a new probe once the TTL has passed");
}
