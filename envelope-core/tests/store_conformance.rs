//! Runs the store conformance suite (`envelope_core::store::conformance`) against every
//! implementation: one test per clause and backend, plus tests only durable stores can take
//! (reopen, schema versions, two pools on one database).
//!
//! - memory: always.
//! - SQLite: always, on a file in a fresh temporary directory.
//! - PostgreSQL: when `ENVELOPE_TEST_DATABASE_URL` is set (for example
//!   `postgres://postgres@127.0.0.1:5432/test`); every test works in its own new schema
//!   `t_<random>`, dropped at the end, so runs never see each other's rows. Without the variable
//!   the PostgreSQL tests print why they skipped and pass.

use envelope_core::store::AccountStore;
use envelope_core::store::EnvelopeStore;
use envelope_core::store::EventStore;
use envelope_core::store::IdempotencyStore;
use std::future::Future;
use std::sync::Arc;

use envelope_core::EnvelopeId;
use envelope_core::model::Scope;
use envelope_core::store::conformance::{self, fixtures};
use envelope_core::store::{
    BlobStore, DirBlobStore, IdempotencyBegin, MemoryBlobStore, MemoryStore, OpenError, SqlStore,
    Store, StoreError,
};
use envelope_core::store::{Engine, SCHEMA_VERSION};

const PG_URL_VAR: &str = "ENVELOPE_TEST_DATABASE_URL";

fn pg_url() -> Option<String> {
    match std::env::var(PG_URL_VAR) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            eprintln!("skipped: {PG_URL_VAR} is not set");
            None
        }
    }
}

/// A store under test and what must be cleaned up after it.
struct Backend {
    store: Arc<dyn Store>,
    blobs: Arc<dyn BlobStore>,
    cleanup: Cleanup,
}

enum Cleanup {
    Nothing,
    /// Removed on drop, after the store is closed.
    Sqlite(SqlStore, #[allow(dead_code)] tempfile::TempDir),
    Postgres(SqlStore, PgSchema),
}

/// A fresh schema on the test server.
struct PgSchema {
    url: String,
    name: String,
}

impl PgSchema {
    fn new(url: String) -> PgSchema {
        let name = format!(
            "t_{}",
            envelope_core::ids::random_base62(16).to_ascii_lowercase()
        );
        PgSchema { url, name }
    }

    async fn connect(&self) -> SqlStore {
        SqlStore::connect_postgres_in_schema(&self.url, &self.name)
            .await
            .expect("connect to PostgreSQL")
    }

    /// A raw connection whose search_path is the schema (for tampering in tests).
    async fn raw(&self) -> sqlx::PgConnection {
        use sqlx::Connection;
        let opts: sqlx::postgres::PgConnectOptions = self.url.parse().unwrap();
        sqlx::PgConnection::connect_with(&opts.options([("search_path", self.name.as_str())]))
            .await
            .unwrap()
    }

    async fn drop_schema(&self) {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&self.url).await.unwrap();
        let sql = format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name);
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut conn)
            .await
            .unwrap();
    }
}

async fn sqlite_file() -> (SqlStore, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqlStore::open_sqlite(dir.path().join("envelope.db"))
        .await
        .expect("open SQLite");
    (store, dir)
}

/// Opens the backend named `kind`, or `None` when it is not configured (skipped).
async fn open(kind: &str) -> Option<Backend> {
    Some(match kind {
        "memory" => Backend {
            store: Arc::new(MemoryStore::new()),
            blobs: Arc::new(MemoryBlobStore::new()),
            cleanup: Cleanup::Nothing,
        },
        "sqlite" => {
            let (store, dir) = sqlite_file().await;
            Backend {
                store: Arc::new(store.clone()),
                blobs: Arc::new(store.blobs()),
                cleanup: Cleanup::Sqlite(store, dir),
            }
        }
        // SQLite records with blobs in a directory instead of the database.
        "sqlite_dir_blobs" => {
            let (store, dir) = sqlite_file().await;
            let blobs = DirBlobStore::open(dir.path().join("blobs")).unwrap();
            Backend {
                store: Arc::new(store.clone()),
                blobs: Arc::new(blobs),
                cleanup: Cleanup::Sqlite(store, dir),
            }
        }
        "postgres" => {
            let schema = PgSchema::new(pg_url()?);
            let store = schema.connect().await;
            assert_eq!(store.engine(), Engine::Postgres);
            Backend {
                store: Arc::new(store.clone()),
                blobs: Arc::new(store.blobs()),
                cleanup: Cleanup::Postgres(store, schema),
            }
        }
        other => panic!("unknown backend {other}"),
    })
}

impl Backend {
    async fn finish(self) {
        drop((self.store, self.blobs));
        match self.cleanup {
            Cleanup::Nothing => {}
            Cleanup::Sqlite(store, _dir) => store.close().await,
            Cleanup::Postgres(store, schema) => {
                store.close().await;
                schema.drop_schema().await;
            }
        }
    }
}

/// Runs one clause on a fresh backend; cleans up even when the clause panics.
async fn run<F, Fut>(kind: &str, clause: F)
where
    F: FnOnce(Arc<dyn Store>, Arc<dyn BlobStore>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let Some(backend) = open(kind).await else {
        return;
    };
    let result = tokio::spawn(clause(backend.store.clone(), backend.blobs.clone())).await;
    backend.finish().await;
    if let Err(e) = result {
        std::panic::resume_unwind(e.into_panic());
    }
}

macro_rules! suite {
    ($kind:ident: $($clause:ident),* $(,)?) => {
        mod $kind {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $clause() {
                    super::run(stringify!($kind), |s, b| {
                        envelope_core::store::conformance::$clause(s, b)
                    })
                    .await;
                }
            )*

            /// Every clause of the suite has a test here.
            #[test]
            fn covers_every_clause() {
                let here = [$(stringify!($clause)),*];
                for c in envelope_core::store::conformance::CLAUSES {
                    assert!(here.contains(c), "clause {c} is not run");
                }
            }
        }
    };
}

