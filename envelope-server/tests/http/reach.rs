//! How each signer was reached is evidence (extensions E8), through the real server: every
//! signing link issued is in the audit trail (emailed: to whom, when; through the API: which
//! key, from which address), and a signature made through an API-issued link on an email
//! envelope is marked as such. Read from the real audit trail PDF with `pdftotext`.

use std::sync::Arc;

use serde_json::json;

use envelope_core::MemoryMailer;
use envelope_core::mail::EmailKind;

use crate::common::signing::{link, sign_as_client, sign_as_provider, signing_envelope};
use crate::common::{Options, TestServer};

/// The audit trail's text, one space between words (its table wraps long cells).
pub(crate) async fn audit_text(s: &TestServer, id: &str) -> String {
    let file = s
        .get(
            &s.test_key,
            &format!("/v1/envelopes/{id}/files/audit_trail"),
        )
        .await
        .ok(200);
    let pdf = s
        .client
        .get(file["url"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path().join("audit.pdf");
    std::fs::write(&at, &pdf).unwrap();
    let out = std::process::Command::new("pdftotext")
        .arg("-raw")
        .arg(&at)
        .arg("-")
        .output()
        .expect("pdftotext (scripts/install-test-deps.sh installs it)");
    assert!(out.status.success(), "pdftotext failed");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The path of the signing link in the newest signing request emailed to `to`.
fn emailed_link(mail: &MemoryMailer, s: &TestServer, to: &str) -> String {
    let sent = mail.sent();
    let email = sent
        .iter()
        .rev()
        .find(|e| e.kind == EmailKind::SigningRequest && e.to.email == to)
        .unwrap_or_else(|| panic!("no signing request to {to}"));
    let at = email.text.find(&format!("{}/sign/", s.base)).unwrap();
    let url: String = email.text[at..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    url.strip_prefix(&s.base).unwrap().to_string()
}

#[tokio::test]
async fn the_audit_trail_lists_every_link_and_marks_an_api_link_on_an_email_envelope() {
    let mail = Arc::new(MemoryMailer::new());
    let s = TestServer::start_with(Options {
        mailer: Some(mail.clone()),
        ..Options::default()
    })
    .await;
    let key = s.svc.authenticate(&s.test_key).await.unwrap().key.id;
    let env = signing_envelope(&s, json!({"delivery": "email"})).await;
    let id = env["id"].as_str().unwrap();
    s.svc.settle_emails().await;

    // Ada: the sender fetches a link through the API and signs through it, in Ada's place.
    let api_link = link(&s, id, "Client").await;
    sign_as_client(&s, &api_link).await;
    // Paul signs through the link emailed to him.
    let paul = emailed_link(&mail, &s, "paul@example.com");
    sign_as_provider(&s, &paul).await;
    let done = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(done["status"], "completed");
    // Nothing of this is on the wire signer.
    assert!(done["signers"][0].get("links").is_none(), "{done}");

    let text = audit_text(&s, id).await;
    // The event table: each link on its own row (a cell's first line reads whole; the rest of
    // a long cell may wrap between other columns).
    // The events table's time column wraps its `UTC` into the middle of a long detail cell.
    let unwrapped = text.replace(" UTC ", " ");
    for needle in [
        "To ada@example.com (role Client)",
        "To paul@example.com (role",
        &format!("Key {key},"),
        "from IP 127.0.0.1",
        "Through a link the API issued",
        // Each signer's entry, rows that never wrap.
        "Signing links 1 emailed, 1 issued through the API",
        "Acted through a link issued by the API (the envelope's delivery is email)",
        "Signing links 1 emailed, 0 issued through the API",
        "Acted through the emailed link",
    ] {
        assert!(unwrapped.contains(needle), "{needle:?} missing:\n{text}");
    }
    assert_eq!(text.matches("Link emailed").count(), 2, "{text}");
    assert_eq!(text.matches("Link via API").count(), 1, "{text}");
    // Paul's signature came through his emailed link: only Ada's is marked.
    assert_eq!(
        text.matches("Through a link the API issued").count(),
        1,
        "{text}"
    );
}

/// A sender minting links in a loop cannot grow the record or the trail without bound: the
/// first 20 are listed, the rest counted.
#[tokio::test]
async fn links_past_the_first_twenty_are_counted_not_listed() {
    let s = TestServer::start().await;
    let env = signing_envelope(&s, json!({})).await;
    let id = env["id"].as_str().unwrap();
    for _ in 0..23 {
        link(&s, id, "Provider").await;
    }
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    let text = audit_text(&s, id).await;
    assert_eq!(text.matches("Link via API").count(), 20, "{text}");
    assert!(
        text.contains("More links") && text.contains("3 more via the API, 0 more emailed"),
        "{text}"
    );
    assert!(
        text.contains("Signing links 0 emailed, 23 issued through the API"),
        "{text}"
    );
    // The test helper used no link, and the trail says so.
    assert_eq!(
        text.matches("Acted through the test helper (no signing link)")
            .count(),
        2,
        "{text}"
    );
}
