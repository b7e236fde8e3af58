//! Secrets at rest, on the real binary: idempotency records keep a signing URL and a webhook
//! secret only encrypted (read from the raw SQLite rows), replays still answer the same bytes,
//! also after a restart (the key lives in the data dir), and the data dir is owner-only.

use envelope_core::store::WebhookStore;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use base64::Engine;
use serde_json::{Value, json};

use crate::pdf::client_contract;
use crate::process::{BIN, ServerProcess};

async fn post(base: &str, key: &str, path: &str, idem: &str, body: Value) -> (u16, Vec<u8>) {
    let res = reqwest::Client::new()
        .post(format!("{base}{path}"))
        .bearer_auth(key)
        .header("Idempotency-Key", idem)
        .json(&body)
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.bytes().await.unwrap().to_vec())
}

async fn stored_bodies(db: &Path) -> Vec<Vec<u8>> {
    use sqlx::Connection;
    let url = format!("sqlite://{}?mode=ro", db.display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let rows: Vec<(Option<Vec<u8>>,)> =
        sqlx::query_as("SELECT body FROM idempotency_keys WHERE done")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    rows.into_iter().filter_map(|(b,)| b).collect()
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Every directory under `dir` (itself included) is 0700 and every file 0600.
fn assert_owner_only(dir: &Path) -> usize {
    let mode = std::fs::metadata(dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "{}", dir.display());
    let mut files = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files += assert_owner_only(&path);
        } else {
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", path.display());
            files += 1;
        }
    }
    files
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idempotency_records_keep_secrets_encrypted_and_the_data_dir_is_owner_only() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data_arg = data.to_str().unwrap().to_string();
    let log = tmp.path().join("server.log");
    let server = ServerProcess::start(BIN, &["--data-dir", &data_arg], &log);
    let key = server.printed_test_key();
    let base = server.base.clone();

    let endpoint_body = json!({"url": "https://hooks.example.com/envelope", "events": ["*"]});
    let (status, endpoint) = post(
        &base,
        &key,
        "/v1/webhook_endpoints",
        "ep-1",
        endpoint_body.clone(),
    )
    .await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&endpoint));
    let secret = serde_json::from_slice::<Value>(&endpoint).unwrap()["secret"]
        .as_str()
        .unwrap()
        .to_string();

    let create = json!({
        "file_base64": base64::engine::general_purpose::STANDARD.encode(client_contract()),
        "file_name": "contract.pdf",
        "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
        "send": true,
    });
    let (status, env) = post(&base, &key, "/v1/envelopes", "env-1", create).await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&env));
    let env_id = serde_json::from_slice::<Value>(&env).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let link_path = format!("/v1/envelopes/{env_id}/signing_url");
    let (status, link) = post(&base, &key, &link_path, "link-1", json!({})).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&link));
    let url = serde_json::from_slice::<Value>(&link).unwrap()["url"]
        .as_str()
        .unwrap()
        .to_string();
    let token = url.rsplit('/').next().unwrap().to_string();

    let db = data.join("envelope.sqlite3");
    let bodies = stored_bodies(&db).await;
    assert_eq!(bodies.len(), 3, "one record per request");
    for body in &bodies {
        assert!(
            !contains(body, &secret),
            "webhook secret stored in the clear"
        );
        assert!(
            !contains(body, &token),
            "signing link token stored in the clear"
        );
        assert!(
            !contains(body, "\"object\""),
            "a response stored in the clear"
        );
    }

    // A replay answers the very bytes of the first answer, before and after a restart.
    let again = post(&base, &key, &link_path, "link-1", json!({})).await;
    assert_eq!(again, (200, link.clone()));
    let again = post(
        &base,
        &key,
        "/v1/webhook_endpoints",
        "ep-1",
        endpoint_body.clone(),
    )
    .await;
    assert_eq!(again, (201, endpoint.clone()));
    server.kill();
    let server = ServerProcess::start(BIN, &["--data-dir", &data_arg], &log);
    let again = post(&server.base, &key, &link_path, "link-1", json!({})).await;
    assert_eq!(again, (200, link.clone()), "after a restart");
    let again = post(
        &server.base,
        &key,
        "/v1/webhook_endpoints",
        "ep-1",
        endpoint_body,
    )
    .await;
    assert_eq!(again, (201, endpoint), "after a restart");

    // Database, WAL, shared memory, mail (the signing request), keys and secrets.
    for name in [
        "envelope.sqlite3",
        "envelope.sqlite3-wal",
        "idempotency.key",
        "signing-page.secret",
        "mail",
        "signing",
    ] {
        assert!(data.join(name).exists(), "{name} missing");
    }
    let files = assert_owner_only(&data);
    assert!(files >= 7, "only {files} files checked");
    server.kill();
}

