//! Load benchmark of the HTTP API on the SQLite store (a `harness = false` bench of
//! envelope-server). Figures and how to read them: docs/PERFORMANCE.md, "Storage and API".
//!
//! ```sh
//! cargo bench -p envelope-server --bench load                     # full run (minutes)
//! LOAD_ENVELOPES=20000 cargo bench -p envelope-server --bench load  # a shorter one
//! ```
//!
//! The server runs in this process, exactly as `serve` assembles it (`open_store` on a fresh
//! `--data-dir`, SQLite with its group commit, `App`, `run` on 127.0.0.1), except for the
//! mailer, which discards messages (the `.eml` file mailer would fsync one file per email and
//! measure the mail directory, not the store) and a rate limit high enough not to interfere.
//! The client is hyper's, with `LOAD_CONCURRENCY` requests in flight (default 16), in the same
//! process: client and server share the machine's cores, as they would with `wrk`.
//!
//! Phases: POST /v1/envelopes (a one-page tagged PDF, sent to one signer) up to 1 000 stored
//! envelopes; list-page latency at 1 000; POSTs up to `LOAD_ENVELOPES` (default 100 000); list-page
//! latency there; GET /v1/envelopes/{id} against bare hyper serving the same bytes, the two
//! alternating in `LOAD_GET_ROUNDS` rounds (default 5).
//!
//! Without `--bench` (`cargo test --benches`, `cargo test --all-targets`) it runs a smoke pass
//! of a few requests per phase, so that it stays compiled and working without a long load.
//!
//! `LOAD_KEEP_DATA=1` keeps the data dir at the end, for `scripts/storage-breakdown.py` (where
//! each byte of an envelope goes: docs/STORAGE.md).
//!
//! `LOAD_SCALE_OUT=1` measures something else: one and two real `envelope-server` processes on
//! PostgreSQL with PDFs in S3 (`load_scale_out.rs`; needs `ENVELOPE_TEST_DATABASE_URL` and
//! `moto_server`):
//!
//! ```sh
//! ENVELOPE_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test LOAD_SCALE_OUT=1 \
//!   cargo bench -p envelope-server --bench load
//! ```

mod load_scale_out;

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use base64::Engine;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;

use envelope_core::error::BoxError;
use envelope_core::mail::{Email, Mailer};
use envelope_core::store::CommitStats;
use envelope_core::{BlobStore, Settings, SigningService};
use envelope_server::store::{StoreOptions, open_store};
use envelope_server::{App, run};
use envelope_testkit::textpdf as pdf;

type HttpClient = Client<HttpConnector, Full<Bytes>>;

/// The server binary's allocator (`envelope-server/src/main.rs`), so that the server measured
/// here allocates as the one deployed does.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

struct Config {
    envelopes: usize,
    first_mark: usize,
    concurrency: usize,
    list_samples: usize,
    get_requests: usize,
    /// GET and bare hyper alternate in this many rounds (`LOAD_GET_ROUNDS`).
    get_rounds: usize,
}

impl Config {
    fn from_env(bench: bool) -> Config {
        let var = |name: &str, default: usize| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        if bench {
            let envelopes = var("LOAD_ENVELOPES", 100_000).max(1);
            Config {
                envelopes,
                // At most every envelope: a shorter run has one POST phase.
                first_mark: envelopes.min(1_000),
                concurrency: var("LOAD_CONCURRENCY", 16),
                list_samples: 500,
                get_requests: var("LOAD_GET_REQUESTS", 50_000),
                get_rounds: var("LOAD_GET_ROUNDS", 5),
            }
        } else {
            Config {
                envelopes: 40,
                first_mark: 20,
                concurrency: 4,
                list_samples: 5,
                get_requests: 40,
                get_rounds: 2,
            }
        }
    }
}

/// Renders emails (that cost is measured) and drops them.
#[derive(Debug)]
struct DiscardMailer;

#[async_trait]
impl Mailer for DiscardMailer {
    async fn send(&self, _email: &Email) -> Result<(), BoxError> {
        Ok(())
    }
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let cfg = Config::from_env(bench);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    if std::env::var("LOAD_SCALE_OUT").is_ok_and(|v| v == "1") {
        rt.block_on(load_scale_out::run(bench));
        return;
    }
    rt.block_on(bench_all(cfg));
}

