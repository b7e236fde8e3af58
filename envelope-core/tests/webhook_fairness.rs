//! Webhook fairness in the worker: one account whose endpoints never answer in time holds at
//! most its per-account share of the worker's slots, so another account's delivery goes out at
//! its scheduled time while those attempts still hang.
//!
//! The slow receiver blocks on a gate the test holds closed, like an endpoint taking its full
//! 10 s; the clock is a `ManualClock` that never moves, so "at its scheduled time" is exact.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use envelope_core::error::BoxError;
use envelope_core::model::DeliveryStatus;
use envelope_core::service::{
    AuthContext, CreateEndpointParams, CreateEnvelopeParams, ListParams, Params, Upload,
    WorkerSettings,
};
use envelope_core::webhook::{WebhookRequest, WebhookResponse, WebhookSink};
use envelope_core::{ManualClock, Settings, SigningService, Timestamp};
use serde_json::json;
use tokio::sync::Semaphore;

const CONTRACT: &[u8] = include_bytes!("../../examples/contract.pdf");

/// Requests to `slow.example` wait for the gate; the rest answer 200 at once.
struct Receiver {
    gate: Semaphore,
    slow_now: AtomicUsize,
    slow_max: AtomicUsize,
    slow_seen: AtomicUsize,
}

#[async_trait]
impl WebhookSink for Receiver {
    async fn deliver(&self, r: &WebhookRequest) -> Result<WebhookResponse, BoxError> {
        if !r.url.contains("slow.example") {
            return Ok(WebhookResponse { status: 200 });
        }
        let now = self.slow_now.fetch_add(1, Ordering::SeqCst) + 1;
        self.slow_max.fetch_max(now, Ordering::SeqCst);
        self.slow_seen.fetch_add(1, Ordering::SeqCst);
        // Closed at the end of the test: the attempt then fails like a timeout.
        let _ = self.gate.acquire().await;
        self.slow_now.fetch_sub(1, Ordering::SeqCst);
        Err("no answer".into())
    }
}

async fn account(svc: &SigningService, name: &str) -> AuthContext {
    let acct = svc.admin().create_account(name).await.unwrap();
    svc.authenticate(&acct.test_key.secret).await.unwrap()
}

async fn endpoint(svc: &SigningService, ctx: &AuthContext, url: &str) {
    let p = CreateEndpointParams::parse(Params::json(json!({"url": url})).unwrap()).unwrap();
    svc.create_webhook_endpoint(ctx, p).await.unwrap();
}

async fn envelope(svc: &SigningService, ctx: &AuthContext) -> envelope_core::ids::EnvelopeId {
    let body = json!({"signers": [{"name": "A", "email": "a@example.com"}, {"name": "B", "email": "b@example.com"}], "data": {"start_date": "x"}});
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
    svc.create_envelope(ctx, p).await.unwrap().id
}

/// Waits (bounded, so a regression fails instead of hanging) until `done` holds.
async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    for _ in 0..3000 {
        if done().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never happened: {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_account_cannot_hold_every_slot() {
    let start = Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap();
    let clock = Arc::new(ManualClock::new(start));
    let rx = Arc::new(Receiver {
        gate: Semaphore::new(0),
        slow_now: AtomicUsize::new(0),
        slow_max: AtomicUsize::new(0),
        slow_seen: AtomicUsize::new(0),
    });
    let svc = SigningService::builder()
        .clock(clock.clone())
        .webhook_sink(rx.clone())
        .settings(Settings {
            allow_insecure_webhook_urls: true,
            ..Settings::default()
        })
        .build();
    // Without the account cap, the slow account's two endpoints (4 each) fill all 8 slots.
    let settings = WorkerSettings {
        max_in_flight: 8,
        per_endpoint: 4,
        per_account: 3,
        ..WorkerSettings::default()
    };

    let slow = account(&svc, "Slow").await;
    endpoint(&svc, &slow, "https://a.slow.example/hook").await;
    endpoint(&svc, &slow, "https://b.slow.example/hook").await;
    for _ in 0..10 {
        envelope(&svc, &slow).await;
    }
    let worker = svc.webhook_worker(settings);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(worker.run(async {
        let _ = stopped.await;
    }));
    until("the slow account fills its share", async || {
        rx.slow_now.load(Ordering::SeqCst) == 3
    })
    .await;

    let fast = account(&svc, "Fast").await;
    endpoint(&svc, &fast, "https://fast.example/hook").await;
    envelope(&svc, &fast).await;
    let events = svc
        .list_events(&fast, &ListParams::default(), None)
        .await
        .unwrap();
    let event = events.data[0].id.clone();
    until("the fast account's delivery", async || {
        let d = svc.event_deliveries(&fast, &event).await.unwrap();
        d.data
            .first()
            .is_some_and(|d| d.status == DeliveryStatus::Delivered)
    })
    .await;
    let d = svc.event_deliveries(&fast, &event).await.unwrap();
    assert_eq!(d.data[0].attempts.len(), 1);
    assert_eq!(d.data[0].attempts[0].at, start, "delivered on schedule");
    assert_eq!(
        rx.slow_now.load(Ordering::SeqCst),
        3,
        "the slow attempts still hang"
    );
    assert_eq!(
        rx.slow_max.load(Ordering::SeqCst),
        3,
        "never more than the account's cap"
    );
    assert_eq!(rx.slow_seen.load(Ordering::SeqCst), 3);

    rx.gate.close();
    stop.send(()).unwrap();
    running.await.unwrap();
}