/// Runs `serve` on `store_args` expecting it to refuse to start: its exit status and stderr.
/// A server that starts anyway is killed at the deadline and the test fails.
fn refused_start(store_args: &[&str], env: &[(&str, &str)], dir: &Path) -> (bool, String) {
    use std::time::{Duration, Instant};
    let log = dir.join("refused.log");
    let stderr = std::fs::File::create(&log).unwrap();
    let port = crate::process::free_port();
    let mut child = std::process::Command::new(crate::process::BIN)
        .arg("serve")
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(store_args)
        .env("ENVELOPE_LOG", "warn")
        .env_remove("ENVELOPE_DATABASE_URL")
        .env_remove("ENVELOPE_DATA_DIR")
        .env_remove("ENVELOPE_IDEMPOTENCY_KEY_FILE")
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the server started with another key: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (status.success(), std::fs::read_to_string(&log).unwrap())
}

/// Asserts the refusal names what to set.
fn assert_names_the_option(stderr: &str) {
    for words in [
        "--idempotency-key-file",
        "ENVELOPE_IDEMPOTENCY_KEY_FILE",
        "Servers that share a database must share one key file",
    ] {
        assert!(stderr.contains(words), "{words:?} missing from: {stderr}");
    }
}

/// A server whose idempotency key is not the one its database's records were written with
/// refuses to start, saying which option to set; with the right key (the first server's file)
/// it starts and replays the first server's records. SQLite always; PostgreSQL (two data dirs,
/// each with its own key, on one schema) when `ENVELOPE_TEST_DATABASE_URL` is set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_with_another_idempotency_key_refuses_to_start() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data_arg = data.to_str().unwrap().to_string();
    let log = tmp.path().join("server.log");
    let server = ServerProcess::start(BIN, &["--data-dir", &data_arg], &log);
    let key = server.printed_test_key();
    let body = json!({"url": "https://hooks.example.com/a", "events": ["*"]});
    let first = post(
        &server.base,
        &key,
        "/v1/webhook_endpoints",
        "k-1",
        body.clone(),
    )
    .await;
    assert_eq!(first.0, 201);
    server.kill();

    // Another key file (made on first use, as a fresh data dir makes its own).
    let other = tmp.path().join("other.key");
    let other_arg = other.to_str().unwrap().to_string();
    let (ok, stderr) = refused_start(
        &[
            "--data-dir",
            &data_arg,
            "--idempotency-key-file",
            &other_arg,
        ],
        &[],
        tmp.path(),
    );
    assert!(!ok, "exit status 0: {stderr}");
    assert_names_the_option(&stderr);
    assert!(stderr.contains(&other_arg), "names the file: {stderr}");
    // The same through the variable.
    let (ok, stderr) = refused_start(
        &["--data-dir", &data_arg],
        &[("ENVELOPE_IDEMPOTENCY_KEY_FILE", &other_arg)],
        tmp.path(),
    );
    assert!(!ok);
    assert_names_the_option(&stderr);

    // The right key (a copy of the first server's file, elsewhere) starts and replays.
    let copy = tmp.path().join("copy.key");
    std::fs::copy(data.join("idempotency.key"), &copy).unwrap();
    let server = ServerProcess::start(
        BIN,
        &[
            "--data-dir",
            &data_arg,
            "--idempotency-key-file",
            copy.to_str().unwrap(),
        ],
        &log,
    );
    let again = post(&server.base, &key, "/v1/webhook_endpoints", "k-1", body).await;
    assert_eq!(again, first, "the first server's record replays");
    server.kill();

    let Ok(url) = std::env::var("ENVELOPE_TEST_DATABASE_URL") else {
        eprintln!("PostgreSQL part skipped: ENVELOPE_TEST_DATABASE_URL is not set");
        return;
    };
    let schema = crate::multi_process::Schema::create(&url).await;
    let db = schema.database_url();
    let a = tmp.path().join("pg-a");
    let b = tmp.path().join("pg-b");
    let server = ServerProcess::start(
        BIN,
        &["--data-dir", a.to_str().unwrap(), "--database-url", &db],
        &tmp.path().join("pg-a.log"),
    );
    server.kill();
    let (ok, stderr) = refused_start(
        &["--data-dir", b.to_str().unwrap(), "--database-url", &db],
        &[],
        tmp.path(),
    );
    assert!(!ok, "a second data dir's own key was accepted: {stderr}");
    assert_names_the_option(&stderr);
}

/// Deliveries received: (signature header, body).
type Received = std::sync::Arc<std::sync::Mutex<Vec<(String, Vec<u8>)>>>;