macro_rules! all_clauses {
    ($kind:ident) => {
        suite!($kind:
            accounts_and_keys,
            scope_isolation,
            templates,
            envelope_writes_events_and_outbox,
            optimistic_concurrency,
            optimistic_concurrency_raced,
            envelope_stamps,
            allowance,
            allowance_raced,
            list_pagination,
            list_filters,
            expired_envelopes,
            seal_sweeps,
            due_emails,
            due_emails_fairness,
            email_budget,
            email_budget_raced,
            webhook_endpoints,
            links,
            idempotency,
            idempotency_raced,
            idempotency_origin,
            purge_expired,
            blobs,
            webhook_outbox,
            webhook_outbox_raced,
            webhook_outbox_fairness,
            webhook_delivery_pages,
            readiness,
            storage_accounting,
            storage_quota_raced,
            retention_deletes,
            retention_raced,
            envelopes_with_files,
            erase_envelope,
            key_check,
            blob_listing,
            blob_streams,
            bulk_sends,
            bulk_send_claims_raced,
        );
    };
}

all_clauses!(memory);
all_clauses!(sqlite);
all_clauses!(postgres);

/// The blob clauses against `DirBlobStore` (the record clauses do not touch blobs).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dir_blob_store_blobs() {
    run("sqlite_dir_blobs", conformance::blobs).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dir_blob_store_blob_listing() {
    run("sqlite_dir_blobs", conformance::blob_listing).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dir_blob_store_blob_streams() {
    run("sqlite_dir_blobs", conformance::blob_streams).await;
}

/// The whole suite on one shared store, as `run_all` documents it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn memory_run_all() {
    run("memory", conformance::run_all).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_run_all() {
    run("sqlite", conformance::run_all).await;
}

// ---- Durable stores only. ----

/// What was written before closing the file is there after reopening it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_data_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("envelope.db");
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    assert_eq!(store.engine(), Engine::Sqlite);
    let scope = fixtures::new_scope(&store, 5).await;
    let env = fixtures::envelope(&scope);
    let ev = fixtures::event(&env, envelope_core::model::EventType::Created);
    let debit = envelope_core::store::AllowanceDebit {
        account: scope.account.clone(),
        period: "2026-01".into(),
        allowance: 5,
    };
    store
        .create_envelope(&env, std::slice::from_ref(&ev), Some(&debit))
        .await
        .unwrap();
    store
        .blobs()
        .put(
            "blob_keep",
            bytes::Bytes::from_static(b"pdf"),
            fixtures::t(0),
        )
        .await
        .unwrap();
    // A point read keeps a connection of the store on the WAL through the close below.
    assert!(store.get_envelope(&scope, &env.id).await.unwrap().is_some());
    store.close().await;
    // A clean close leaves everything in the database file and the WAL empty, even while
    // other handles of the store (its point-read connections) are still open.
    let wal = dir.path().join("envelope.db-wal");
    let wal_len = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    assert_eq!(wal_len, 0, "close checkpoints the WAL");
    drop(store);

    let again = SqlStore::open_sqlite(&path).await.unwrap();
    assert_eq!(
        again.get_envelope(&scope, &env.id).await.unwrap(),
        Some(env)
    );
    assert_eq!(again.get_event(&scope, ev.id()).await.unwrap(), Some(ev));
    assert_eq!(again.usage(&scope.account, "2026-01").await.unwrap(), 1);
    assert_eq!(
        again.blobs().get("blob_keep").await.unwrap().as_deref(),
        Some(&b"pdf"[..])
    );
    again.close().await;
}

/// Checkpoints run in the background (not inside commits), and the WAL must still start over
/// rather than grow with every write: 2 048 commits of a 4 KB blob append about 3 pages each
/// (25 MB of frames) if the WAL never starts over, a few MB if it does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_wal_is_checkpointed_and_restarted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("envelope.db");
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    let blobs = store.blobs();
    let commits = 2048;
    for i in 0..commits {
        blobs
            .put(
                &format!("wal_{i}"),
                bytes::Bytes::from(vec![b'x'; 4096]),
                fixtures::t(0),
            )
            .await
            .unwrap();
    }
    let stats = store.commit_stats().unwrap();
    assert!(stats.commits >= commits as u64, "{stats:?}");
    let wal = std::fs::metadata(dir.path().join("envelope.db-wal"))
        .unwrap()
        .len();
    assert!(
        wal < 4096 * commits as u64,
        "the WAL grew to {wal} bytes over {commits} commits: it never started over"
    );
    // Everything is still there.
    assert_eq!(blobs.get("wal_0").await.unwrap().unwrap().len(), 4096);
    assert_eq!(blobs.get("wal_2047").await.unwrap().unwrap().len(), 4096);
    store.close().await;
}

/// The bytes of a SQLite database and its WAL.
fn sqlite_bytes(path: &std::path::Path) -> Vec<u8> {
    let mut bytes = std::fs::read(path).unwrap();
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    if let Ok(w) = std::fs::read(&wal) {
        bytes.extend(w);
    }
    bytes
}

fn contains(bytes: &[u8], needle: &[u8]) -> bool {
    bytes.windows(needle.len()).any(|w| w == needle)
}

