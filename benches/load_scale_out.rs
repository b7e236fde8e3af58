//! `LOAD_SCALE_OUT=1`: the HTTP API of one, then two `envelope-server` processes on one
//! PostgreSQL database with PDFs in S3 (moto's server), the deployment that outgrows one
//! machine (docs/STORAGE.md). The client sends requests round-robin to the processes: POSTs of
//! the one-page contract (each writes its PDF to S3 and its record to PostgreSQL), then GETs of
//! the stored envelopes. For each setup it prints POST/s, GET/s and their latency p50/p99.
//!
//! Needs `ENVELOPE_TEST_DATABASE_URL` and `moto_server` (scripts/install-test-deps.sh); without
//! them it says so and stops. Each setup gets a new schema `so_<random>` (dropped at the end)
//! and a new bucket. `LOAD_SCALE_ENVELOPES` (default 5 000) POSTs and `LOAD_SCALE_GETS`
//! (default 20 000) GETs per setup, `LOAD_CONCURRENCY` in flight.

use std::sync::Arc;

use base64::Engine;
use bytes::Bytes;
use http_body_util::Full;
use hyper::Request;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

use super::{HttpClient, Run, drive, pdf};

use envelope_testkit::moto::Moto;
use envelope_testkit::process::{ServerProcess, create_account};

/// The binary cargo built for this bench.
const BIN: &str = env!("CARGO_BIN_EXE_envelope-server");

struct Counts {
    envelopes: usize,
    gets: usize,
    concurrency: usize,
}

pub async fn run(bench: bool) {
    let var = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let counts = if bench {
        Counts {
            envelopes: var("LOAD_SCALE_ENVELOPES", 5_000),
            gets: var("LOAD_SCALE_GETS", 20_000),
            concurrency: var("LOAD_CONCURRENCY", 16),
        }
    } else {
        Counts {
            envelopes: 20,
            gets: 20,
            concurrency: 4,
        }
    };
    let url = match std::env::var("ENVELOPE_TEST_DATABASE_URL") {
        Ok(u) if !u.is_empty() => u,
        _ => {
            println!("scale-out: SKIPPED: ENVELOPE_TEST_DATABASE_URL is not set");
            return;
        }
    };
    let Some(moto) = Moto::start("scale-out") else {
        return;
    };
    println!(
        "scale-out: PostgreSQL + PDFs in S3 (moto at {}), {} POSTs and {} GETs per setup, {} in flight",
        moto.endpoint(),
        counts.envelopes,
        counts.gets,
        counts.concurrency
    );
    let mut figures = Vec::new();
    for servers in [1, 2] {
        figures.push((servers, setup(&url, &moto, servers, &counts).await));
    }
    if let [(_, (p1, g1)), (_, (p2, g2))] = figures.as_slice() {
        println!(
            "two servers / one server: POST {:.2}, GET {:.2}",
            p2.per_second() / p1.per_second(),
            g2.per_second() / g1.per_second()
        );
    }
}

/// One setup: `servers` processes on a new schema and bucket; returns the POST and GET runs.
async fn setup(url: &str, moto: &Moto, servers: usize, counts: &Counts) -> (Run, Run) {
    let name = format!(
        "so_{}",
        envelope_core::ids::random_base62(12).to_ascii_lowercase()
    );
    let schema = Schema::create(url, &name).await;
    let bucket = name.replace('_', "-");
    moto.create_bucket(&bucket);
    let dir = tempfile::tempdir().unwrap();
    let db_url = schema.database_url();
    let key = create_account(BIN, &db_url, dir.path(), "Load");
    let blob_url = format!("s3://{bucket}/pdfs");
    let key_file = dir.path().join("idempotency.key");
    let env = moto.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let procs: Vec<ServerProcess> = (0..servers)
        .map(|i| {
            let data = dir.path().join(format!("s{i}"));
            let args = [
                "--database-url",
                &db_url,
                "--blob-url",
                &blob_url,
                "--data-dir",
                data.to_str().unwrap(),
                "--idempotency-key-file",
                key_file.to_str().unwrap(),
                "--max-connections-per-address",
                "1024",
            ];
            ServerProcess::start_with_env(BIN, &args, &env, &dir.path().join(format!("s{i}.log")))
        })
        .collect();
    let bases: Arc<Vec<String>> = Arc::new(procs.iter().map(|p| p.base.clone()).collect());
    let client: HttpClient = Client::builder(TokioExecutor::new()).build_http();
    let auth: Arc<str> = format!("Bearer {key}").into();
    let body = Bytes::from(
        serde_json::json!({
            "file_base64": base64::engine::general_purpose::STANDARD.encode(pdf::client_contract()),
            "file_name": "contract.pdf",
            "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
        })
        .to_string(),
    );
    let post = {
        let (bases, auth) = (bases.clone(), auth.clone());
        move |i: usize| {
            Request::post(format!("{}/v1/envelopes", bases[i % bases.len()]))
                .header("authorization", &*auth)
                .header("content-type", "application/json")
                .body(Full::new(body.clone()))
                .unwrap()
        }
    };
    let posts = drive(&client, counts.envelopes, counts.concurrency, 201, post).await;
    posts.print(&format!("{servers} server(s): POST /v1/envelopes"));
    let ids: Arc<Vec<String>> = Arc::new(posts.ids.clone());
    let get = {
        let (bases, auth) = (bases.clone(), auth.clone());
        move |i: usize| {
            let id = &ids[(i.wrapping_mul(7919)) % ids.len()];
            // Another server than the one that created it, whenever there are two.
            Request::get(format!(
                "{}/v1/envelopes/{id}",
                bases[(i + 1) % bases.len()]
            ))
            .header("authorization", &*auth)
            .body(Full::new(Bytes::new()))
            .unwrap()
        }
    };
    let gets = drive(&client, counts.gets, counts.concurrency, 200, get).await;
    gets.print(&format!("{servers} server(s): GET /v1/envelopes/{{id}}"));
    let objects = moto.keys(&bucket).len();
    println!("  objects in the bucket (first 1 000 listed): {objects}");
    drop(procs);
    let bytes = schema.bytes().await;
    println!(
        "  PostgreSQL: {:.1} MB in the schema (tables, indexes, TOAST; dead rows included) = {:.0} bytes per envelope",
        bytes as f64 / 1e6,
        bytes as f64 / counts.envelopes as f64
    );
    schema.drop_now().await;
    (posts, gets)
}

/// A schema of its own on the database, selected through the URL as an operator would.
struct Schema {
    url: String,
    name: String,
}

impl Schema {
    async fn create(url: &str, name: &str) -> Schema {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(url).await.expect("connect");
        let sql = format!("CREATE SCHEMA {name}");
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut conn)
            .await
            .unwrap();
        Schema {
            url: url.to_string(),
            name: name.to_string(),
        }
    }

    fn database_url(&self) -> String {
        let sep = if self.url.contains('?') { '&' } else { '?' };
        format!("{}{sep}options=-csearch_path%3D{}", self.url, self.name)
    }

    /// Bytes of every table of the schema with its indexes and TOAST.
    async fn bytes(&self) -> i64 {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&self.url)
            .await
            .expect("connect");
        sqlx::query_scalar(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c \
             JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'",
        )
        .bind(&self.name)
        .fetch_one(&mut conn)
        .await
        .unwrap()
    }

    async fn drop_now(self) {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&self.url)
            .await
            .expect("connect");
        let sql = format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name);
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut conn)
            .await
            .unwrap();
    }
}
