//! `/healthz` and `/readyz` through the real server, and what a failed fsync does: readiness
//! `503 store_failed` at once, then the serve loop stops with `Stopped::StoreFailed` (which the
//! binary turns into exit status 74). The fsync fails through the `WalSync` seam of a real
//! SQLite store's group commit.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use envelope_core::store::SqlStore;
use envelope_core::store::WalSync;
use envelope_core::{Settings, SigningService};
use envelope_server::App;
use envelope_server::health::{Stopped, run_until_store_fails};

use crate::common::{Options, Resp, TestServer};

async fn get(client: &reqwest::Client, url: &str) -> Resp {
    let res = client.get(url).send().await.expect("request failed");
    Resp {
        status: res.status().as_u16(),
        headers: res.headers().clone(),
        body: res.bytes().await.expect("body failed"),
    }
}

#[tokio::test]
async fn probes_answer_without_a_key() {
    let s = TestServer::start().await;
    let live = get(&s.client, &s.url("/healthz")).await;
    assert_eq!(live.ok(200), json!({ "status": "ok" }));
    assert_eq!(live.header("cache-control").as_deref(), Some("no-store"));
    let ready = get(&s.client, &s.url("/readyz")).await;
    assert_eq!(ready.ok(200), json!({ "status": "ready" }));
    assert_eq!(ready.header("cache-control").as_deref(), Some("no-store"));
    assert!(ready.header("service-request-id").is_some());

    let post = s.send(s.client.post(s.url("/readyz"))).await;
    post.error(405, "method_not_allowed");
    assert_eq!(post.header("allow").as_deref(), Some("GET"));
    // Only the exact paths are probes.
    s.send(s.client.get(s.url("/readyz/x")))
        .await
        .error(404, "route_not_found");
}

#[tokio::test]
async fn probes_are_not_rate_limited() {
    let s = TestServer::start_with(Options {
        settings: Some(Settings {
            rate_limit_per_minute: 2,
            ..Settings::default()
        }),
        ..Options::default()
    })
    .await;
    for _ in 0..6 {
        get(&s.client, &s.url("/healthz")).await.ok(200);
        get(&s.client, &s.url("/readyz")).await.ok(200);
    }
    // Any other keyless request from this address is over the limit by now.
    let mut limited = false;
    for _ in 0..3 {
        limited |= get(&s.client, &s.url("/nowhere")).await.status == 429;
    }
    assert!(limited, "keyless requests are limited per address");
}

/// An fsync that works until the test breaks it (the store's real fsync is replaced: this
/// test needs the failure, not durability).
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

/// A server on a SQLite store with a breakable fsync, run the way `serve` runs it.
struct FailingServer {
    base: String,
    svc: SigningService,
    sync: Arc<BreakableSync>,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<Stopped>>,
    _dir: tempfile::TempDir,
}

impl FailingServer {
    async fn start(exit_delay: Duration) -> FailingServer {
        let dir = tempfile::tempdir().unwrap();
        let sync = Arc::new(BreakableSync::default());
        let store = SqlStore::open_sqlite_with_wal_sync(dir.path().join("e.db"), sync.clone())
            .await
            .unwrap();
        let svc = SigningService::builder()
            .blobs(Arc::new(store.blobs()))
            .store(Arc::new(store))
            .build();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(run_until_store_fails(
            listener,
            App::new(svc.clone()),
            async {
                let _ = stopped.await;
            },
            exit_delay,
        ));
        FailingServer {
            base,
            svc,
            sync,
            stop: Some(stop),
            task,
            _dir: dir,
        }
    }

    async fn readyz(&self) -> Resp {
        get(&reqwest::Client::new(), &format!("{}/readyz", self.base)).await
    }

    /// Breaks the fsync and makes one write meet it.
    async fn fail_fsync(&self) {
        self.sync.broken.store(true, Ordering::SeqCst);
        let write = self.svc.admin().create_account("after the failure").await;
        assert!(write.is_err(), "a write whose fsync failed must fail");
    }
}

fn assert_store_failed(r: &Resp) {
    let body: Value = r.json();
    assert_eq!(r.status, 503, "{body}");
    assert_eq!(body["status"], "unready");
    assert_eq!(body["reason"], "store_failed");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("restart"), "{message}");
    // The driver's words stay in the log.
    assert!(!message.contains("injected EIO"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_fsync_is_unready_at_once_and_stops_the_server() {
    let mut s = FailingServer::start(Duration::from_secs(3600)).await;
    s.readyz().await.ok(200); // and cached as ready for a second
    s.fail_fsync().await;
    // At once: the cached `ready` does not hide it.
    assert_store_failed(&s.readyz().await);
    assert_store_failed(&s.readyz().await);
    // A signal during the delay ends it early, still reporting the failure.
    s.stop.take().unwrap().send(()).unwrap();
    let stopped = (&mut s.task).await.unwrap().unwrap();
    match stopped {
        Stopped::StoreFailed(why) => assert!(why.contains("injected EIO"), "{why}"),
        other => panic!("expected StoreFailed, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_failed_fsync_the_server_stops_by_itself() {
    let s = FailingServer::start(Duration::from_millis(200)).await;
    s.readyz().await.ok(200);
    s.fail_fsync().await;
    // Bounded so that a regression fails instead of hanging; the delay is 200 ms.
    let stopped = tokio::time::timeout(Duration::from_secs(60), s.task)
        .await
        .expect("the server stops after its exit delay")
        .unwrap()
        .unwrap();
    assert!(matches!(stopped, Stopped::StoreFailed(_)), "{stopped:?}");
    drop(s.stop);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_healthy_server_stops_on_its_signal() {
    let mut s = FailingServer::start(Duration::from_millis(200)).await;
    s.readyz().await.ok(200);
    s.stop.take().unwrap().send(()).unwrap();
    assert_eq!((&mut s.task).await.unwrap().unwrap(), Stopped::Shutdown);
}
