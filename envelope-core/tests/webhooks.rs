//! Webhook delivery through the core worker: outbox rows per subscribed endpoint, signatures that
//! `verify` accepts, the retry schedule, failure after the last retry, mode isolation, resend and
//! secret rotation.

use envelope_core::ids::{EnvelopeId, WebhookEndpointId};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use chrono::Duration;
use envelope_core::error::BoxError;
use envelope_core::service::{
    AuthContext, CreateEndpointParams, CreateEnvelopeParams, Params, UpdateEndpointParams, Upload,
    WorkerSettings,
};
use envelope_core::webhook::{RetrySchedule, WebhookRequest, WebhookResponse, WebhookSink, verify};
use envelope_core::{Clock, ManualClock, Settings, SigningService, Timestamp};
use serde_json::{Value, json};

const CONTRACT: &[u8] = include_bytes!("../../examples/contract.pdf");

/// A receiver that fails the first `failures` requests to each URL, then answers 200.
#[derive(Default)]
struct Receiver {
    failures: usize,
    seen: Mutex<Vec<WebhookRequest>>,
}

#[async_trait]
impl WebhookSink for Receiver {
    async fn deliver(&self, r: &WebhookRequest) -> Result<WebhookResponse, BoxError> {
        let mut seen = self.seen.lock().unwrap();
        seen.push(r.clone());
        let n = seen.iter().filter(|x| x.url == r.url).count();
        Ok(WebhookResponse {
            status: if n <= self.failures { 503 } else { 200 },
        })
    }
}

struct World {
    svc: SigningService,
    clock: Arc<ManualClock>,
    rx: Arc<Receiver>,
    test: AuthContext,
    live: AuthContext,
}

async fn world(failures: usize) -> World {
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
    ));
    let rx = Arc::new(Receiver {
        failures,
        ..Default::default()
    });
    let settings = Settings {
        allow_insecure_webhook_urls: true,
        ..Settings::default()
    };
    let svc = SigningService::builder()
        .clock(clock.clone())
        .webhook_sink(rx.clone())
        .settings(settings)
        .build();
    let acct = svc.admin().create_account("Hooks").await.unwrap();
    let test = svc.authenticate(&acct.test_key.secret).await.unwrap();
    let live = svc.authenticate(&acct.live_key.secret).await.unwrap();
    World {
        svc,
        clock,
        rx,
        test,
        live,
    }
}

fn worker_settings() -> WorkerSettings {
    WorkerSettings {
        schedule: "1s,2s,5s".parse::<RetrySchedule>().unwrap(),
        ..WorkerSettings::default()
    }
}

impl World {
    async fn endpoint(
        &self,
        ctx: &AuthContext,
        url: &str,
        events: Option<Value>,
    ) -> (WebhookEndpointId, String) {
        let mut body = json!({"url": url});
        if let Some(e) = events {
            body["events"] = e;
        }
        let ep = self
            .svc
            .create_webhook_endpoint(
                ctx,
                CreateEndpointParams::parse(Params::json(body).unwrap()).unwrap(),
            )
            .await
            .unwrap();
        (ep.id, ep.secret.unwrap())
    }

    async fn envelope(&self, ctx: &AuthContext) -> EnvelopeId {
        let body = json!({"signers": [{"name": "A", "email": "a@example.com"}, {"name": "B", "email": "b@example.com"}], "data": {"start_date": "x"}});
        let up = Upload {
            file_name: "c.pdf".into(),
            bytes: CONTRACT.to_vec().into(),
        };
        let p = CreateEnvelopeParams::parse(
            Params::json(body).unwrap(),
            Some(up),
            &self.svc.settings().limits,
        )
        .unwrap();
        self.svc.create_envelope(ctx, p).await.unwrap().id
    }

    fn received(&self, url: &str) -> Vec<(String, Value)> {
        self.rx
            .seen
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.url == url)
            .map(|r| {
                (
                    r.signature.clone(),
                    serde_json::from_slice(&r.body).unwrap(),
                )
            })
            .collect()
    }
}

#[tokio::test]
async fn every_event_type_reaches_subscribers_signed() {
    let w = world(0).await;
    let (_, all_secret) = w.endpoint(&w.test, "http://127.0.0.1:9/all", None).await;
    w.endpoint(
        &w.test,
        "http://127.0.0.1:9/completed",
        Some(json!(["envelope.completed"])),
    )
    .await;
    w.endpoint(&w.live, "http://127.0.0.1:9/live", None).await;
    let (off, _) = w.endpoint(&w.test, "http://127.0.0.1:9/off", None).await;
    let p =
        UpdateEndpointParams::parse(Params::json(json!({"status": "disabled"})).unwrap()).unwrap();
    w.svc
        .update_webhook_endpoint(&w.test, &off, p)
        .await
        .unwrap();

    let a = w.envelope(&w.test).await;
    w.svc.test_complete(&w.test, &a).await.unwrap();
    let b = w.envelope(&w.test).await;
    let link = w
        .svc
        .signing_url(&w.test, &b, Some("Client"))
        .await
        .unwrap();
    let token = link.url.rsplit('/').next().unwrap().to_string();
    let client = Default::default();
    w.svc
        .open_signing_link(&token, None, &client)
        .await
        .unwrap();
    w.svc
        .decline(&token, None, Some("no"), &client)
        .await
        .unwrap();
    let c = w.envelope(&w.test).await;
    w.svc.void_envelope(&w.test, &c, None).await.unwrap();

    let mut worker = w.svc.webhook_worker(worker_settings());
    assert!(worker.run_once().await.unwrap() > 0);
    let all = w.received("http://127.0.0.1:9/all");
    let mut types: Vec<String> = all
        .iter()
        .map(|(_, v)| v["type"].as_str().unwrap().to_string())
        .collect();
    types.sort();
    types.dedup();
    assert_eq!(
        types,
        [
            "envelope.completed",
            "envelope.created",
            "envelope.sent",
            "envelope.signer_completed",
            "envelope.signer_declined",
            "envelope.signer_viewed",
            "envelope.voided"
        ]
    );
    let now = w.clock.now().unix_seconds();
    for (sig, body) in &all {
        let raw = serde_json::to_vec(body).unwrap();
        verify(&raw, sig, &all_secret, 300, now).expect("every delivery verifies");
        assert_eq!(body["livemode"], false);
        assert!(
            body["data"]["object"]["id"]
                .as_str()
                .unwrap()
                .starts_with("env_")
        );
    }
    let completed = w.received("http://127.0.0.1:9/completed");
    assert_eq!(completed.len(), 1);
    assert_eq!(completed[0].1["type"], "envelope.completed");
    assert!(
        w.received("http://127.0.0.1:9/live").is_empty(),
        "test events never reach live endpoints"
    );
    assert!(
        w.received("http://127.0.0.1:9/off").is_empty(),
        "disabled endpoints receive nothing"
    );
    assert_eq!(
        worker.run_once().await.unwrap(),
        0,
        "delivered events are not sent again"
    );
}

