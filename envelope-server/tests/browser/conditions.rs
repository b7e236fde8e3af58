//! A conditional field in Chromium (extensions E14): "Why not?" shows, and is required, only
//! while the answer is No; with Yes it hides and the form signs without it. Writes
//! `signing-condition.png`.

use serde_json::json;

use super::common::pdf::PdfBuilder;
use super::common::signing::link;
use super::common::{TestServer, b64};
use super::webdriver::{Driver, Session};
use super::{get_json, save, settle};

async fn shown(b: &Session, css: &str) -> bool {
    b.script(
        &format!("var e = document.querySelector('{css}'); return !!e && e.offsetParent !== null;"),
        vec![],
    )
    .await
    .as_bool()
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_condition_shows_and_hides_a_field_as_the_signer_answers() {
    let driver = Driver::start().await;
    let s = TestServer::start().await;
    let pdf = PdfBuilder::new().page(&["Change request"]).build();
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"file_base64": b64(&pdf), "file_name": "change.pdf", "delivery": "embedded",
                   "name": "Change request",
                   "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
                   "fields": [
                       {"type": "radio", "role": "Client", "key": "accept", "label": "Do you accept?",
                        "options": ["Yes", "No"],
                        "page": 1, "x": 72, "y": 200, "width": 120, "height": 20},
                       {"type": "text", "role": "Client", "key": "why", "label": "Why not?",
                        "page": 1, "x": 72, "y": 260, "width": 300, "height": 20,
                        "condition": {"field": "accept", "equals": "No"}},
                       {"type": "signature", "role": "Client", "key": "sig",
                        "page": 1, "x": 72, "y": 400, "width": 200, "height": 40}]}),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let b = driver.session(profile.path()).await;
    b.set_window(1280, 900).await;
    b.goto(&s.url(&link(&s, id, "Client").await)).await;
    b.wait_for_text("Do you accept?").await;
    assert!(!shown(&b, "#f1").await, "hidden before an answer");

    // No: the reason shows and is required by the browser.
    b.click(&b.find("#f0-1").await).await;
    assert!(shown(&b, "#f1").await);
    let required = b
        .script("return document.getElementById('f1').required;", vec![])
        .await;
    assert_eq!(required.as_bool(), Some(true));
    let why = b.find("#f1").await;
    b.type_text(&why, "Too expensive").await;
    let sig = b.find(r#"input[name="typed:sig"]"#).await;
    b.type_text(&sig, "Ada Lovelace").await;
    b.script_on("arguments[0].scrollIntoView({block: 'center'});", &why)
        .await;
    settle().await;
    save("signing-condition.png", &b.viewport_png().await);

    // Yes: it hides, and is neither required nor posted.
    b.click(&b.find("#f0-0").await).await;
    assert!(!shown(&b, "#f1").await);
    let disabled = b
        .script("return document.getElementById('f1').disabled;", vec![])
        .await;
    assert_eq!(disabled.as_bool(), Some(true));
    b.click(&b.find("#consent").await).await;
    b.click(&b.find("#sign-button").await).await;
    b.wait_for_text("Thank you for signing").await;
    let env = get_json(&s, &format!("/v1/envelopes/{id}")).await;
    assert_eq!(env["status"], "completed");
    b.quit().await;
}
