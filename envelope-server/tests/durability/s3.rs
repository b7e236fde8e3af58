//! Two server processes on one PostgreSQL schema with PDFs in an S3 bucket (moto's server,
//! `--blob-url s3://<bucket>/pdfs` and the `AWS_*` variables): one creates and sends an
//! envelope, the other completes it, and both download the same signed copy. The bucket then
//! holds exactly the envelope's three objects (original, the signed copy's update, audit trail)
//! and the database's `blobs` table is empty.
//!
//! Needs `ENVELOPE_TEST_DATABASE_URL` and `moto_server` (`scripts/install-test-deps.sh`);
//! without either it prints why it skipped and passes (in CI a missing `moto_server` fails).

use base64::Engine;
use serde_json::json;

use crate::check::download;
use crate::moto::Moto;
use crate::multi_process::Schema;
use crate::pdf::client_contract;
use crate::process::{BIN, ServerProcess, create_account, send};

const BUCKET: &str = "envelope-durability";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_share_pdfs_in_s3() {
    let url = match std::env::var("ENVELOPE_TEST_DATABASE_URL") {
        Ok(u) if !u.is_empty() => u,
        _ => {
            eprintln!(
                "two_servers_share_pdfs_in_s3: SKIPPED: ENVELOPE_TEST_DATABASE_URL is not set"
            );
            return;
        }
    };
    let Some(moto) = Moto::start("two_servers_share_pdfs_in_s3") else {
        return;
    };
    moto.create_bucket(BUCKET);
    let schema = Schema::create(&url).await;
    let db_url = schema.database_url();
    let dir = tempfile::tempdir().unwrap();
    let key = create_account(BIN, &db_url, dir.path(), "Object storage");

    let blob_url = format!("s3://{BUCKET}/pdfs");
    let key_file = dir.path().join("idempotency.key");
    let env = moto.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let start = |name: &str| {
        let data = dir.path().join(name);
        let args = [
            "--database-url",
            &db_url,
            "--blob-url",
            &blob_url,
            "--data-dir",
            data.to_str().unwrap(),
            "--idempotency-key-file",
            key_file.to_str().unwrap(),
        ];
        ServerProcess::start_with_env(BIN, &args, &env, &dir.path().join(format!("{name}.log")))
    };
    let (a, b) = (start("a"), start("b"));
    let client = reqwest::Client::new();
    let pdf = client_contract();

    // Server a creates and sends.
    let created = send(
        client
            .post(format!("{}/v1/envelopes", a.base))
            .bearer_auth(&key)
            .json(&json!({
                "file_base64": base64::engine::general_purpose::STANDARD.encode(&pdf),
                "file_name": "contract.pdf",
                "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
                "send": true,
            })),
    )
    .await
    .expect("a answers");
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_string();
    assert_eq!(moto.keys(BUCKET).len(), 1, "the original is in the bucket");

    // Server b, which never saw the upload, completes it (reading the original from S3).
    let completed = send(
        client
            .post(format!(
                "{}/v1/test_helpers/envelopes/{id}/complete",
                b.base
            ))
            .bearer_auth(&key),
    )
    .await
    .expect("b answers");
    assert_eq!(completed.status, 200, "{}", completed.body);
    assert_eq!(completed.body["status"], "completed");

    // Both download the same signed copy: the original plus an appended update.
    let signed_a = download(&client, &a.base, &key, &id, "signed").await;
    let signed_b = download(&client, &b.base, &key, &id, "signed").await;
    assert!(
        signed_a == signed_b,
        "the two servers serve different signed copies"
    );
    assert!(signed_a.starts_with(&pdf) && signed_a.len() > pdf.len());
    let original_b = download(&client, &b.base, &key, &id, "original").await;
    assert!(original_b == pdf, "b serves the original a stored");
    let trail = download(&client, &a.base, &key, &id, "audit_trail").await;
    assert!(trail.starts_with(b"%PDF-"));

    // Exactly the envelope's objects, under the prefix, and none in the database.
    let objects = moto.keys(BUCKET);
    assert_eq!(
        objects.len(),
        3,
        "original, signed update, audit trail: {objects:?}"
    );
    assert!(
        objects.iter().all(|k| k.starts_with("pdfs/blob_")),
        "{objects:?}"
    );
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(&db_url).await.unwrap();
    let in_db: i64 = sqlx::query_scalar("SELECT count(*) FROM blobs")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(in_db, 0, "no PDF bytes in the database");
    eprintln!(
        "{id}: created on a, completed on b, {} objects in S3",
        objects.len()
    );
    drop(schema);
}

/// A `--blob-url` the server cannot use stops it at start with the reason, before it listens.
#[test]
fn a_wrong_blob_url_stops_the_server_at_start() {
    let dir = tempfile::tempdir().unwrap();
    for (url, says) in [
        ("file:///tmp/pdfs", "--blob-url must start with s3://"),
        ("s3://Not_A_Bucket/pdfs", "the bucket must be"),
        ("s3://key:secret@bucket/pdfs", "AWS_* variables"),
    ] {
        let out = std::process::Command::new(crate::process::BIN)
            .args(["serve", "--listen", "127.0.0.1:0", "--blob-url", url])
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .env("ENVELOPE_LOG", "warn")
            .env_remove("ENVELOPE_DATABASE_URL")
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{url}: started");
        assert!(stderr.contains(says), "{url}: {stderr}");
    }
}