/// `secure_delete`: a deleted blob (a PDF of several pages of overflow, and a small one that
/// shares a page with others) leaves none of its bytes in the database file or the WAL once
/// the WAL is copied back; a kept blob is still there (the search can find what it looks for).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_deleted_blobs_leave_no_bytes_behind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("envelope.db");
    let marker = |name: &str| format!("%{name}-{}%", envelope_core::ids::random_base62(16));
    let (big, small, kept) = (marker("big"), marker("small"), marker("kept"));
    let pdf = |m: &str, size: usize| {
        let mut b = format!("%PDF-1.7\n{m}\n").into_bytes();
        b.resize(size, b' ');
        b.extend(m.as_bytes());
        bytes::Bytes::from(b)
    };
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    let blobs = store.blobs();
    for (key, m, size) in [
        ("big", &big, 300_000),
        ("small", &small, 200),
        ("kept", &kept, 200),
    ] {
        blobs.put(key, pdf(m, size), fixtures::t(0)).await.unwrap();
    }
    store.close().await;
    let before = sqlite_bytes(&path);
    for m in [&big, &small, &kept] {
        assert!(contains(&before, m.as_bytes()), "{m} was stored");
    }
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    let blobs = store.blobs();
    assert!(blobs.delete("big").await.unwrap());
    assert!(blobs.delete("small").await.unwrap());
    store.close().await;
    let after = sqlite_bytes(&path);
    for m in [&big, &small] {
        assert!(!contains(&after, m.as_bytes()), "{m} left in the file");
    }
    assert!(contains(&after, kept.as_bytes()));
}

fn assert_too_new(r: Result<SqlStore, OpenError>, found: i64) {
    match r {
        Err(e @ OpenError::SchemaTooNew { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains(&format!("version {found}")), "{msg}");
            assert!(msg.contains(&format!("version {SCHEMA_VERSION}")), "{msg}");
            assert!(
                matches!(e, OpenError::SchemaTooNew { found: f, supported } if f == found && supported == SCHEMA_VERSION)
            );
        }
        other => panic!("expected SchemaTooNew, got {other:?}"),
    }
}

/// A database migrated by a newer binary is refused, naming both versions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("envelope.db");
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    store.close().await;
    {
        use sqlx::Connection;
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
             VALUES (9999, 'from the future', TRUE, x'00', 0)",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        conn.close().await.unwrap();
    }
    assert_too_new(SqlStore::open_sqlite(&path).await, 9999);
}

/// The SQL that makes a stored envelope unparseable, as something else writing the database would.
const CORRUPT_ENVELOPE: &str = "UPDATE envelopes SET doc = '{\"id\": 42' WHERE id = $1";

/// A stored record that does not parse is reported as corrupt, naming what it is.
async fn corrupt_record_is_reported(store: &SqlStore, scope: &Scope, id: &EnvelopeId) {
    match store.get_envelope(scope, id).await {
        Err(StoreError::Unavailable(e)) => {
            let message = e.to_string();
            assert!(
                message.starts_with("corrupt envelope record in the database"),
                "{message}"
            );
        }
        other => panic!("a corrupt record read as {other:?}"),
    }
}

/// On SQLite the point reads parse the record straight from SQLite's buffer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_corrupt_record_is_reported() {
    let (store, dir) = sqlite_file().await;
    let scope = fixtures::new_scope(&store, 0).await;
    let env = fixtures::envelope(&scope);
    store.create_envelope(&env, &[], None).await.unwrap();
    {
        use sqlx::Connection;
        let path = dir.path().join("envelope.db");
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        sqlx::query(CORRUPT_ENVELOPE)
            .bind(env.id.as_str())
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
    }
    corrupt_record_is_reported(&store, &scope, &env.id).await;
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_corrupt_record_is_reported() {
    let Some(url) = pg_url() else { return };
    let schema = PgSchema::new(url);
    let store = schema.connect().await;
    let scope = fixtures::new_scope(&store, 0).await;
    let env = fixtures::envelope(&scope);
    store.create_envelope(&env, &[], None).await.unwrap();
    let mut raw = schema.raw().await;
    sqlx::query(CORRUPT_ENVELOPE)
        .bind(env.id.as_str())
        .execute(&mut raw)
        .await
        .unwrap();
    drop(raw);
    corrupt_record_is_reported(&store, &scope, &env.id).await;
    store.close().await;
    schema.drop_schema().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_newer_schema_is_refused() {
    let Some(url) = pg_url() else { return };
    let schema = PgSchema::new(url);
    schema.connect().await.close().await;
    let mut raw = schema.raw().await;
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (9999, 'from the future', TRUE, '\\x00', 0)",
    )
    .execute(&mut raw)
    .await
    .unwrap();
    drop(raw);
    let r = SqlStore::connect_postgres_in_schema(&schema.url, &schema.name).await;
    schema.drop_schema().await;
    assert_too_new(r, 9999);
}

/// Two pools on one database behave like two server processes: the contract holds across them.
async fn two_instances(a: SqlStore, b: SqlStore) {
    let scope = fixtures::new_scope(&a, 0).await;
    // Idempotency begin raced from both instances: exactly one Started.
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            let scope = scope.clone();
            tokio::spawn(async move {
                store
                    .idempotency_begin(&scope, "k", "fp", fixtures::t(0), fixtures::t(-1))
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut started = 0;
    for t in tasks {
        if matches!(t.await.unwrap(), IdempotencyBegin::Started { .. }) {
            started += 1;
        }
    }
    assert_eq!(started, 1);

    // Envelope updates from the same version on both: exactly one wins.
    let env = fixtures::envelope(&scope);
    a.create_envelope(&env, &[], None).await.unwrap();
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            let mut mine = fixtures::next(&env);
            mine.name = format!("writer {i}");
            tokio::spawn(async move { store.update_envelope(&mine, &[], None).await })
        })
        .collect();
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(()) => won += 1,
            Err(StoreError::Conflict) => {}
            Err(e) => panic!("{e:?}"),
        }
    }
    assert_eq!(won, 1);
    // What one instance wrote, the other reads.
    assert_eq!(
        b.get_envelope(&scope, &env.id)
            .await
            .unwrap()
            .unwrap()
            .version,
        2
    );
}

