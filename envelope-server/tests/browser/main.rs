//! The signing pages in a real browser: headless Chromium driven over WebDriver (chromedriver).
//!
//! One signer draws a signature on the canvas with real pointer events, fills a text and a check
//! box field, consents and signs; the second signer types theirs; the API shows the envelope
//! `completed`, and the signed PDF holds the text values (pdftotext) and the drawing
//! (pdfimages). In another envelope, shown inside a caller's page in an iframe, the signer
//! declines; the caller's page receives the `envelope.declined` message and the API shows the
//! envelope `voided`. A signer picks a radio button and a select option with the keyboard only
//! (`choices.rs`). axe-core measures every state of the pages against WCAG 2.1 AA, and a signer
//! signs with the keyboard alone (`accessibility.rs`). Screenshots of the page go to the target directory, or to docs/screenshots/
//! with `ENVELOPE_UPDATE_SCREENSHOTS=1`.
//!
//! Needs `chromium` and `chromedriver` (scripts/install-test-deps.sh); fails without them.

mod accessibility;
mod attachments;
mod builder;
mod choices;
#[path = "../common/mod.rs"]
mod common;
mod conditions;
mod documents;
mod formulas;
mod identity;
mod kinds;
mod pages;
mod webdriver;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use envelope_core::{ManualClock, Timestamp};
use envelope_server::{FrameAncestors, PageSecret, PageSettings};

use common::signing::{link, signing_envelope};
use common::{Options, TestServer};
use webdriver::{Driver, Session};

/// The caller's site: one page that frames the signing link given in its URL fragment and
/// records every message it receives in `window.messages`.
const CALLER_PAGE: &str = r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Caller's app</title></head>
<body><h1>Caller's app</h1>
<iframe id="signing" title="Sign" style="width:100%;height:700px;border:0"></iframe>
<script>
window.messages = [];
window.addEventListener("message", function (e) { window.messages.push(e.data); });
document.getElementById("signing").src = decodeURIComponent(location.hash.slice(1));
</script></body></html>"#;

/// Serves [`CALLER_PAGE`] on every connection; returns its origin.
async fn caller_site(listener: TcpListener) {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            return;
        };
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf).await;
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n",
                CALLER_PAGE.len()
            );
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.write_all(CALLER_PAGE.as_bytes()).await;
        });
    }
}

/// Where screenshots go: `docs/screenshots/` when `ENVELOPE_UPDATE_SCREENSHOTS=1` (to refresh
/// the documentation's pictures), else the build's target directory, so that a test run leaves
/// the checkout clean.
fn screenshots_dir() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = if std::env::var("ENVELOPE_UPDATE_SCREENSHOTS").is_ok_and(|v| v == "1") {
        manifest.join("../docs/screenshots")
    } else {
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots")
    };
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn save(name: &str, png: &[u8]) {
    assert!(png.starts_with(b"\x89PNG"), "{name} is not a PNG");
    std::fs::write(screenshots_dir().join(name), png).unwrap();
}

