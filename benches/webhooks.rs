//! Fan-out benchmark: 10,000 events delivered to a local receiver by the real worker and HTTP
//! sink over a SQLite store, while API reads keep being answered.
//!
//! ```text
//! cargo bench -p envelope-server --bench webhooks            # 10,000 events
//! EVENTS=2000 cargo bench -p envelope-server --bench webhooks
//! ```
//!
//! It prints the delivery rate and the latency of `GET /v1/envelopes/{id}` sampled during the
//! fan-out. Not a test: nothing here asserts a time.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use envelope_core::service::{CreateEnvelopeParams, Params, Upload, WorkerSettings};
use envelope_core::store::SqlStore;
use envelope_core::webhook::HttpSink;
use envelope_core::webhook::UrlRules;
use envelope_core::{Settings, SigningService};
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::json;

const CONTRACT: &[u8] = include_bytes!("../examples/contract.pdf");

async fn receiver(count: Arc<AtomicUsize>) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let count = count.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let count = count.clone();
                    async move {
                        let _ = req.into_body().collect().await;
                        count.fetch_add(1, Ordering::Relaxed);
                        Ok::<_, Infallible>(hyper::Response::new(Full::new(Bytes::from_static(
                            b"ok",
                        ))))
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    addr
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main]
async fn main() {
    let events: usize = std::env::var("EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let store = SqlStore::open_sqlite(dir.path().join("bench.sqlite3"))
        .await
        .unwrap();
    let blobs = store.blobs();
    let rules = UrlRules {
        allow_insecure: true,
    };
    let settings = Settings {
        allow_insecure_webhook_urls: true,
        rate_limit_per_minute: u32::MAX,
        ..Settings::default()
    };
    let svc = SigningService::builder()
        .store(Arc::new(store))
        .blobs(Arc::new(blobs))
        .webhook_sink(Arc::new(HttpSink::new(rules, "Envelope")))
        .settings(settings)
        .build();
    let acct = svc.admin().create_account("Bench").await.unwrap();
    let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
    let delivered = Arc::new(AtomicUsize::new(0));
    let addr = receiver(delivered.clone()).await;
    let ep = envelope_core::service::CreateEndpointParams::parse(
        Params::json(json!({"url": format!("http://{addr}/hook")})).unwrap(),
    )
    .unwrap();
    svc.create_webhook_endpoint(&ctx, ep).await.unwrap();

    // Each envelope makes two events (created, sent).
    let t = Instant::now();
    let mut ids = Vec::new();
    for _ in 0..events / 2 {
        let body = json!({"signers": [{"name": "A", "email": "a@example.com"}, {"name": "B", "email": "b@example.com"}],
                          "data": {"start_date": "x"}, "delivery": "embedded"});
        let up = Upload {
            file_name: "c.pdf".into(),
            bytes: CONTRACT.to_vec().into(),
        };
        let p = CreateEnvelopeParams::parse(
            Params::json(body).unwrap(),
            Some(up),
            &svc.settings().limits,
        )
        .unwrap();
        ids.push(svc.create_envelope(&ctx, p).await.unwrap().id);
    }
    println!(
        "setup: {} envelopes, {} events in {:.1?}",
        ids.len(),
        ids.len() * 2,
        t.elapsed()
    );

    let worker = svc.webhook_worker(WorkerSettings::default());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let start = Instant::now();
    let handle = tokio::spawn(worker.run(async move {
        let _ = stopped.await;
    }));
    // API reads during the fan-out.
    let mut latencies = Vec::new();
    let target = ids.len() * 2;
    let mut i = 0;
    while delivered.load(Ordering::Relaxed) < target && start.elapsed() < Duration::from_secs(300) {
        let t = Instant::now();
        svc.get_envelope(&ctx, &ids[i % ids.len()]).await.unwrap();
        latencies.push(t.elapsed());
        i += 1;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let took = start.elapsed();
    let _ = stop.send(());
    let _ = handle.await;
    latencies.sort();
    let n = delivered.load(Ordering::Relaxed);
    println!(
        "delivered {n} of {target} in {took:.2?}: {:.0} deliveries/s",
        n as f64 / took.as_secs_f64()
    );
    println!(
        "GET envelope during fan-out ({} samples): p50 {:.2?}, p99 {:.2?}, max {:.2?}",
        latencies.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.last().copied().unwrap_or_default()
    );
}