/// Two stores on one SQLite file (`envelope.db` in the returned directory), as two processes
/// would open it.
async fn two_sqlite_processes() -> (tempfile::TempDir, SqlStore, SqlStore) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("envelope.db");
    let a = SqlStore::open_sqlite(&path).await.unwrap();
    let b = SqlStore::open_sqlite(&path).await.unwrap();
    (dir, a, b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_two_pools_on_one_file() {
    let (_dir, a, b) = two_sqlite_processes().await;
    two_instances(a.clone(), b.clone()).await;
    a.close().await;
    b.close().await;
}

/// Two processes on one SQLite file, as the point reads of each (`sql/inline.rs`, its own
/// connections) must see them, whatever those reads keep between calls: a write of this process
/// is seen by the next read at once; a write of the other process reaches the reads; and a write
/// that met a version conflict (the other process changed the row) is followed by a read of the
/// row as it is now, so that the service's retry can succeed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_point_reads_see_the_other_process_writes() {
    let (_dir, a, b) = two_sqlite_processes().await;
    let scope = fixtures::new_scope(&a, 0).await;
    let v1 = fixtures::envelope(&scope);
    a.create_envelope(&v1, &[], None).await.unwrap();
    let version = |s: &SqlStore| {
        let (s, scope, id) = (s.clone(), scope.clone(), v1.id.clone());
        async move { s.get_envelope(&scope, &id).await.unwrap().unwrap().version }
    };
    // b reads (whatever its connections keep), then a writes: b sees it soon.
    assert_eq!(version(&b).await, 1);
    let v2 = fixtures::next(&v1);
    a.update_envelope(&v2, &[], None).await.unwrap();
    let started = std::time::Instant::now();
    while version(&b).await != 2 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "another process's write never reached the point reads"
        );
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    // b's own write: its next read sees it, with no wait at all.
    for _ in 0..20 {
        assert_eq!(version(&b).await, 2);
    }
    let v3 = fixtures::next(&v2);
    b.update_envelope(&v3, &[], None).await.unwrap();
    assert_eq!(version(&b).await, 3);
    // a writes behind b's snapshot; b's write from the version it read conflicts, and b's
    // next read, right after, shows what the conflict found.
    for _ in 0..20 {
        assert_eq!(version(&b).await, 3);
    }
    let v4 = fixtures::next(&v3);
    a.update_envelope(&v4, &[], None).await.unwrap();
    let mut stale = fixtures::next(&v3);
    stale.name = "from a stale read".into();
    assert!(matches!(
        b.update_envelope(&stale, &[], None).await,
        Err(StoreError::Conflict)
    ));
    assert_eq!(version(&b).await, 4);
    a.close().await;
    b.close().await;
}

/// The point-read connections of one process hold back no checkpoint of another: closing b
/// truncates the WAL (waiting, through its busy handler, for readers still on the WAL) although
/// a's connections read just before and stay open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_point_reads_hold_back_no_checkpoint() {
    let (dir, a, b) = two_sqlite_processes().await;
    let scope = fixtures::new_scope(&b, 0).await;
    let env = fixtures::envelope(&scope);
    b.create_envelope(&env, &[], None).await.unwrap();
    assert!(a.get_envelope(&scope, &env.id).await.unwrap().is_some());
    b.close().await;
    let wal = std::fs::metadata(dir.path().join("envelope.db-wal"))
        .map(|m| m.len())
        .unwrap_or(0);
    assert_eq!(wal, 0, "b's close truncated the WAL");
    assert!(a.get_envelope(&scope, &env.id).await.unwrap().is_some());
    a.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_two_pools_on_one_schema() {
    let Some(url) = pg_url() else { return };
    let schema = PgSchema::new(url);
    let (a, b) = (schema.connect().await, schema.connect().await);
    let result = tokio::spawn(two_instances(a.clone(), b.clone())).await;
    a.close().await;
    b.close().await;
    schema.drop_schema().await;
    if let Err(e) = result {
        std::panic::resume_unwind(e.into_panic());
    }
}

// ---- Migration 0005 on data written at schema version 3. ----

/// The documents a version-3 binary wrote, and what migration 0005 must make of them.
mod backfill {
    use envelope_core::Timestamp;
    use envelope_core::model::{
        EnvelopeRecord, EventType, Mode, Scope, StoredFile, TemplateRecord,
    };
    use envelope_core::store::conformance::fixtures::*;
    use envelope_core::store::{FileLink, Store};
    use serde_json::Value;

    /// 2000-01-01 plus `days`.
    pub fn y2k(days: i64) -> Timestamp {
        Timestamp::from_millis(946_684_800_000 + days * 86_400_000).unwrap()
    }

    fn file(size: u64) -> StoredFile {
        StoredFile {
            blob: format!("blob_{}", envelope_core::ids::random_base62(32)),
            file_name: "a.pdf".into(),
            size,
            sha256: "0".into(),
            delta: None,
            sha256_state: None,
        }
    }

    /// A document as schema 3 stored it: without the members added since.
    fn v3_doc<T: serde::Serialize>(record: &T) -> String {
        let mut v = serde_json::to_value(record).unwrap();
        if let Value::Object(m) = &mut v {
            m.remove("files_deleted_at");
            m.remove("storage_quota");
        }
        v.to_string()
    }

    pub struct Rows {
        pub scope: Scope,
        pub account_doc: String,
        pub template: TemplateRecord,
        /// Test, completed in 2000: stale.
        pub stale: EnvelopeRecord,
        /// Test, made from the template in 2000: stale, shares the template's file.
        pub shared: EnvelopeRecord,
        /// Test, created in 2000 but opened by its signer in 2026: kept.
        pub opened: EnvelopeRecord,
        /// Live, completed in 2000: its files are due for live retention.
        pub live: EnvelopeRecord,
        pub event_doc: String,
        pub event_id: envelope_core::EventId,
        pub link: FileLink,
        pub link_doc: String,
    }

