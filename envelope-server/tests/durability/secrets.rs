//! Secrets at rest, on the real binary: idempotency records keep a signing URL and a webhook
//! secret only encrypted (read from the raw SQLite rows), replays still answer the same bytes,
//! also after a restart (the key lives in the data dir), and the data dir is owner-only.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use base64::Engine;
use serde_json::{Value, json};

use crate::pdf::client_contract;
use crate::process::ServerProcess;

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
    let server = ServerProcess::start(&["--data-dir", &data_arg], &log);
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
    let server = ServerProcess::start(&["--data-dir", &data_arg], &log);
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
