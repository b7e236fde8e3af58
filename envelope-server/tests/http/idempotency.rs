//! Idempotency-Key on POST: replay, reuse with another request, errors are stored too.

use serde_json::json;

use crate::common::TestServer;

const EP: &str = "/v1/webhook_endpoints";

#[tokio::test]
async fn same_key_and_body_replays_the_first_response() {
    let s = TestServer::start().await;
    let req = |body: serde_json::Value, key: &str| {
        s.client
            .post(s.url(EP))
            .bearer_auth(&s.test_key)
            .header("idempotency-key", key)
            .json(&body)
    };
    let body = json!({"url": "https://example.com/a"});
    let first = s.send(req(body.clone(), "key-1")).await;
    let created = first.ok(201);
    assert_eq!(
        first.header("idempotent-replayed").as_deref(),
        Some("false")
    );

    let again = s.send(req(body.clone(), "key-1")).await;
    assert_eq!(again.ok(201), created, "the same object, secret included");
    assert_eq!(again.header("idempotent-replayed").as_deref(), Some("true"));
    assert_ne!(
        again.header("service-request-id"),
        first.header("service-request-id"),
        "a replay is still a request of its own"
    );
    let listed = s.get(&s.test_key, EP).await.ok(200);
    assert_eq!(listed["data"].as_array().unwrap().len(), 1, "created once");

    // The same key with another body is refused.
    let other = s
        .send(req(json!({"url": "https://example.com/b"}), "key-1"))
        .await;
    let b = other.error(422, "idempotency_key_reused");
    assert_eq!(b["type"], "idempotency_error");
    assert_eq!(
        other.header("idempotent-replayed").as_deref(),
        Some("false")
    );

    // ... and with another path.
    let r = s
        .send(
            s.client
                .post(s.url("/v1/envelopes/env_x/void"))
                .bearer_auth(&s.test_key)
                .header("idempotency-key", "key-1")
                .json(&body),
        )
        .await;
    r.error(422, "idempotency_key_reused");

    // Keys belong to a mode: the live key may use the same key for its own request.
    let r = s
        .send(
            s.client
                .post(s.url(EP))
                .bearer_auth(&s.live_key)
                .header("idempotency-key", "key-1")
                .json(&body),
        )
        .await;
    assert_eq!(r.ok(201)["livemode"], true);
}

#[tokio::test]
async fn client_errors_are_stored_and_replayed() {
    let s = TestServer::start().await;
    let send = || {
        s.client
            .post(s.url(EP))
            .bearer_auth(&s.test_key)
            .header("idempotency-key", "bad-1")
            .json(&json!({"url": "ftp://example.com"}))
    };
    let first = s.send(send()).await;
    let b1 = first.error(400, "url_invalid");
    let second = s.send(send()).await;
    assert_eq!(second.status, 400);
    assert_eq!(
        second.header("idempotent-replayed").as_deref(),
        Some("true")
    );
    assert_eq!(
        second.json(),
        b1,
        "the stored body, with the first request's ID"
    );
}

#[tokio::test]
async fn invalid_keys_and_other_methods() {
    let s = TestServer::start().await;
    let long = "k".repeat(256);
    let r = s
        .send(
            s.client
                .post(s.url(EP))
                .bearer_auth(&s.test_key)
                .header("idempotency-key", long)
                .json(&json!({"url": "https://example.com/a"})),
        )
        .await;
    let b = r.error(400, "parameter_invalid");
    assert_eq!(b["param"], "Idempotency-Key");
    // Only POST takes the header; a GET ignores it.
    let r = s
        .send(
            s.client
                .get(s.url(EP))
                .bearer_auth(&s.test_key)
                .header("idempotency-key", "k"),
        )
        .await;
    r.ok(200);
    assert_eq!(r.header("idempotent-replayed").as_deref(), Some("false"));
}

#[tokio::test]
async fn a_key_still_in_flight_is_409() {
    let s = TestServer::start().await;
    let body = json!({"url": "https://example.com/a"});
    let raw = serde_json::to_vec(&body).unwrap();
    // Another request holds the key: claim it the way the server does, and never finish.
    let ctx = s.svc.authenticate(&s.test_key).await.unwrap();
    let fp = envelope_core::service::idempotency_fingerprint("POST", EP, &raw);
    s.svc.idempotency_begin(&ctx, "busy", &fp).await.unwrap();
    let r = s
        .send(
            s.client
                .post(s.url(EP))
                .bearer_auth(&s.test_key)
                .header("idempotency-key", "busy")
                .header("content-type", "application/json")
                .body(raw),
        )
        .await;
    let b = r.error(409, "idempotency_key_in_use");
    assert_eq!(b["type"], "idempotency_error");
}