    pub fn rows() -> Rows {
        let a = account(5);
        let scope = Scope {
            account: a.id.clone(),
            mode: Mode::Test,
        };
        let mut template = template(&scope);
        template.file = file(1000);
        (template.created_at, template.updated_at) = (y2k(0), y2k(1));
        let completed = |mut e: EnvelopeRecord| {
            e.status = envelope_core::model::EnvelopeStatus::Completed;
            e.created_at = y2k(0);
            e.sent_at = Some(y2k(1));
            e.signers[0].signer.signed_at = Some(y2k(2));
            e.completed_at = Some(y2k(2));
            e.original = file(100);
            e.signed = Some(file(10));
            e.audit_trail = Some(file(1));
            e
        };
        let stale = completed(envelope(&scope));
        let mut shared = envelope(&scope);
        shared.created_at = y2k(0);
        shared.template = Some(template.id.clone());
        shared.original = template.file.clone();
        let mut opened = envelope(&scope);
        opened.created_at = y2k(0);
        opened.original = file(7);
        opened.signers[0].signer.viewed_at = Some(t(0));
        let live = completed(envelope(&Scope {
            account: a.id.clone(),
            mode: Mode::Live,
        }));
        let ev = event(&stale, EventType::Completed);
        let link = FileLink {
            blob: stale.original.blob.clone(),
            ..file_link()
        };
        Rows {
            account_doc: v3_doc(&a),
            event_doc: serde_json::to_string(&ev).unwrap(),
            event_id: ev.id().clone(),
            link_doc: serde_json::to_string(&link).unwrap(),
            link,
            scope,
            template,
            stale,
            shared,
            opened,
            live,
        }
    }

    impl Rows {
        pub fn envelopes(&self) -> [(&EnvelopeRecord, String); 4] {
            [&self.stale, &self.shared, &self.opened, &self.live].map(|e| (e, v3_doc(e)))
        }
        pub fn template_doc(&self) -> String {
            v3_doc(&self.template)
        }
    }

    /// Inserts the rows with the statements of schema 3, on either engine's connection.
    macro_rules! insert_v3 {
        ($conn:expr, $rows:expr) => {{
            let r = $rows;
            sqlx::query("INSERT INTO accounts (id, monthly_allowance, doc) VALUES ($1, 5, $2)")
                .bind(&r.scope.account)
                .bind(&r.account_doc)
                .execute(&mut *$conn)
                .await
                .unwrap();
            sqlx::query(
                "INSERT INTO templates (id, account, mode, version, archived, doc) \
                 VALUES ($1, $2, 'test', 1, FALSE, $3)",
            )
            .bind(r.template.id.as_str())
            .bind(&r.scope.account)
            .bind(r.template_doc())
            .execute(&mut *$conn)
            .await
            .unwrap();
            for (e, doc) in r.envelopes() {
                sqlx::query(
                    "INSERT INTO envelopes (id, account, mode, version, status, template, doc) \
                     VALUES ($1, $2, $3, 1, $4, $5, $6)",
                )
                .bind(e.id.as_str())
                .bind(&e.account)
                .bind(e.mode.as_str())
                .bind(e.status.as_str())
                .bind(e.template.as_deref())
                .bind(doc)
                .execute(&mut *$conn)
                .await
                .unwrap();
            }
            sqlx::query(
                "INSERT INTO events (id, account, mode, event_type, created_at, doc) \
                 VALUES ($1, $2, 'test', 'envelope.completed', 0, $3)",
            )
            .bind(&r.event_id)
            .bind(&r.scope.account)
            .bind(&r.event_doc)
            .execute(&mut *$conn)
            .await
            .unwrap();
            sqlx::query("INSERT INTO file_links (token_hash, expires_at, doc) VALUES ($1, 0, $2)")
                .bind(&r.link.token_hash)
                .bind(&r.link_doc)
                .execute(&mut *$conn)
                .await
                .unwrap();
            sqlx::query("INSERT INTO blobs (blob_key, data) VALUES ($1, $2)")
                .bind(&r.stale.original.blob)
                .bind(&b"%PDF-"[..])
                .execute(&mut *$conn)
                .await
                .unwrap();
        }};
    }
    pub(crate) use insert_v3;

    /// What the migrated store must say about the rows.
    pub async fn check(store: &dyn Store, blobs: &dyn envelope_core::store::BlobStore, r: &Rows) {
        let s = &r.scope;
        // Each held blob once: template 1000 (shared), stale 111, opened 7, live 111.
        assert_eq!(store.storage_used(&s.account).await.unwrap(), 1229);
        let account = store.get_account(&s.account).await.unwrap().unwrap();
        assert_eq!(account.storage_quota, None);
        let due = store
            .envelopes_with_files(Mode::Live, y2k(3), 10)
            .await
            .unwrap();
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].id, r.live.id);
        assert!(
            store
                .envelopes_with_files(Mode::Live, y2k(2), 10)
                .await
                .unwrap()
                .is_empty(),
            "the last change is the completion"
        );

        let mut freed = Vec::new();
        let removed = store
            .delete_stale_envelopes(Mode::Test, y2k(10), 10)
            .await
            .unwrap();
        assert_eq!(
            removed.records, 2,
            "stale and shared; opened changed in 2026"
        );
        freed.extend(removed.blobs);
        assert_eq!(store.get_envelope(s, &r.stale.id).await.unwrap(), None);
        assert_eq!(store.get_envelope(s, &r.shared.id).await.unwrap(), None);
        assert!(store.get_envelope(s, &r.opened.id).await.unwrap().is_some());
        assert_eq!(store.get_event(s, &r.event_id).await.unwrap(), None);
        assert_eq!(store.file_link(&r.link.token_hash).await.unwrap(), None);
        let removed = store
            .delete_stale_templates(Mode::Test, y2k(10), 10)
            .await
            .unwrap();
        assert_eq!(removed.records, 1);
        freed.extend(removed.blobs);
        freed.sort();
        let mut expected: Vec<String> = r
            .stale
            .held_files()
            .iter()
            .map(|f| f.blob.clone())
            .chain([r.template.file.blob.clone()])
            .collect();
        expected.sort();
        assert_eq!(freed, expected);
        assert_eq!(store.storage_used(&s.account).await.unwrap(), 118);

        // A blob stored before the migration has no known time: never an orphan candidate.
        let listed = blobs.list(None, 100).await.unwrap();
        let old = listed
            .iter()
            .find(|b| b.key == r.stale.original.blob)
            .expect("listed");
        assert_eq!(old.stored_at, None);
    }
}

