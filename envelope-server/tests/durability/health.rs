//! `/readyz` of the real binary follows its store: a PostgreSQL role that loses its write
//! privilege makes it `503 store_unwritable`, getting it back makes it `200` again, and the
//! process keeps running throughout (only a store that failed for good ends it).
//!
//! Needs `ENVELOPE_TEST_DATABASE_URL` with a role that may create roles (`postgres` in CI and
//! locally); without it the test prints why it skipped and passes. The server connects as a new
//! role that owns a new schema, because privileges do not bind a superuser; both are dropped at
//! the end.

use std::time::{Duration, Instant};

use crate::process::{BIN, ServerProcess, send};

const PG_URL_VAR: &str = "ENVELOPE_TEST_DATABASE_URL";

/// How long the test waits for a readiness change it caused: the server's answer is cached for
/// a second, so this only bounds a hang.
const CHANGE_LIMIT: Duration = Duration::from_secs(30);

/// A login role owning a schema of the same name, dropped when the test ends.
struct Role {
    admin_url: String,
    name: String,
}

impl Role {
    async fn create(admin_url: &str) -> Role {
        let name = format!(
            "rz_{}",
            envelope_core::ids::random_base62(16).to_ascii_lowercase()
        );
        let role = Role {
            admin_url: admin_url.to_string(),
            name,
        };
        let n = &role.name;
        role.admin(&format!("CREATE ROLE {n} LOGIN")).await;
        role.admin(&format!("CREATE SCHEMA {n} AUTHORIZATION {n}"))
            .await;
        role
    }

    async fn admin(&self, sql: &str) {
        admin(&self.admin_url, sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    /// The URL the server connects with: this role, this schema.
    fn database_url(&self) -> String {
        let mut url = url::Url::parse(&self.admin_url).unwrap();
        url.set_username(&self.name).unwrap();
        url.set_password(None).unwrap();
        url.query_pairs_mut()
            .append_pair("options", &format!("-csearch_path={}", self.name));
        url.to_string()
    }
}

async fn admin(url: &str, sql: &str) -> Result<(), sqlx::Error> {
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(url).await?;
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string()))
        .execute(&mut conn)
        .await?;
    conn.close().await
}

impl Drop for Role {
    fn drop(&mut self) {
        let (url, n) = (self.admin_url.clone(), self.name.clone());
        // Drop runs inside the test's runtime: do the async cleanup on a thread of its own.
        let dropped = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(admin(
                &url,
                &format!("DROP SCHEMA IF EXISTS {n} CASCADE; DROP ROLE IF EXISTS {n}"),
            ))
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!("could not drop role {}: {dropped:?}", self.name);
        }
    }
}

/// Probes `/readyz` until its status is `want`, and returns the last body.
async fn readyz_until(client: &reqwest::Client, base: &str, want: u16) -> serde_json::Value {
    let deadline = Instant::now() + CHANGE_LIMIT;
    loop {
        let answer = send(client.get(format!("{base}/readyz"))).await;
        if let Some(a) = &answer
            && a.status == want
        {
            return a.body.clone();
        }
        assert!(
            Instant::now() < deadline,
            "/readyz did not answer {want} within {CHANGE_LIMIT:?}; last: {answer:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_follows_a_postgres_role_losing_its_write_privilege() {
    let Ok(url) = std::env::var(PG_URL_VAR) else {
        eprintln!("skipped: {PG_URL_VAR} is not set");
        return;
    };
    let role = Role::create(&url).await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let db_url = role.database_url();
    let mut server = ServerProcess::start(BIN, &["--database-url", &db_url], &log);
    let client = reqwest::Client::new();

    let live = send(client.get(format!("{}/healthz", server.base))).await;
    assert_eq!(live.map(|a| a.status), Some(200));
    let body = readyz_until(&client, &server.base, 200).await;
    assert_eq!(body["status"], "ready");

    let table = format!("{}.readiness_probe", role.name);
    role.admin(&format!(
        "REVOKE INSERT, UPDATE ON {table} FROM {}",
        role.name
    ))
    .await;
    let body = readyz_until(&client, &server.base, 503).await;
    assert_eq!(body["status"], "unready", "{body}");
    assert_eq!(body["reason"], "store_unwritable", "{body}");
    assert!(
        !body["message"].as_str().unwrap().contains("permission"),
        "the driver's words stay in the log: {body}"
    );
    // Liveness does not follow the store: restarting would not bring the privilege back.
    let live = send(client.get(format!("{}/healthz", server.base))).await;
    assert_eq!(live.map(|a| a.status), Some(200));

    role.admin(&format!("GRANT INSERT, UPDATE ON {table} TO {}", role.name))
        .await;
    readyz_until(&client, &server.base, 200).await;

    server.terminate();
    let status = server
        .wait_exit(Duration::from_secs(30))
        .expect("the server stops on SIGTERM");
    assert!(status.success(), "exit status {status}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("store_unwritable") && logged.contains("permission denied"),
        "the change and its cause are logged:\n{logged}"
    );
}