/// A webhook receiver on 127.0.0.1 that keeps what it is sent and answers 200.
async fn receiver(got: Received) -> String {
    use http_body_util::{BodyExt, Full};
    use hyper::service::service_fn;
    use hyper_util::rt::TokioIo;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let got = got.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let got = got.clone();
                    async move {
                        let sig = req
                            .headers()
                            .get("service-signature")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or_default()
                            .to_string();
                        let body = req.into_body().collect().await.unwrap().to_bytes();
                        got.lock().unwrap().push((sig, body.to_vec()));
                        Ok::<_, std::convert::Infallible>(hyper::Response::new(Full::new(
                            bytes::Bytes::from_static(b"ok"),
                        )))
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    format!("http://{addr}/hook")
}

/// Waits until the receiver has a delivery of event `event`, and checks its signature with
/// `secret`.
async fn delivered_and_verified(got: &Received, event_type: &str, env: &str, secret: &str) {
    for _ in 0..3000 {
        let found = got.lock().unwrap().iter().find_map(|(sig, body)| {
            let v: Value = serde_json::from_slice(body).ok()?;
            (v["type"] == event_type && v["data"]["object"]["id"] == env)
                .then(|| (sig.clone(), body.clone()))
        });
        if let Some((sig, body)) = found {
            let now = chrono::Utc::now().timestamp();
            envelope_core::webhook::verify(&body, &sig, secret, 300, now)
                .unwrap_or_else(|e| panic!("{e:?}: {sig}"));
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("no {event_type} delivery for {env}");
}

/// The bytes of the SQLite database and its WAL.
fn database_holds(db: &Path, needle: &str) -> bool {
    let mut bytes = std::fs::read(db).unwrap();
    if let Ok(wal) = std::fs::read(db.with_extension("sqlite3-wal")) {
        bytes.extend(wal);
    }
    contains(&bytes, needle)
}

fn reveal(data: &str, endpoint: &str) -> String {
    let out = std::process::Command::new(crate::process::BIN)
        .args(["webhooks", "reveal-secret", "--endpoint", endpoint])
        .args(["--data-dir", data])
        .env("ENVELOPE_LOG", "warn")
        .env_remove("ENVELOPE_DATABASE_URL")
        .env_remove("ENVELOPE_IDEMPOTENCY_KEY_FILE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Webhook secrets are sealed at rest with the idempotency key: the database file never holds
/// the `whsec_` secret the API returned, deliveries still verify with it, and the admin
/// command reveals it. A secret stored in the clear before (written here into the database)
/// keeps signing, and the next start seals it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_secrets_are_sealed_at_rest_and_still_sign() {
    let got: Received = Default::default();
    let hook = receiver(got.clone()).await;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data_arg = data.to_str().unwrap().to_string();
    let db = data.join("envelope.sqlite3");
    let log = tmp.path().join("server.log");
    let args = ["--data-dir", data_arg.as_str(), "--allow-insecure-webhooks"];
    let server = ServerProcess::start(BIN, &args, &log);
    let key = server.printed_test_key();
    let (status, ep) = post(
        &server.base,
        &key,
        "/v1/webhook_endpoints",
        "ep-1",
        json!({"url": hook, "events": ["*"]}),
    )
    .await;
    assert_eq!(status, 201);
    let ep: Value = serde_json::from_slice(&ep).unwrap();
    let secret = ep["secret"].as_str().unwrap().to_string();
    let endpoint = ep["id"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"));
    let create = || {
        json!({
            "file_base64": base64::engine::general_purpose::STANDARD.encode(client_contract()),
            "file_name": "contract.pdf",
            "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
        })
    };
    let (status, env) = post(&server.base, &key, "/v1/envelopes", "env-1", create()).await;
    assert_eq!(status, 201);
    let env = serde_json::from_slice::<Value>(&env).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    delivered_and_verified(&got, "envelope.created", &env, &secret).await;
    server.kill();

    // Not in the file, in any form the test can find: neither the secret nor its random part
    // (the idempotency record of the create is sealed too).
    assert!(
        !database_holds(&db, &secret),
        "webhook secret stored in the clear"
    );
    assert!(!database_holds(&db, &secret["whsec_".len()..]));
    assert_eq!(reveal(&data_arg, &endpoint), secret);

    // A secret stored in the clear by an older binary.
    let legacy = format!("whsec_{}", envelope_core::ids::random_base62(32));
    {
        let store = envelope_core::store::SqlStore::open_sqlite(&db)
            .await
            .unwrap();

        let mut rec = store
            .find_webhook_endpoint(&endpoint.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        rec.secret = legacy.clone();
        store.update_webhook_endpoint(&rec).await.unwrap();
        store.close().await;
    }
    assert!(database_holds(&db, &legacy), "planted in the clear");
    let server = ServerProcess::start(BIN, &args, &log);
    let (status, env) = post(&server.base, &key, "/v1/envelopes", "env-2", create()).await;
    assert_eq!(status, 201);
    let env = serde_json::from_slice::<Value>(&env).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    delivered_and_verified(&got, "envelope.created", &env, &legacy).await;
    // Stopped as an orchestrator stops it: the WAL is copied back into the file.
    let mut server = server;
    server.terminate();
    assert!(
        server
            .wait_exit(std::time::Duration::from_secs(30))
            .is_some()
    );
    assert!(!database_holds(&db, &legacy), "sealed at the start");
    assert_eq!(reveal(&data_arg, &endpoint), legacy);
}