/// The migrations of schema 3 alone, for a database as an older binary left it.
async fn v3_migrator(engine: &str) -> (sqlx::migrate::Migrator, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(engine);
    for entry in std::fs::read_dir(&src).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.as_str() < "0004" {
            std::fs::copy(src.join(&name), dir.path().join(&name)).unwrap();
        }
    }
    let m = sqlx::migrate::Migrator::new(dir.path()).await.unwrap();
    assert_eq!(m.iter().map(|m| m.version).max(), Some(3));
    (m, dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_migration_5_backfills_from_the_documents() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("envelope.db");
    let rows = backfill::rows();
    {
        let url = format!("sqlite://{}?mode=rwc", path.display());
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        let (m, _src) = v3_migrator("sqlite").await;
        m.run(&mut conn).await.unwrap();
        backfill::insert_v3!(&mut conn, &rows);
        conn.close().await.unwrap();
    }
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    backfill::check(&store, &store.blobs(), &rows).await;
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_migration_5_backfills_from_the_documents() {
    let Some(url) = pg_url() else { return };
    let schema = PgSchema::new(url);
    let rows = backfill::rows();
    {
        use sqlx::Connection;
        let mut admin = sqlx::PgConnection::connect(&schema.url).await.unwrap();
        let sql = format!("CREATE SCHEMA {}", schema.name);
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut admin)
            .await
            .unwrap();
        let mut conn = schema.raw().await;
        let (m, _src) = v3_migrator("postgres").await;
        m.run(&mut conn).await.unwrap();
        backfill::insert_v3!(&mut conn, &rows);
    }
    let store = schema.connect().await;
    let result = tokio::spawn({
        let (store, rows) = (store.clone(), rows);
        async move { backfill::check(&store, &store.blobs(), &rows).await }
    })
    .await;
    store.close().await;
    schema.drop_schema().await;
    if let Err(e) = result {
        std::panic::resume_unwind(e.into_panic());
    }
}

/// Schema 8 stores events packed. Events written before it, with their JSON (nulls and all) in
/// `doc`, read the same after the upgrade, through every read (by ID, in scope, in a list), beside
/// events written packed after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_events_written_before_schema_8_still_read() {
    use envelope_core::model::{EventType, Mode, Scope};
    use envelope_core::store::PageRequest;
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("envelope.db");
    let scope = Scope {
        account: "acct_old".parse().unwrap(),
        mode: Mode::Test,
    };
    let rec = fixtures::envelope(&scope);
    let old = fixtures::event(&rec, EventType::Created);
    {
        let src_dir = tempfile::tempdir().unwrap();
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/sqlite");
        for entry in std::fs::read_dir(&src).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.as_str() < "0008" {
                std::fs::copy(src.join(&name), src_dir.path().join(&name)).unwrap();
            }
        }
        let m = sqlx::migrate::Migrator::new(src_dir.path()).await.unwrap();
        let url = format!("sqlite://{}?mode=rwc", path.display());
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        m.run(&mut conn).await.unwrap();
        // As a binary of schema 7 wrote it: the whole JSON, with its nulls.
        sqlx::query(
            "INSERT INTO events (id, account, mode, event_type, created_at, doc, envelope) \
             VALUES ($1, $2, 'test', 'envelope.created', $3, $4, $5)",
        )
        .bind(old.id())
        .bind(&scope.account)
        .bind(old.event.created_at.millis())
        .bind(serde_json::to_string(&old).unwrap())
        .bind(rec.id.as_str())
        .execute(&mut conn)
        .await
        .unwrap();
        conn.close().await.unwrap();
    }
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    let new = fixtures::event(&rec, EventType::Sent);
    store
        .create_envelope(&rec, std::slice::from_ref(&new), None)
        .await
        .unwrap();
    assert_eq!(
        store.get_event(&scope, old.id()).await.unwrap(),
        Some(old.clone())
    );
    assert_eq!(store.find_event(old.id()).await.unwrap(), Some(old.clone()));
    assert_eq!(
        store.get_event(&scope, new.id()).await.unwrap(),
        Some(new.clone())
    );
    let page = PageRequest {
        limit: 10,
        starting_after: None,
    };
    match store.list_events(&scope, None, &page).await.unwrap() {
        envelope_core::store::Listed::Page(items, false) => assert_eq!(items, vec![new, old]),
        other => panic!("{other:?}"),
    }
    store.close().await;
    let url = format!("sqlite://{}", path.display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let rows: Vec<(String, Option<i64>)> =
        sqlx::query_as("SELECT doc, length(packed) FROM events ORDER BY seq")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    assert!(
        rows[0].0.starts_with('{') && rows[0].1.is_none(),
        "{rows:?}"
    );
    assert!(rows[1].0.is_empty(), "{rows:?}");
    assert!(rows[1].1.unwrap() * 2 < rows[0].0.len() as i64, "{rows:?}");
}

