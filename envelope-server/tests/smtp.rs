//! Emails of the whole signing flow through a real SMTP server: the server runs with
//! `SmtpMailer` against Python's aiosmtpd on 127.0.0.1 (handler:
//! testkit/src/smtp_sink.py). The signing request's link opens the page, a
//! reminder after the interval carries a working link, signing through the page sends the
//! completed notice with the signed PDF.
//!
//! Needs `python3` with `aiosmtpd` (scripts/install-test-deps.sh); fails without it.

#[path = "common/mod.rs"]
mod common;

use std::sync::Arc;

use mail_parser::{Message, MessageParser, MimeHeaders};

use envelope_testkit::smtp::Sink;

use envelope_core::mail::SmtpMailer;
use envelope_core::{ManualClock, Timestamp};

use common::pdf::client_contract;
use common::signing::{form_token, html, post_form};
use common::{Options, TestServer, client_signer, envelope_body};

fn kind(m: &Message<'_>) -> String {
    m.header_raw("X-Envelope-Kind")
        .unwrap_or("")
        .trim()
        .to_string()
}

/// The signing link in an email's plain text, as a path on `s`.
fn link_in(s: &TestServer, m: &Message<'_>) -> String {
    let text = m.body_text(0).unwrap();
    let url = text
        .split_whitespace()
        .find(|w| w.contains("/sign/"))
        .unwrap_or_else(|| panic!("no signing link in:\n{text}"));
    url.strip_prefix(&s.base)
        .unwrap_or_else(|| panic!("{url} does not point at this server"))
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_reminder_and_completion_arrive_over_smtp() {
    let sink = Sink::start();
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-05-03T10:00:00.000Z").unwrap(),
    ));
    let mailer = SmtpMailer::builder(&sink.url())
        .unwrap()
        .clock(clock.clone())
        .build()
        .unwrap();
    let s = TestServer::start_with(Options {
        clock: Some(clock.clone()),
        mailer: Some(Arc::new(mailer)),
        ..Options::default()
    })
    .await;

    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            envelope_body(&client_contract(), client_signer()),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();

    // 1. The signing request, with a link that opens the page.
    let raw: Vec<Vec<u8>> = sink.received(1).await.into_iter().map(|r| r.eml).collect();
    let request = MessageParser::default().parse(&raw[0]).unwrap();
    assert_eq!(kind(&request), "signing_request");
    assert_eq!(
        request.to().unwrap().first().unwrap().address(),
        Some("ada@example.com")
    );
    let first = link_in(&s, &request);
    let page = s.send(s.client.get(s.url(&first))).await;
    assert_eq!(page.status, 200);
    assert!(html(&page).contains(r#"id="sign-form""#));

    // 2. A reminder once the interval has passed.
    clock.advance(chrono::Duration::minutes(61));
    let r = s
        .post_empty(&s.test_key, &format!("/v1/envelopes/{id}/remind"))
        .await
        .ok(200);
    assert_eq!(r["reminded"].as_array().unwrap().len(), 1, "{r}");
    let raw: Vec<Vec<u8>> = sink.received(2).await.into_iter().map(|r| r.eml).collect();
    let reminder = MessageParser::default().parse(&raw[1]).unwrap();
    assert_eq!(kind(&reminder), "reminder");
    let second = link_in(&s, &reminder);
    let page = html(&s.send(s.client.get(s.url(&second))).await);
    assert!(page.contains(r#"id="sign-form""#));

    // 3. Signing through the page sends the completed notice with the signed PDF.
    let csrf = form_token(&page, "sign-form");
    let done = post_form(
        &s,
        &second,
        &[
            ("csrf", csrf.as_str()),
            ("mode:Client_signature", "type"),
            ("typed:Client_signature", "Ada Lovelace"),
            ("consent", "yes"),
        ],
        Some(&s.base),
    )
    .await;
    assert!(
        html(&done).contains("Everyone has signed"),
        "{}",
        html(&done)
    );
    let raw: Vec<Vec<u8>> = sink.received(3).await.into_iter().map(|r| r.eml).collect();
    let completed = MessageParser::default().parse(&raw[2]).unwrap();
    assert_eq!(kind(&completed), "completed");
    assert_eq!(completed.attachment_count(), 1);
    assert!(
        completed
            .attachment(0)
            .unwrap()
            .contents()
            .starts_with(b"%PDF")
    );
    let env = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(env["status"], "completed");
    s.shutdown().await.unwrap();
}

/// Extensions E1 over real SMTP: a carbon-copy recipient of an embedded envelope (no signer is
/// emailed) receives the signed PDF and the audit trail when it completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_carbon_copy_receives_the_signed_pdf_and_the_audit_trail() {
    let sink = Sink::start();
    let mailer = SmtpMailer::builder(&sink.url()).unwrap().build().unwrap();
    let s = TestServer::start_with(Options {
        mailer: Some(Arc::new(mailer)),
        ..Options::default()
    })
    .await;
    let mut body = envelope_body(&client_contract(), client_signer());
    body["delivery"] = "embedded".into();
    body["cc"] = serde_json::json!([{"name": "Carla Copy", "email": "carla@example.org"}]);
    let env = s.post(&s.test_key, "/v1/envelopes", body).await.ok(201);
    let id = env["id"].as_str().unwrap();
    assert_eq!(env["cc"][0]["name"], "Carla Copy");
    assert!(env["cc"][0]["id"].as_str().unwrap().starts_with("rcp_"));
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);

    let got = sink.received(1).await;
    assert_eq!(got[0].rcpt_tos, ["carla@example.org"]);
    let m = MessageParser::default().parse(&got[0].eml).unwrap();
    assert_eq!(kind(&m), "completed");
    assert_eq!(m.attachment_count(), 2);
    let names: Vec<&str> = (0..2)
        .map(|i| m.attachment(i).unwrap().attachment_name().unwrap())
        .collect();
    assert_eq!(names, ["contract-signed.pdf", "contract-audit-trail.pdf"]);
    for i in 0..2 {
        assert!(m.attachment(i).unwrap().contents().starts_with(b"%PDF"));
    }
    // Only the copy: the embedded signer was not emailed.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(sink.received(1).await.len(), 1);
    s.shutdown().await.unwrap();
}