#[tokio::test]
async fn failing_receiver_gets_n_plus_one_attempts_on_schedule() {
    let w = world(2).await;
    w.endpoint(
        &w.test,
        "http://127.0.0.1:9/flaky",
        Some(json!(["envelope.created"])),
    )
    .await;
    w.envelope(&w.test).await;
    let mut worker = w.svc.webhook_worker(worker_settings());
    assert_eq!(worker.run_once().await.unwrap(), 1);
    assert_eq!(
        worker.run_once().await.unwrap(),
        0,
        "the retry is not due yet"
    );
    w.clock.advance(Duration::seconds(1));
    assert_eq!(worker.run_once().await.unwrap(), 1);
    w.clock.advance(Duration::seconds(1));
    assert_eq!(
        worker.run_once().await.unwrap(),
        0,
        "second retry waits 2 s"
    );
    w.clock.advance(Duration::seconds(1));
    assert_eq!(worker.run_once().await.unwrap(), 1);
    assert_eq!(w.received("http://127.0.0.1:9/flaky").len(), 3);
    let events = w
        .svc
        .list_events(&w.test, &Default::default(), Some("envelope.created"))
        .await
        .unwrap();
    let d = w
        .svc
        .event_deliveries(&w.test, &events.data[0].id)
        .await
        .unwrap();
    let statuses: Vec<_> = d.data[0].attempts.iter().map(|a| a.status).collect();
    assert_eq!(statuses, [Some(503), Some(503), Some(200)]);
    assert_eq!(serde_json::to_value(d.data[0].status).unwrap(), "delivered");
}

#[tokio::test]
async fn dead_receiver_fails_after_the_last_retry_and_can_be_resent() {
    let w = world(usize::MAX).await;
    let (ep, _) = w
        .endpoint(
            &w.test,
            "http://127.0.0.1:9/dead",
            Some(json!(["envelope.created"])),
        )
        .await;
    w.envelope(&w.test).await;
    let mut worker = w.svc.webhook_worker(worker_settings());
    for _ in 0..10 {
        worker.run_once().await.unwrap();
        w.clock.advance(Duration::seconds(5));
    }
    assert_eq!(
        w.received("http://127.0.0.1:9/dead").len(),
        4,
        "first attempt plus three retries"
    );
    let events = w
        .svc
        .list_events(&w.test, &Default::default(), Some("envelope.created"))
        .await
        .unwrap();
    let id = &events.data[0].id;
    let d = w.svc.event_deliveries(&w.test, id).await.unwrap();
    assert_eq!(serde_json::to_value(d.data[0].status).unwrap(), "failed");
    assert!(d.data[0].next_attempt_at.is_none());
    let again = w.svc.resend_event(&w.test, id, Some(&ep)).await.unwrap();
    assert_eq!(again.data.len(), 2);
    assert_eq!(worker.run_once().await.unwrap(), 1);
    assert_eq!(
        w.svc
            .resend_event(&w.live, id, None)
            .await
            .unwrap_err()
            .code(),
        "resource_missing"
    );
}

#[tokio::test]
async fn rotated_secret_signs_with_both_for_a_day() {
    let w = world(0).await;
    let (ep, old) = w.endpoint(&w.test, "http://127.0.0.1:9/rot", None).await;
    let new = w.svc.admin().rotate_webhook_secret(&ep).await.unwrap();
    assert_ne!(new, old);
    assert_eq!(w.svc.admin().reveal_webhook_secret(&ep).await.unwrap(), new);
    w.envelope(&w.test).await;
    let mut worker = w.svc.webhook_worker(worker_settings());
    worker.run_once().await.unwrap();
    let now = w.clock.now().unix_seconds();
    for (sig, body) in w.received("http://127.0.0.1:9/rot") {
        let raw = serde_json::to_vec(&body).unwrap();
        verify(&raw, &sig, &new, 300, now).unwrap();
        verify(&raw, &sig, &old, 300, now).unwrap();
    }
    w.clock.advance(Duration::hours(25));
    w.envelope(&w.test).await;
    worker.run_once().await.unwrap();
    let (sig, body) = w.received("http://127.0.0.1:9/rot").pop().unwrap();
    let raw = serde_json::to_vec(&body).unwrap();
    let now = w.clock.now().unix_seconds();
    verify(&raw, &sig, &new, 300, now).unwrap();
    assert!(
        verify(&raw, &sig, &old, 300, now).is_err(),
        "the old secret stops after 24 hours"
    );
}
