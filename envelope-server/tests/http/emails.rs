//! The daily email budget over HTTP: with a test-mode budget of one email a day, the second
//! envelope's signing request is not sent; the signer's `last_email` ends `failed` with
//! `failure_reason: "email_limit"`, and `envelope.email_failed` carries the same. Live mode has
//! no budget unless the account is given one.

use envelope_core::service::EmailDailyLimits;
use envelope_core::{Mode, Settings};
use serde_json::Value;

use crate::common::pdf::client_contract;
use crate::common::{Options, TestServer, client_signer, envelope_body};

/// Creates an envelope with `key`, waits for its email to be sent or failed, and returns it.
async fn create(s: &TestServer, key: &str) -> Value {
    let env = s
        .post(
            key,
            "/v1/envelopes",
            envelope_body(&client_contract(), client_signer()),
        )
        .await
        .ok(201);
    s.svc.settle_emails().await;
    let id = env["id"].as_str().unwrap();
    s.get(key, &format!("/v1/envelopes/{id}")).await.ok(200)
}

#[tokio::test]
async fn an_email_past_the_daily_budget_ends_failed_with_email_limit() {
    let mut settings = Settings::default();
    settings.email.daily_limit = EmailDailyLimits {
        test: Some(1),
        live: None,
    };
    let s = TestServer::start_with(Options {
        settings: Some(settings),
        ..Options::default()
    })
    .await;

    let first = create(&s, &s.test_key).await;
    let sent = &first["signers"][0]["last_email"];
    assert_eq!(sent["status"], "sent", "{sent}");
    assert!(
        sent.get("failure_reason").is_none(),
        "absent unless failed: {sent}"
    );

    let second = create(&s, &s.test_key).await;
    let over = &second["signers"][0]["last_email"];
    assert_eq!(over["status"], "failed", "{over}");
    assert_eq!(over["failure_reason"], "email_limit");
    assert_eq!(
        over["last_error"],
        "the account's daily email limit was reached"
    );
    assert_eq!(over["attempts"], 0);
    assert!(over["finished_at"].is_string());

    let events = s
        .get(&s.test_key, "/v1/events?type=envelope.email_failed")
        .await
        .ok(200);
    let events = events["data"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    let data = &events[0]["data"];
    assert_eq!(data["object"]["id"], second["id"]);
    assert_eq!(data["email"]["id"], over["id"]);
    assert_eq!(data["email"]["failure_reason"], "email_limit");
    assert_eq!(data["signer"]["id"], second["signers"][0]["id"]);

    // Live mode has no budget by default.
    for _ in 0..2 {
        let live = create(&s, &s.live_key).await;
        assert_eq!(live["signers"][0]["last_email"]["status"], "sent");
    }
    // Unless the account is given one (the admin command's call).
    s.svc
        .admin()
        .set_email_daily_limit(&s.account, Mode::Live, Some(2))
        .await
        .unwrap();
    let live = create(&s, &s.live_key).await;
    let over = &live["signers"][0]["last_email"];
    assert_eq!(
        (&over["status"], &over["failure_reason"]),
        (&"failed".into(), &"email_limit".into()),
        "{over}"
    );
}