async fn bench_all(cfg: Config) {
    let dir = tempfile::tempdir().unwrap();
    let opened = open_store(&StoreOptions {
        data_dir: dir.path().to_path_buf(),
        database_url: None,
        blob_url: None,
        idempotency_key_file: None,
    })
    .await
    .unwrap();
    let before = opened.sql.commit_stats();
    commit_floor(opened.blobs.clone(), cfg.concurrency, cfg.first_mark).await;
    if let (Some(b), Some(n)) = (before, opened.sql.commit_stats()) {
        println!(
            "  group commit: {} commits, {} fsyncs",
            n.commits - b.commits,
            n.syncs - b.syncs
        );
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    // LOAD_STORE=memory: the in-memory store instead, to show what the HTTP layer costs alone.
    let memory = std::env::var("LOAD_STORE").is_ok_and(|s| s == "memory");
    let (store, blobs): (Arc<dyn envelope_core::Store>, Arc<dyn BlobStore>) = if memory {
        (
            Arc::new(envelope_core::MemoryStore::new()),
            Arc::new(envelope_core::MemoryBlobStore::new()),
        )
    } else {
        (opened.store.clone(), opened.blobs.clone())
    };
    let svc = SigningService::builder()
        .store(store)
        .blobs(blobs)
        .mailer(Arc::new(DiscardMailer))
        .settings(Settings {
            public_url: base.clone(),
            rate_limit_per_minute: u32::MAX,
            // The load sends far more test emails than a day's default budget, and measures
            // their rendering.
            email: envelope_core::service::EmailSettings {
                daily_limit: envelope_core::service::EmailDailyLimits::UNLIMITED,
                ..Default::default()
            },
            ..Settings::default()
        })
        .build();
    let key = svc
        .admin()
        .create_account("Load")
        .await
        .unwrap()
        .test_key
        .secret;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let service = svc.clone();
    let server = tokio::spawn(run(listener, App::new(svc), async {
        let _ = stopped.await;
    }));
    let client: HttpClient = Client::builder(TokioExecutor::new()).build_http();
    let auth: Arc<str> = format!("Bearer {key}").into();

    let pdf = pdf::client_contract();
    let body = Bytes::from(
        serde_json::json!({
            "file_base64": base64::engine::general_purpose::STANDARD.encode(&pdf),
            "file_name": "contract.pdf",
            "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
        })
        .to_string(),
    );
    println!(
        "load: {} envelopes, {} in flight, PDF {} bytes, JSON body {} bytes, SQLite in {}",
        cfg.envelopes,
        cfg.concurrency,
        pdf.len(),
        body.len(),
        dir.path().display()
    );

    let post = {
        let (base, auth, body) = (base.clone(), auth.clone(), body.clone());
        move |_: usize| {
            Request::post(format!("{base}/v1/envelopes"))
                .header("authorization", &*auth)
                .header("content-type", "application/json")
                .body(Full::new(body.clone()))
                .unwrap()
        }
    };
    let mut ids = Vec::with_capacity(cfg.envelopes);
    let commits = opened.sql.clone();
    let commits_per_sync = move |before: Option<CommitStats>| {
        let now = commits.commit_stats();
        if let (Some(b), Some(n)) = (before, now) {
            let (c, s) = (n.commits - b.commits, n.syncs - b.syncs);
            println!(
                "  group commit: {c} commits, {s} fsyncs ({:.1} commits per fsync)",
                c as f64 / s.max(1) as f64
            );
        }
        now
    };
    let mark = commits_per_sync(None);
    let r = drive(&client, cfg.first_mark, cfg.concurrency, 201, post.clone()).await;
    r.print("POST /v1/envelopes (0 -> first mark)");
    let mark = commits_per_sync(mark);
    ids.extend(r.ids);

    list_latency(&client, &base, &auth, &ids, cfg.list_samples).await;

    if cfg.envelopes > cfg.first_mark {
        let r = drive(
            &client,
            cfg.envelopes - cfg.first_mark,
            cfg.concurrency,
            201,
            post,
        )
        .await;
        r.print("POST /v1/envelopes (first mark -> all)");
        commits_per_sync(mark);
        ids.extend(r.ids);

        list_latency(&client, &base, &auth, &ids, cfg.list_samples).await;
    }

    // The creates' emails are sent after their answers: their outcomes are written first, so
    // that no write of the POST phase runs into the reads.
    service.settle_emails().await;

    // GET one envelope, spread over every stored one, against bare hyper serving those bytes.
    // The two alternate in rounds, so that a slower spell of the shared machine falls on both
    // rather than on one of them; each round's ratio is printed, then the ratio of the totals
    // and the median round. GET number `i`, counted across the rounds, reads envelope
    // `7919 i mod n` (7 919 is prime): with at most as many GETs as envelopes, none is read twice.
    let ids: Arc<Vec<String>> = Arc::new(ids);
    let get = {
        let (base, auth, ids) = (base.clone(), auth.clone(), ids.clone());
        move |i: usize| {
            let id = &ids[(i.wrapping_mul(7919)) % ids.len()];
            Request::get(format!("{base}/v1/envelopes/{id}"))
                .header("authorization", &*auth)
                .body(Full::new(Bytes::new()))
                .unwrap()
        }
    };
    let sample = fetch(&client, get(0)).await.1;
    let bare = bare_hyper(sample.clone()).await;
    let bare_get = move |_| {
        Request::get(format!("{bare}/"))
            .body(Full::new(Bytes::new()))
            .unwrap()
    };
    let rounds = cfg.get_rounds.max(1);
    let per_round = (cfg.get_requests / rounds).max(1);
    let (mut envelope_runs, mut bare_runs, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let offset = round * per_round;
        let get = get.clone();
        let e = drive(&client, per_round, cfg.concurrency, 200, move |i| {
            get(offset + i)
        })
        .await;
        let b = drive(&client, per_round, cfg.concurrency, 200, bare_get.clone()).await;
        ratios.push(e.per_second() / b.per_second());
        envelope_runs.push(e);
        bare_runs.push(b);
    }
    let (e, b) = (Run::merge(envelope_runs), Run::merge(bare_runs));
    e.print(&format!("GET /v1/envelopes/{{id}} ({rounds} rounds)"));
    b.print(&format!(
        "bare hyper, fixed {}-byte body ({rounds} rounds)",
        sample.len()
    ));
    let each: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
    ratios.sort_by(f64::total_cmp);
    println!(
        "GET envelope / bare hyper throughput: {:.3} (totals), {:.3} (median round); rounds: {}",
        e.per_second() / b.per_second(),
        ratios[ratios.len() / 2],
        each.join(", ")
    );

    let _ = stop.send(());
    server.await.unwrap().unwrap();
    let size: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!("database files: {:.1} MB", size as f64 / 1e6);
    // LOAD_KEEP_DATA=1: keep the data dir for scripts/storage-breakdown.py (bytes per envelope).
    if std::env::var("LOAD_KEEP_DATA").is_ok_and(|v| v == "1") {
        opened.sql.close().await;
        println!("data kept in {}", dir.keep().display());
    }
}

/// The floor under every write: one-statement commits (a 1 KB blob each) through the same
/// store, `concurrency` at a time. SQLite serializes writers; the group commit lets the commits
/// made during one fsync share the next, so this is well above 1 / fsync time.
async fn commit_floor(blobs: Arc<dyn BlobStore>, concurrency: usize, total: usize) {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..concurrency)
        .map(|_| {
            let (blobs, next) = (blobs.clone(), next.clone());
            tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total {
                        return;
                    }
                    let bytes = Bytes::from(vec![b'x'; 1024]);
                    let now = envelope_core::Clock::now(&envelope_core::SystemClock);
                    blobs.put(&format!("floor-{i}"), bytes, now).await.unwrap();
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "SQLite commit floor (1 KB blob put, {concurrency} at a time): {total} commits in {secs:.2} s = {:.0}/s",
        total as f64 / secs
    );
}

/// Sequential latency of the first page and of a page in the middle (keyset cursor).
async fn list_latency(client: &HttpClient, base: &str, auth: &str, ids: &[String], n: usize) {
    let middle = &ids[ids.len() / 2];
    for (name, query) in [
        ("first page", "limit=100".to_string()),
        ("middle page", format!("limit=100&starting_after={middle}")),
    ] {
        let mut lat = Vec::with_capacity(n);
        for _ in 0..n {
            let req = Request::get(format!("{base}/v1/envelopes?{query}"))
                .header("authorization", auth)
                .body(Full::new(Bytes::new()))
                .unwrap();
            let t = Instant::now();
            let (status, body) = fetch(client, req).await;
            lat.push(t.elapsed());
            assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        }
        lat.sort();
        println!(
            "GET /v1/envelopes?limit=100, {name}, {} stored: p50 {:.2} ms, p99 {:.2} ms ({n} requests, one at a time)",
            ids.len(),
            ms(lat[lat.len() / 2]),
            ms(lat[lat.len() * 99 / 100]),
        );
    }
}

async fn fetch(client: &HttpClient, req: Request<Full<Bytes>>) -> (u16, Bytes) {
    let res = client.request(req).await.expect("request");
    let status = res.status().as_u16();
    let body = res.into_body().collect().await.expect("body").to_bytes();
    (status, body)
}

struct Run {
    elapsed: Duration,
    latencies: Vec<Duration>,
    /// IDs of created objects (201 answers).
    ids: Vec<String>,
}

impl Run {
    /// One run of all the requests of `runs`, as if it had been one: their times add up.
    fn merge(runs: Vec<Run>) -> Run {
        let mut all = Run {
            elapsed: Duration::ZERO,
            latencies: Vec::new(),
            ids: Vec::new(),
        };
        for r in runs {
            all.elapsed += r.elapsed;
            all.latencies.extend(r.latencies);
            all.ids.extend(r.ids);
        }
        all
    }

    fn per_second(&self) -> f64 {
        self.latencies.len() as f64 / self.elapsed.as_secs_f64()
    }

    fn print(&self, name: &str) {
        let mut l = self.latencies.clone();
        l.sort();
        println!(
            "{name}: {} requests in {:.2} s = {:.0}/s; latency p50 {:.2} ms, p99 {:.2} ms",
            l.len(),
            self.elapsed.as_secs_f64(),
            self.per_second(),
            ms(l[l.len() / 2]),
            ms(l[l.len() * 99 / 100]),
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Sends `total` requests made by `make(i)`, `concurrency` at a time; each must answer `expect`.
async fn drive<F>(
    client: &HttpClient,
    total: usize,
    concurrency: usize,
    expect: u16,
    make: F,
) -> Run
where
    F: Fn(usize) -> Request<Full<Bytes>> + Clone + Send + Sync + 'static,
{
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let (client, next, make) = (client.clone(), next.clone(), make.clone());
        tasks.push(tokio::spawn(async move {
            let (mut lat, mut ids) = (Vec::new(), Vec::new());
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    return (lat, ids);
                }
                let t = Instant::now();
                let (status, body) = fetch(&client, make(i)).await;
                lat.push(t.elapsed());
                assert_eq!(status, expect, "{}", String::from_utf8_lossy(&body));
                if status == 201 {
                    #[derive(serde::Deserialize)]
                    struct Created {
                        id: String,
                    }
                    ids.push(serde_json::from_slice::<Created>(&body).unwrap().id);
                }
            }
        }));
    }
    let mut run = Run {
        elapsed: Duration::ZERO,
        latencies: Vec::with_capacity(total),
        ids: Vec::with_capacity(total),
    };
    for t in tasks {
        let (lat, ids) = t.await.unwrap();
        run.latencies.extend(lat);
        run.ids.extend(ids);
    }
    run.elapsed = started.elapsed();
    run
}

/// A bare hyper server on 127.0.0.1 answering every request with `body`: the floor that the
/// GET of an envelope is compared with.
async fn bare_hyper(body: Bytes) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let body = body.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |_req| {
                    let body = body.clone();
                    async move {
                        Ok::<_, Infallible>(
                            Response::builder()
                                .header("content-type", "application/json")
                                .body(Full::new(body))
                                .unwrap(),
                        )
                    }
                });
                let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    base
}