/// Bytes that do not compress.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 8);
    let mut x: u64 = seed | 1;
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// Schema 11 cuts blobs into chunks. Blobs stored whole by a binary of schema 10 (one of
/// several chunks with a short last one, one of exactly one chunk, an empty one, one without a
/// time) read the same after the upgrade, streamed in chunks of at most `SqlBlobStore::CHUNK`;
/// a retried `put` over a migrated key and a `delete` work.
mod chunked {
    use super::*;
    use envelope_core::store::SqlBlobStore;
    use futures_util::StreamExt;

    const C: usize = SqlBlobStore::CHUNK;

    /// (key, bytes, created_at) as schema 10 held them.
    pub fn old_blobs() -> Vec<(String, Vec<u8>, Option<i64>)> {
        vec![
            ("blob_several".into(), noise(3 * C + 12_345, 7), Some(1_000)),
            ("blob_one_chunk".into(), noise(C, 11), Some(2_000)),
            ("blob_small".into(), b"%PDF-1.7\n%%EOF\n".to_vec(), None),
            ("blob_empty".into(), Vec::new(), Some(3_000)),
        ]
    }

    /// Inserts the blobs with the statement of schema 10, on either engine's connection.
    macro_rules! insert_v10 {
        ($conn:expr, $blobs:expr) => {{
            for (key, data, at) in $blobs {
                sqlx::query("INSERT INTO blobs (blob_key, data, created_at) VALUES ($1, $2, $3)")
                    .bind(key)
                    .bind(data)
                    .bind(at)
                    .execute(&mut *$conn)
                    .await
                    .unwrap();
            }
        }};
    }
    pub(crate) use insert_v10;

    /// Every chunk of `key`'s stream, checking the size first and the bound of each.
    async fn chunks(blobs: &SqlBlobStore, key: &str, len: usize) -> Vec<bytes::Bytes> {
        let mut stream = blobs.get_stream(key).await.unwrap().expect(key);
        assert_eq!(stream.size(), len as u64, "{key}");
        let mut out = Vec::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.unwrap();
            assert!(
                !chunk.is_empty() && chunk.len() <= C,
                "{key}: {}",
                chunk.len()
            );
            out.push(chunk);
        }
        out
    }

    pub async fn check(store: &SqlStore, old: &[(String, Vec<u8>, Option<i64>)]) {
        let blobs = store.blobs();
        for (key, data, _) in old {
            assert_eq!(blobs.size(key).await.unwrap(), Some(data.len() as u64));
            let got = chunks(&blobs, key, data.len()).await;
            assert_eq!(got.len(), data.len().div_ceil(C), "{key}: chunks");
            assert!(got.concat() == *data, "{key} differs after the upgrade");
            assert_eq!(blobs.get(key).await.unwrap().as_deref(), Some(&data[..]));
        }
        let listed = blobs.list(None, 100).await.unwrap();
        for (key, _, at) in old {
            let info = listed.iter().find(|b| &b.key == key).expect("listed");
            assert_eq!(info.stored_at.map(|t| t.millis()), *at, "{key}");
        }

        // A retried put over a migrated key, then a fresh blob: chunks of at most C as well.
        let new = noise(2 * C + 1, 13);
        blobs
            .put(
                &old[0].0,
                bytes::Bytes::from(new.clone()),
                fixtures::t(5_000),
            )
            .await
            .unwrap();
        let got = chunks(&blobs, &old[0].0, new.len()).await;
        assert_eq!(got.iter().map(|c| c.len()).collect::<Vec<_>>(), [C, C, 1]);
        assert!(got.concat() == new);
        for (key, _, _) in old {
            assert!(blobs.delete(key).await.unwrap(), "{key}");
            assert!(blobs.get_stream(key).await.unwrap().is_none(), "{key}");
            assert_eq!(blobs.size(key).await.unwrap(), None, "{key}");
        }
        assert!(blobs.list(None, 100).await.unwrap().is_empty());
    }
}

/// The migrations before `first_missing` (`"0011"`), for a database as an older binary left it.
async fn migrator_before(
    engine: &str,
    first_missing: &str,
) -> (sqlx::migrate::Migrator, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(engine);
    for entry in std::fs::read_dir(&src).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.as_str() < first_missing {
            std::fs::copy(src.join(&name), dir.path().join(&name)).unwrap();
        }
    }
    let m = sqlx::migrate::Migrator::new(dir.path()).await.unwrap();
    (m, dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_blobs_of_schema_10_stream_after_the_upgrade() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("envelope.db");
    let old = chunked::old_blobs();
    {
        let url = format!("sqlite://{}?mode=rwc", path.display());
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        let (m, _src) = migrator_before("sqlite", "0011").await;
        assert_eq!(m.iter().map(|m| m.version).max(), Some(10));
        m.run(&mut conn).await.unwrap();
        chunked::insert_v10!(&mut conn, &old);
        conn.close().await.unwrap();
    }
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    chunked::check(&store, &old).await;
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_blobs_of_schema_10_stream_after_the_upgrade() {
    let Some(url) = pg_url() else { return };
    let schema = PgSchema::new(url);
    let old = chunked::old_blobs();
    {
        use sqlx::Connection;
        let mut admin = sqlx::PgConnection::connect(&schema.url).await.unwrap();
        let sql = format!("CREATE SCHEMA {}", schema.name);
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut admin)
            .await
            .unwrap();
        let mut conn = schema.raw().await;
        let (m, _src) = migrator_before("postgres", "0011").await;
        m.run(&mut conn).await.unwrap();
        chunked::insert_v10!(&mut conn, &old);
    }
    let store = schema.connect().await;
    let result = tokio::spawn({
        let store = store.clone();
        async move { chunked::check(&store, &old).await }
    })
    .await;
    store.close().await;
    schema.drop_schema().await;
    if let Err(e) = result {
        std::panic::resume_unwind(e.into_panic());
    }
}

