//! Choice fields on the signing page with the keyboard only (extensions E6): the signer tabs
//! into a radio group and picks with the arrow keys, tabs to a select and picks with the arrow
//! keys, types a number (the browser checks it against the core's pattern), types a signature, ticks consent with Space and signs with Enter. The signed copy shows
//! both choices (pdftotext). Writes `signing-page-choices.png` to the target directory.

use serde_json::json;

use super::common::pdf::PdfBuilder;
use super::common::signing::link;
use super::common::{TestServer, b64};
use super::webdriver::{Driver, Session};
use super::{get_json, save, settle, tool};

const TAB: &str = "\u{E004}";
const DOWN: &str = "\u{E015}";
const ENTER: &str = "\u{E007}";

/// Presses Tab until `done` (a script returning a boolean about `document.activeElement`) holds;
/// at most 40 presses.
async fn tab_to(b: &Session, done: &str) {
    for _ in 0..40 {
        b.keys(TAB).await;
        let v = b
            .script(
                &format!("var e = document.activeElement; return !!({done});"),
                vec![],
            )
            .await;
        if v.as_bool() == Some(true) {
            return;
        }
    }
    let at = b
        .script("return document.activeElement.outerHTML;", vec![])
        .await;
    panic!("Tab never reached {done}; the focus is on {at}");
}

async fn value_of(b: &Session, script: &str) -> String {
    b.script(script, vec![])
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signer_chooses_with_the_keyboard_only() {
    let driver = Driver::start().await;
    let s = TestServer::start().await;
    let pdf = PdfBuilder::new()
        .page(&[
            "Order",
            "Plan: {{radio:Client:plan:Basic|Pro|Enterprise}}",
            "Colour: {{select:Client:colour:Red|Green|Blue}}",
            "Quantity: {{number:Client:qty}}",
            "Signature: {{signature:Client}}",
        ])
        .build();
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({
                "file_base64": b64(&pdf),
                "file_name": "order.pdf",
                "delivery": "embedded",
                "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
            }),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;

    let profile = tempfile::tempdir().unwrap();
    let b = driver.session(profile.path()).await;
    b.set_window(1280, 900).await;
    b.goto(&s.url(&path)).await;
    b.wait_for_text("Your fields").await;

    // The radio group: Tab lands on its first button, the arrow key moves to and picks Pro.
    tab_to(&b, r#"e.name === "text:plan""#).await;
    b.keys(DOWN).await;
    let plan = r#"var c = document.querySelector('input[name="text:plan"]:checked'); return c ? c.value : "";"#;
    assert_eq!(value_of(&b, plan).await, "Pro");

    // The select: the arrow key steps from the placeholder to Red, then Green.
    tab_to(&b, r#"e.name === "text:colour""#).await;
    b.keys(&DOWN.repeat(2)).await;
    let colour = r#"return document.querySelector('select[name="text:colour"]').value;"#;
    assert_eq!(value_of(&b, colour).await, "Green");
    // The group's legend and the select's label name them for assistive technology.
    let legend = value_of(
        &b,
        r#"return document.querySelector('input[name="text:plan"]').closest("fieldset").querySelector("legend").textContent;"#,
    )
    .await;
    assert!(legend.starts_with("Plan"), "{legend}");
    let label = value_of(
        &b,
        r#"var s = document.querySelector('select[name="text:colour"]'); return s.labels[0].textContent;"#,
    )
    .await;
    assert!(label.starts_with("Colour"), "{label}");

    // The number input: the browser holds it to the core's pattern before the post.
    tab_to(&b, r#"e.name === "text:qty""#).await;
    b.keys("12,5").await;
    let mismatch =
        r#"return document.querySelector('input[name="text:qty"]').validity.patternMismatch;"#;
    assert_eq!(b.script(mismatch, vec![]).await, json!(true));
    b.keys("\u{E003}\u{E003}.5").await; // Backspace twice, then ".5"
    assert_eq!(b.script(mismatch, vec![]).await, json!(false));

    tab_to(&b, r#"e.name === "typed:Client_signature""#).await;
    b.keys("Ada Lovelace").await;
    tab_to(&b, r#"e.id === "consent""#).await;
    b.keys(" ").await;
    settle().await;
    save("signing-page-choices.png", &b.viewport_png().await);
    tab_to(&b, r#"e.id === "sign-button""#).await;
    b.keys(ENTER).await;
    b.wait_for_text("Everyone has signed").await;
    b.quit().await;

    assert_eq!(
        get_json(&s, &format!("/v1/envelopes/{id}")).await["status"],
        "completed"
    );
    let link = get_json(&s, &format!("/v1/envelopes/{id}/files/signed")).await;
    let signed = s
        .client
        .get(link["url"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert!(signed.starts_with(&pdf));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("signed.pdf");
    std::fs::write(&file, &signed).unwrap();
    let text = tool("pdftotext", &[file.to_str().unwrap(), "-"]);
    assert!(
        text.contains("Pro") && text.contains("Green") && text.contains("12.5"),
        "{text}"
    );
    assert!(
        !text.contains("Enterprise"),
        "only the choice is drawn: {text}"
    );
}
