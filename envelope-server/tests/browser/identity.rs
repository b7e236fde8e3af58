//! The code step of the signing page in Chromium (extensions E2): a signer with an access code
//! sees nothing of the document before the code, enters it and signs; five wrong codes lock the
//! link; a signer with `email_code` presses "Send me a code" (opening the page sends none),
//! reads the code from the `.eml` file the server's file mailer wrote, enters it and signs.
//! Writes `signing-code-step.png`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use envelope_core::mail::FileMailer;
use envelope_core::{ManualClock, Timestamp};

use super::common::signing::{link, signing_envelope};
use super::common::{Options, TestServer};
use super::webdriver::{Driver, Session};
use super::{fill_client_form, get_json, save, settle};

fn with_auth(auth: Value) -> Value {
    json!({"signers": [
        {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client", "auth": auth},
        {"name": "Paul Provider", "email": "paul@example.com", "role": "Provider"}
    ]})
}

async fn page_source(b: &Session) -> String {
    b.script("return document.documentElement.outerHTML;", vec![])
        .await
        .as_str()
        .unwrap()
        .to_string()
}

async fn enter_code(b: &Session, code: &str) {
    // The answer is a new page. This one is marked, and the answer waited for, so that what
    // the test reads or does next is never the page the code was typed on (under load, a
    // navigation started next could otherwise be overtaken by this form's answer).
    b.script("document.body.dataset.answered = 'no';", vec![])
        .await;
    let input = b.find("#code").await;
    b.type_text(&input, code).await;
    b.click(&b.find(r#"#code-form button[type="submit"]"#).await)
        .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let fresh = b
            .script(
                "return document.readyState === 'complete' && !!document.body \
                 && document.body.dataset.answered === undefined;",
                vec![],
            )
            .await;
        if fresh == true {
            return;
        }
        assert!(Instant::now() < deadline, "no answer to the code {code:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The code of the newest code email in `dir` (the plain-text part has it alone on a line).
async fn emailed_code(dir: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.contains("-code-") && n.ends_with(".eml"))
            })
            .collect();
        names.sort();
        if let Some(newest) = names.last() {
            let eml = std::fs::read_to_string(newest).unwrap();
            assert!(eml.contains("X-Envelope-Kind: code"), "{eml}");
            if let Some(code) = eml
                .lines()
                .map(str::trim)
                .find(|l| l.len() == 6 && l.bytes().all(|b| b.is_ascii_digit()))
            {
                return code.to_string();
            }
            panic!("no code in {eml}");
        }
        assert!(Instant::now() < deadline, "no code email in {dir:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signers_verify_their_identity_in_chromium() {
    let driver = Driver::start().await;
    let outbox = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-15T09:30:00.000Z").unwrap(),
    ));
    let s = TestServer::start_with(Options {
        clock: Some(clock),
        mailer: Some(Arc::new(FileMailer::new(outbox.path()).unwrap())),
        ..Options::default()
    })
    .await;
    let profile = tempfile::tempdir().unwrap();
    let b = driver.session(profile.path()).await;
    b.set_window(1280, 900).await;

    // 1. An access code: the code step first, nothing of the document; a wrong code; the right
    // one; the signer signs.
    let env = signing_envelope(
        &s,
        with_auth(json!({"method": "access_code", "access_code": "Tulip-4821"})),
    )
    .await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;
    b.goto(&s.url(&path)).await;
    b.wait_for_text("Enter your access code").await;
    let html = page_source(&b).await;
    assert!(!html.contains("/document") && !html.contains("Supply agreement"));
    assert!(html.contains(r#"autocomplete="one-time-code""#));
    // The document's own address answers without it.
    b.goto(&s.url(&format!("{path}/document"))).await;
    b.wait_for_text("Enter your code first").await;
    b.goto(&s.url(&path)).await;
    enter_code(&b, "tulip-4821").await;
    b.wait_for_text("4 attempts left").await;
    settle().await;
    save("signing-code-step.png", &b.viewport_png().await);
    enter_code(&b, "Tulip-4821").await;
    b.wait_for_text("Your fields").await;
    fill_client_form(&b).await;
    b.click(&b.find("#sign-button").await).await;
    b.wait_for_text("Thank you for signing").await;
    let env = get_json(&s, &format!("/v1/envelopes/{id}")).await;
    assert_eq!(env["signers"][0]["status"], "completed");

    // 2. Five wrong codes lock the link; the right code then waits too.
    let env = signing_envelope(
        &s,
        with_auth(json!({"method": "access_code", "access_code": "Tulip-4821"})),
    )
    .await;
    let id = env["id"].as_str().unwrap();
    b.goto(&s.url(&link(&s, id, "Client").await)).await;
    b.wait_for_text("5 attempts left").await;
    for left in [
        "4 attempts left",
        "3 attempts left",
        "2 attempts left",
        "1 attempt left",
    ] {
        enter_code(&b, "0000").await;
        b.wait_for_text(left).await;
    }
    enter_code(&b, "0000").await;
    let text = b.wait_for_text("The link is locked until").await;
    assert!(text.contains("09:45 UTC"), "{text}");
    enter_code(&b, "Tulip-4821").await;
    b.wait_for_text("The link is locked until").await;
    let env = get_json(&s, &format!("/v1/envelopes/{id}")).await;
    assert_eq!(env["signers"][0]["status"], "pending");

    // 3. An emailed code, read from the .eml the file mailer wrote.
    let env = signing_envelope(&s, with_auth(json!({"method": "email_code"}))).await;
    let id = env["id"].as_str().unwrap();
    b.goto(&s.url(&link(&s, id, "Client").await)).await;
    let text = b.wait_for_text("Enter the code we emailed you").await;
    // Nothing is emailed until the signer asks, and the step names no address.
    assert!(
        text.contains("Hello Ada,") && !text.contains("example.com"),
        "{text}"
    );
    b.click(&b.find(r#"#send-code-form button[type="submit"]"#).await)
        .await;
    b.wait_for_text("A new code is on its way").await;
    let code = emailed_code(outbox.path()).await;
    enter_code(&b, &code).await;
    b.wait_for_text("Your fields").await;
    fill_client_form(&b).await;
    b.click(&b.find("#sign-button").await).await;
    b.wait_for_text("Thank you for signing").await;
    let env = get_json(&s, &format!("/v1/envelopes/{id}")).await;
    assert_eq!(env["signers"][0]["status"], "completed");

    b.quit().await;
    s.shutdown().await.unwrap();
}