fn tool(name: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(name)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{name} is required (scripts/install-test-deps.sh): {e}"));
    assert!(
        out.status.success(),
        "{name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Lets layout and the PDF viewer settle before a screenshot.
async fn settle() {
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
}

async fn scroll_to(b: &Session, css: &str) {
    let e = b.find(css).await;
    b.script_on("arguments[0].scrollIntoView({block: 'start'});", &e)
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
}

async fn get_json(s: &TestServer, path: &str) -> Value {
    s.get(&s.test_key, path).await.ok(200)
}

/// Fills the Client's form: a drawn signature, typed initials, the text and check box fields,
/// consent.
async fn fill_client_form(b: &Session) {
    let company = b.find(r#"input[name="text:company"]"#).await;
    b.type_text(&company, "Bakery and Sons").await;
    b.click(&b.find(r#"input[name="check:terms"]"#).await).await;

    // Signature: choose Draw, then draw with the mouse on the canvas.
    b.click(&b.find(r#"#f2 input[value="draw"]"#).await).await;
    let pad = b.find("#f2-pad").await;
    b.script_on("arguments[0].scrollIntoView({block: 'center'});", &pad)
        .await;
    b.draw(
        &pad,
        &[
            (-200, 20),
            (-150, -30),
            (-100, 25),
            (-40, -35),
            (10, 30),
            (60, -20),
            (120, 15),
            (200, -10),
        ],
    )
    .await;
    b.draw(&pad, &[(-180, 45), (180, 40)]).await;
    let drawn = b
        .script(
            "return document.querySelector('input[name=\"drawn:Client_signature\"]').value.length;",
            vec![],
        )
        .await;
    assert!(
        drawn.as_u64().unwrap() > 1000,
        "the drawing reached the form: {drawn}"
    );

    let initials = b.find(r#"input[name="typed:Client_initials"]"#).await;
    b.type_text(&initials, "BS").await;
    b.click(&b.find("#consent").await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signers_sign_and_decline_in_chromium() {
    let driver = Driver::start().await;

    let caller = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let caller_origin = format!("http://{}", caller.local_addr().unwrap());
    tokio::spawn(caller_site(caller));

    // A fixed clock keeps the date on the page (and in the screenshots) stable.
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-15T09:30:00.000Z").unwrap(),
    ));
    let s = TestServer::start_with(Options {
        clock: Some(clock),
        pages: Some(PageSettings {
            frame_ancestors: FrameAncestors::parse(&caller_origin).unwrap(),
            secret: PageSecret::random(),
        }),
        ..Options::default()
    })
    .await;

    let profile = tempfile::tempdir().unwrap();
    let b = driver.session(profile.path()).await;

    // 1. Envelope A, in order: the Client draws a signature and signs.
    let env = signing_envelope(
        &s,
        json!({"signing_order": true, "message": "Hi Ada, here is the supply agreement we discussed. Thanks!"}),
    )
    .await;
    let id = env["id"].as_str().unwrap();
    let client = link(&s, id, "Client").await;
    b.set_window(1280, 900).await;
    b.goto(&s.url(&client)).await;
    b.wait_for_text("Your fields").await;
    // Chromium's PDF viewer renders in its own process, which full-page captures miss:
    // screenshots are of the viewport, once the document had time to render.
    settle().await;
    save("signing-page-desktop.png", &b.viewport_png().await);
    fill_client_form(&b).await;
    scroll_to(&b, "#fields-title").await;
    save("signing-page-desktop-fields.png", &b.viewport_png().await);
    b.set_window(390, 844).await;
    scroll_to(&b, ".bar").await;
    settle().await;
    save("signing-page-phone.png", &b.viewport_png().await);
    scroll_to(&b, "#f2").await;
    save("signing-page-phone-fields.png", &b.viewport_png().await);
    b.set_window(1280, 900).await;

    b.click(&b.find("#sign-button").await).await;
    let done = b.wait_for_text("Thank you for signing").await;
    assert!(done.contains("You have signed"), "{done}");
    save("signed-desktop.png", &b.viewport_png().await);

    let env = get_json(&s, &format!("/v1/envelopes/{id}")).await;
    assert_eq!(env["signers"][0]["status"], "completed");

    // The Provider types a signature.
    let provider = link(&s, id, "Provider").await;
    b.goto(&s.url(&provider)).await;
    b.wait_for_text("Your fields").await;
    let typed = b.find(r#"input[name="typed:Provider_signature"]"#).await;
    b.type_text(&typed, "Paul Provider").await;
    b.click(&b.find("#consent").await).await;
    b.click(&b.find("#sign-button").await).await;
    b.wait_for_text("Everyone has signed").await;

    let env = get_json(&s, &format!("/v1/envelopes/{id}")).await;
    assert_eq!(env["status"], "completed", "{env}");
    let file = get_json(&s, &format!("/v1/envelopes/{id}/files/signed")).await;
    let pdf = s.send(s.client.get(file["url"].as_str().unwrap())).await;
    assert_eq!(pdf.status, 200);
    let dir = tempfile::tempdir().unwrap();
    let signed = dir.path().join("signed.pdf");
    std::fs::write(&signed, &pdf.body).unwrap();
    let text = tool("pdftotext", &[signed.to_str().unwrap(), "-"]);
    for value in ["Bakery and Sons", "BS", "Paul Provider", "2027-03-15"] {
        assert!(
            text.contains(value),
            "{value:?} not in the signed PDF:\n{text}"
        );
    }
    let images = tool("pdfimages", &["-list", signed.to_str().unwrap()]);
    let rows = images
        .lines()
        .skip(2)
        .filter(|l| l.contains("image"))
        .count();
    assert!(
        rows >= 1,
        "the drawn signature is an image in the PDF:\n{images}"
    );

    // 2. Envelope B, embedded in the caller's page: the Client declines with a reason.
    let env_b = signing_envelope(&s, json!({})).await;
    let id_b = env_b["id"].as_str().unwrap();
    let signer_b = env_b["signers"][0]["id"].as_str().unwrap().to_string();
    let decline_link = link(&s, id_b, "Client").await;
    let target: String =
        url::form_urlencoded::byte_serialize(s.url(&decline_link).as_bytes()).collect();
    b.goto(&format!("{caller_origin}/#{target}")).await;
    let frame = b.find("#signing").await;
    b.enter_frame(&frame).await;
    b.wait_for_text("Your fields").await;
    b.click(&b.find("#decline summary").await).await;
    let reason = b.find("#reason").await;
    b.type_text(&reason, "The delivery dates are wrong").await;
    b.click(&b.find("#decline-button").await).await;
    b.wait_for_text("You declined to sign").await;
    b.leave_frame().await;

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let messages = loop {
        let m = b.script("return window.messages;", vec![]).await;
        if m.as_array().is_some_and(|a| !a.is_empty()) {
            break m;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no message reached the caller's page"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(
        messages,
        json!([{"type": "envelope.declined", "envelope": id_b, "signer": signer_b}])
    );
    let env_b = get_json(&s, &format!("/v1/envelopes/{id_b}")).await;
    assert_eq!(env_b["status"], "voided");
    assert_eq!(
        env_b["void_reason"],
        "declined by Client: The delivery dates are wrong"
    );

    b.quit().await;
    s.shutdown().await.unwrap();
}

/// Languages (extensions E4): a signer whose locale is `de` gets the page in German (whatever
/// the browser prefers), the script's message too, and signs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_german_signer_signs_in_german() {
    let driver = Driver::start().await;
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-15T09:30:00.000Z").unwrap(),
    ));
    let s = TestServer::start_with(Options {
        clock: Some(clock),
        ..Options::default()
    })
    .await;
    let profile = tempfile::tempdir().unwrap();
    let b = driver.session(profile.path()).await;

    let env = signing_envelope(
        &s,
        json!({
            "name": "Liefervertrag",
            "message": "Hallo Anna, anbei der besprochene Liefervertrag. Vielen Dank!",
            "signers": [
                {"name": "Anna Schneider", "email": "anna@example.de", "role": "Client", "locale": "de-DE"},
                {"name": "Paul Provider", "email": "paul@example.com", "role": "Provider"}
            ]
        }),
    )
    .await;
    let id = env["id"].as_str().unwrap();
    let client = link(&s, id, "Client").await;
    b.set_window(1280, 900).await;
    b.goto(&s.url(&client)).await;
    let text = b.wait_for_text("Ihre Felder").await;
    for words in [
        "Guten Tag Anna Schneider, bitte prüfen Sie das Dokument und unterschreiben Sie unten.",
        "Nachricht des Absenders",
        "Ich bin damit einverstanden, elektronisch zu unterschreiben",
        "Unterschrift ablehnen",
    ] {
        assert!(text.contains(words), "{words:?} not on the page:\n{text}");
    }
    let lang = b
        .script("return document.documentElement.lang;", vec![])
        .await;
    assert_eq!(lang, "de");
    fill_client_form(&b).await;
    scroll_to(&b, "#fields-title").await;
    settle().await;
    save("signing-page-de.png", &b.viewport_png().await);

    // The script speaks German too: a Draw signature left empty is caught before the post.
    b.click(&b.find("#f2 button.clear").await).await;
    b.click(&b.find("#sign-button").await).await;
    let error = b
        .script(
            "return document.getElementById('f2-error').textContent;",
            vec![],
        )
        .await;
    assert_eq!(
        error,
        "Bitte zeichnen Sie Ihre Unterschrift oder wählen Sie „Eingeben“."
    );
    let pad = b.find("#f2-pad").await;
    b.script_on("arguments[0].scrollIntoView({block: 'center'});", &pad)
        .await;
    b.draw(&pad, &[(-150, 20), (-50, -25), (50, 20), (150, -15)])
        .await;
    b.click(&b.find("#sign-button").await).await;
    let done = b.wait_for_text("Vielen Dank für Ihre Unterschrift").await;
    assert!(
        done.contains("Sie haben Liefervertrag unterschrieben."),
        "{done}"
    );

    let env = get_json(&s, &format!("/v1/envelopes/{id}")).await;
    assert_eq!(env["signers"][0]["status"], "completed");
    assert_eq!(env["signers"][0]["locale"], "de-DE");

    b.quit().await;
    s.shutdown().await.unwrap();
}