/// Schema 12 keeps each envelope's seal sweep times in columns. Envelopes written by a binary of
/// schema 11 (a completed one sealed without them, as that binary wrote every sealed record;
/// one whose document holds both times, with a millisecond fraction; a draft without a seal)
/// are found after the upgrade by the times in their documents, to the millisecond.
mod sealed_v11 {
    use super::*;
    use envelope_core::model::{EnvelopeRecord, EnvelopeStatus, Mode, SealLevel, SealRecord};
    use fixtures::t;

    /// (without times, with both times, without a seal).
    pub fn records() -> [EnvelopeRecord; 3] {
        let scope = Scope {
            account: "acct_sealedv11".parse().unwrap(),
            mode: Mode::Live,
        };
        let sealed = |due: Option<i64>, expires: Option<i64>| {
            let mut e = fixtures::envelope(&scope);
            e.status = EnvelopeStatus::Completed;
            e.completed_at = Some(t(100));
            let mut seal = SealRecord::new(SealLevel::BLta, vec![SealLevel::BT], SealLevel::BLta);
            seal.upgrade_due_at = due.map(t);
            seal.archive_expires_at = expires.map(t);
            e.seal = Some(seal);
            e
        };
        [
            sealed(None, None),
            sealed(Some(-123), Some(4_567)),
            fixtures::envelope(&scope),
        ]
    }

    /// Inserts the records with the columns of schema 11, on either engine's connection.
    macro_rules! insert_v11 {
        ($conn:expr, $records:expr) => {{
            for r in $records.iter() {
                sqlx::query(
                    "INSERT INTO envelopes (id, account, mode, version, status, doc, blobs) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(r.id.as_str())
                .bind(r.account.as_str())
                .bind(r.mode.as_str())
                .bind(r.version as i64)
                .bind(r.status.as_str())
                .bind(serde_json::to_string(r).unwrap())
                .bind(r.original.blob.as_str())
                .execute(&mut *$conn)
                .await
                .unwrap();
            }
        }};
    }
    pub(crate) use insert_v11;

    fn ids(rs: Vec<EnvelopeRecord>) -> Vec<EnvelopeId> {
        rs.into_iter().map(|r| r.id).collect()
    }

    pub async fn check(store: &SqlStore, records: &[EnvelopeRecord; 3]) {
        let [untimed, timed, draft] = records;
        for r in records {
            assert_eq!(
                store
                    .get_envelope(&r.scope(), &r.id)
                    .await
                    .unwrap()
                    .as_ref(),
                Some(r)
            );
        }
        let due = |ms: i64| async move { ids(store.seal_upgrades_due(t(ms), 10).await.unwrap()) };
        let expiring =
            |ms: i64| async move { ids(store.seals_expiring(t(ms), None, 10).await.unwrap()) };
        assert_eq!(due(-124).await, Vec::<EnvelopeId>::new());
        assert_eq!(due(-123).await, vec![timed.id.clone()]);
        assert_eq!(expiring(4_566).await, Vec::<EnvelopeId>::new());
        assert_eq!(expiring(4_567).await, vec![timed.id.clone()]);
        assert_eq!(
            store.seal_upgrades_due(t(-123), 10).await.unwrap(),
            vec![timed.clone()]
        );
        // Written again by this binary: the columns follow the record.
        let mut cleared = timed.clone();
        cleared.version += 1;
        cleared.seal.as_mut().unwrap().upgrade_due_at = None;
        store.update_envelope(&cleared, &[], None).await.unwrap();
        let mut set = untimed.clone();
        set.version += 1;
        set.seal.as_mut().unwrap().upgrade_due_at = Some(t(-1));
        store.update_envelope(&set, &[], None).await.unwrap();
        let mut still = draft.clone();
        still.version += 1;
        store.update_envelope(&still, &[], None).await.unwrap();
        assert_eq!(due(1_000_000).await, vec![untimed.id.clone()]);
        assert_eq!(expiring(1_000_000).await, vec![timed.id.clone()]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_envelopes_of_schema_11_are_found_by_their_seal_times() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("envelope.db");
    let records = sealed_v11::records();
    {
        let url = format!("sqlite://{}?mode=rwc", path.display());
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        let (m, _src) = migrator_before("sqlite", "0012").await;
        assert_eq!(m.iter().map(|m| m.version).max(), Some(11));
        m.run(&mut conn).await.unwrap();
        sealed_v11::insert_v11!(&mut conn, &records);
        conn.close().await.unwrap();
    }
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    sealed_v11::check(&store, &records).await;
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_envelopes_of_schema_11_are_found_by_their_seal_times() {
    let Some(url) = pg_url() else { return };
    let schema = PgSchema::new(url);
    let records = sealed_v11::records();
    {
        use sqlx::Connection;
        let mut admin = sqlx::PgConnection::connect(&schema.url).await.unwrap();
        let sql = format!("CREATE SCHEMA {}", schema.name);
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut admin)
            .await
            .unwrap();
        let mut conn = schema.raw().await;
        let (m, _src) = migrator_before("postgres", "0012").await;
        assert_eq!(m.iter().map(|m| m.version).max(), Some(11));
        m.run(&mut conn).await.unwrap();
        sealed_v11::insert_v11!(&mut conn, &records);
    }
    let store = schema.connect().await;
    let result = tokio::spawn({
        let store = store.clone();
        async move { sealed_v11::check(&store, &records).await }
    })
    .await;
    store.close().await;
    schema.drop_schema().await;
    if let Err(e) = result {
        std::panic::resume_unwind(e.into_panic());
    }
}
