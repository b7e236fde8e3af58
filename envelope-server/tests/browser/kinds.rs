//! Approvers, viewers and in-person signing in Chromium (extensions E13): the host of an
//! in-person signing hands the device over and the signer signs; an approver approves; a
//! viewer's opening shows the document and finishes their part. Writes
//! `signing-in-person-handover.png`, `signing-approver.png` and `signing-viewer.png`.

use std::sync::Arc;

use serde_json::json;

use envelope_core::{ManualClock, Timestamp};

use super::common::signing::{link, signing_envelope};
use super::common::{Options, TestServer};
use super::webdriver::Driver;
use super::{fill_client_form, get_json, save, settle};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hosts_approvers_and_viewers_in_chromium() {
    let driver = Driver::start().await;
    // A fixed clock keeps the date on the page (and in the screenshots) stable.
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-15T09:30:00.000Z").unwrap(),
    ));
    let s = TestServer::start_with(Options {
        clock: Some(clock),
        ..Options::default()
    })
    .await;
    let env = signing_envelope(
        &s,
        json!({"signers": [
            {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client",
             "in_person": {"host_name": "Hal Host", "host_email": "hal@bank.example"}},
            {"name": "Paul Provider", "email": "paul@example.com", "role": "Provider"},
            {"name": "Lee Legal", "email": "lee@example.com", "role": "Legal", "kind": "approver"},
            {"name": "Bo Board", "email": "bo@example.com", "role": "Board", "kind": "viewer"},
        ]}),
    )
    .await;
    let id = env["id"].as_str().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let b = driver.session(profile.path()).await;

    // 1. In person, on a tablet: the host's link asks for the hand-over, nothing of the
    // document shows; the signer continues and signs.
    b.set_window(820, 1000).await;
    b.goto(&s.url(&link(&s, id, "Client").await)).await;
    b.wait_for_text("Please hand this device to Ada Lovelace")
        .await;
    let text = b.body_text().await;
    assert!(
        text.contains("Hal Host is hosting the in-person signing"),
        "{text}"
    );
    assert!(!text.contains("Your fields"), "{text}");
    settle().await;
    save("signing-in-person-handover.png", &b.viewport_png().await);
    b.click(&b.find("#hand-over").await).await;
    b.wait_for_text("Your fields").await;
    fill_client_form(&b).await;
    b.click(&b.find("#sign-button").await).await;
    b.wait_for_text("Thank you for signing").await;

    // 2. The approver: the document, the approval's consent, Approve.
    b.set_window(1280, 900).await;
    b.goto(&s.url(&link(&s, id, "Legal").await)).await;
    b.wait_for_text("Your approval").await;
    let text = b.body_text().await;
    assert!(text.contains("I agree to approve electronically"), "{text}");
    b.click(&b.find("#consent").await).await;
    let button = b.find("#sign-button").await;
    b.script_on("arguments[0].scrollIntoView({block: 'end'});", &button)
        .await;
    settle().await;
    save("signing-approver.png", &b.viewport_png().await);
    b.click(&b.find("#sign-button").await).await;
    b.wait_for_text("You approved Supply agreement").await;

    // 3. The viewer: opening is all; the page shows the document.
    b.goto(&s.url(&link(&s, id, "Board").await)).await;
    b.wait_for_text("You have viewed this document").await;
    settle().await;
    save("signing-viewer.png", &b.viewport_png().await);

    let env = get_json(&s, &format!("/v1/envelopes/{id}")).await;
    let statuses: Vec<(&str, &str)> = env["signers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["role"].as_str().unwrap(), x["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("Client", "completed"),
            ("Provider", "pending"),
            ("Legal", "completed"),
            ("Board", "completed")
        ]
    );
    b.quit().await;
}
