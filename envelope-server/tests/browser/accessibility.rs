//! Accessibility of the signing and builder pages, as axe-core measures it (WCAG 2.1 A and AA
//! rules): every state of the signing page (the code step, a wrong code, the hand-over of an
//! in-person signing, the document, a field's dialog, the filled form, a computed total, a
//! missing drawing's error, signed, the decline form, declined, voided, an approver's page and
//! theirs approved, a viewer's page) and the builder (a field selected), each at phone (390 px)
//! and desktop (1280 px) widths, in one server and one browser. A serious or critical violation
//! fails the test, named with its rule, help and elements; lesser ones are printed.
//!
//! axe-core comes from npm at the exact version of `axe/package-lock.json` (`npm ci` in
//! scripts/install-test-deps.sh) and is injected with WebDriver's execute script, which the
//! pages' Content-Security-Policy does not restrict. Without it the test fails in CI
//! (`CI=true`) and is skipped elsewhere with a printed reason.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};

use envelope_core::{ManualClock, Timestamp};

use super::common::pdf::PdfBuilder;
use super::common::signing::{link, signing_envelope};
use super::common::{Options, TestServer, b64};
use super::fill_client_form;
use super::webdriver::{Driver, Session};

const TAB: &str = "\u{E004}";
const ENTER: &str = "\u{E007}";

/// The widths every state is measured at: a phone's and a desktop's.
const WIDTHS: [(&str, u32, u32); 2] = [("phone", 390, 844), ("desktop", 1280, 900)];

/// Runs axe-core on the current page; resolves to its violations, flattened for Rust. The
/// document's iframes (a PDF frame, when pages are not drawn as pictures) are left out: axe
/// would wait for a copy of itself inside them.
const RUN: &str = "return axe.run(document, {\
    runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']},\
    resultTypes: ['violations'], iframes: false\
  }).then(r => r.violations.map(v => ({\
    id: v.id, impact: v.impact, help: v.help,\
    nodes: v.nodes.map(n => n.target.join(' ') + ': ' + (n.failureSummary || '').replace(/\\s+/g, ' '))\
  })));";

/// axe-core's script, or `None` (with the reason printed) when it is not installed outside CI.
fn axe_source() -> Option<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/browser/axe/node_modules/axe-core/axe.min.js");
    match std::fs::read_to_string(&path) {
        Ok(src) => Some(src),
        Err(e) => {
            let why = format!(
                "axe-core is not installed at {} ({e}); scripts/install-test-deps.sh installs it",
                path.display()
            );
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("accessibility: {why}");
            }
            eprintln!("accessibility: SKIPPED: {why}");
            None
        }
    }
}

/// What axe found over every state visited.
struct Audit {
    source: String,
    /// Serious and critical violations: each fails the test.
    failures: Vec<String>,
    /// Moderate and minor ones, printed.
    notes: Vec<String>,
    /// States measured (state and width).
    measured: usize,
}

impl Audit {
    /// Measures the current page at both widths (ending at the desktop's).
    async fn check(&mut self, b: &Session, state: &str) {
        for (width, w, h) in WIDTHS {
            b.set_window(w, h).await;
            tokio::time::sleep(std::time::Duration::from_millis(150)).await;
            self.check_now(b, &format!("{state} ({width})")).await;
        }
    }

    /// Shows that the check can fail: two elements with known violations (a picture without a
    /// text alternative; a button showing "Sign here" named otherwise, the spots' old fault)
    /// must be reported, and then go away again.
    async fn probe(&mut self, b: &Session) {
        b.script(
            "const d = document.createElement('div'); d.id = 'axe-probe';\
             d.innerHTML = '<img src=\"data:,\"><button aria-label=\"Signature\">Sign here</button>';\
             document.getElementById('main').appendChild(d);",
            vec![],
        )
        .await;
        self.check_now(b, "probe").await;
        b.script("document.getElementById('axe-probe').remove();", vec![])
            .await;
        let found: Vec<String> = self.failures.drain(..).collect();
        for rule in ["image-alt", "label-content-name-mismatch"] {
            assert!(
                found.iter().any(|f| f.contains(&format!("probe: {rule} "))),
                "axe missed the probe's {rule}: {found:?}"
            );
        }
        self.measured -= 1;
    }

    /// Measures the current page at the current width.
    async fn check_now(&mut self, b: &Session, state: &str) {
        let loaded = b.script("return typeof window.axe;", vec![]).await;
        if loaded != json!("object") {
            // axe-core's bundle sets `window.axe` when run as a plain script.
            b.script(&self.source, vec![]).await;
        }
        let found = b.script(RUN, vec![]).await;
        let found = found
            .as_array()
            .unwrap_or_else(|| panic!("axe did not run on {state}: {found}"));
        for v in found {
            let line = format!(
                "{state}: {} [{}] {}\n    {}",
                v["id"].as_str().unwrap_or_default(),
                v["impact"].as_str().unwrap_or_default(),
                v["help"].as_str().unwrap_or_default(),
                v["nodes"]
                    .as_array()
                    .map(|n| n
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("\n    "))
                    .unwrap_or_default()
            );
            if matches!(v["impact"].as_str(), Some("serious" | "critical")) {
                self.failures.push(line);
            } else {
                self.notes.push(line);
            }
        }
        self.measured += 1;
    }
}

/// The accessible names of the signer's field spots on the page pictures, in page order.
async fn spot_names(b: &Session) -> Vec<String> {
    let v = b
        .script(
            "return Array.from(document.querySelectorAll('button.spot.mine'))\
               .map(e => e.getAttribute('aria-label'));",
            vec![],
        )
        .await;
    serde_json::from_value(v).unwrap()
}

/// The focused element's `id`, or its `data-kind` for a field spot.
async fn focused(b: &Session) -> String {
    let v = b
        .script(
            "const e = document.activeElement;\
             return e.classList.contains('spot') ? 'spot:' + e.getAttribute('data-kind') : e.id;",
            vec![],
        )
        .await;
    v.as_str().unwrap_or_default().to_string()
}

/// Presses `keys`, then checks where the focus went.
async fn press(b: &Session, keys: &str, want: &str) {
    b.keys(keys).await;
    assert_eq!(focused(b).await, want, "after pressing {keys:?}");
}

/// Signs with the keyboard alone on the page pictures: Tab to "Next field", Enter goes to the
/// first empty field, Enter opens it, typing and Enter close it again (and do not post the
/// form), Space ticks a box, Tab walks on; consent with Space, Sign with Enter.
async fn sign_with_the_keyboard(b: &Session) {
    press(b, TAB, "").await; // the skip link has no id
    press(b, TAB, "next-field").await;
    press(b, ENTER, "spot:text").await;
    press(b, ENTER, "f0").await;
    b.keys("Bakery").await;
    press(b, ENTER, "spot:text").await;
    let open = b
        .script(
            "return document.getElementById('field-dialog').open;",
            vec![],
        )
        .await;
    assert_eq!(open, false, "Enter closed the dialog");
    press(b, TAB, "spot:checkbox").await;
    b.keys(" ").await;
    press(b, TAB, "spot:signature").await;
    // The mode's radio button first (Type is checked), then the typed name.
    b.keys(ENTER).await;
    press(b, TAB, "f2-typed").await;
    b.keys("Ada Lovelace").await;
    press(b, ENTER, "spot:signature").await;
    press(b, TAB, "spot:initials").await;
    b.keys(ENTER).await;
    press(b, TAB, "f3-typed").await;
    b.keys("AL").await;
    press(b, ENTER, "spot:initials").await;
    assert_eq!(
        spot_names(b).await,
        [
            "Bakery, Company",
            "Terms",
            "Ada Lovelace, Signature",
            "AL, Initials"
        ]
    );
    // Next field now says all are done and goes to the consent.
    b.script("document.getElementById('next-field').focus();", vec![])
        .await;
    press(b, ENTER, "consent").await;
    // The status line (a live region present from the start) says why the focus moved.
    let status = b
        .script(
            "return document.getElementById('fields-done').textContent;",
            vec![],
        )
        .await;
    assert_eq!(
        status,
        "Every required field is filled in. Review, consent and sign below."
    );
    b.keys(" ").await;
    press(b, TAB, "sign-button").await;
    b.keys(ENTER).await;
    b.wait_for_text("Thank you for signing").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_state_meets_wcag_2_1_aa_as_axe_measures_it() {
    let Some(source) = axe_source() else {
        return;
    };
    let mut audit = Audit {
        source,
        failures: Vec::new(),
        notes: Vec::new(),
        measured: 0,
    };
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
    b.set_window(1280, 900).await;

    // 1. With an access code for the Client: the code step, a wrong code; the document, a
    // field's dialog, the filled form, a missing drawing; signed.
    let env = signing_envelope(
        &s,
        json!({"message": "Hi Ada, here is the agreement.",
               "signers": [
                   {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client",
                    "auth": {"method": "access_code", "access_code": "Tulip-4821"}},
                   {"name": "Paul Provider", "email": "paul@example.com", "role": "Provider"}]}),
    )
    .await;
    let id = env["id"].as_str().unwrap().to_string();
    b.goto(&s.url(&link(&s, &id, "Client").await)).await;
    b.wait_for_text("Enter your access code").await;
    audit.probe(&b).await;
    audit.check(&b, "code step").await;
    b.type_text(&b.find("#code").await, "wrong").await;
    b.click(&b.find(r#"#code-form button[type="submit"]"#).await)
        .await;
    b.wait_for_text("4 attempts left").await;
    audit.check(&b, "code step, wrong code").await;
    b.type_text(&b.find("#code").await, "Tulip-4821").await;
    b.click(&b.find(r#"#code-form button[type="submit"]"#).await)
        .await;
    b.wait_for_text("Your fields").await;
    audit.check(&b, "document").await;
    assert_eq!(
        spot_names(&b).await,
        ["Company", "Terms", "Sign here, Signature", "Initials"]
    );

    b.set_window(390, 844).await;
    let spot = b.find("button.spot.mine.kind-signature").await;
    b.script_on("arguments[0].scrollIntoView({block: 'center'});", &spot)
        .await;
    b.click(&spot).await;
    b.find("#field-dialog[open]").await;
    audit.check_now(&b, "field dialog (phone)").await;
    b.click(&b.find("#dialog-done").await).await;

    b.set_window(1280, 900).await;
    fill_client_form(&b).await;
    audit.check(&b, "filled").await;
    // What each spot shows leads its name; a drawing shows no words; the box says it is ticked.
    assert_eq!(
        spot_names(&b).await,
        [
            "Bakery and Sons, Company",
            "Terms",
            "Signature",
            "BS, Initials"
        ]
    );
    let ticked = b
        .script(
            "return document.querySelector('button.spot.kind-checkbox').getAttribute('aria-pressed');",
            vec![],
        )
        .await;
    assert_eq!(ticked, "true");
    // A Draw signature left empty: the error shows before the post.
    b.click(&b.find("#f2 button.clear").await).await;
    b.click(&b.find("#sign-button").await).await;
    b.wait_for_text("Please draw your signature").await;
    audit.check(&b, "missing drawing").await;
    let pad = b.find("#f2-pad").await;
    b.script_on("arguments[0].scrollIntoView({block: 'center'});", &pad)
        .await;
    b.draw(&pad, &[(-150, 20), (-50, -25), (50, 20), (150, -15)])
        .await;
    b.click(&b.find("#sign-button").await).await;
    b.wait_for_text("Thank you for signing").await;
    audit.check(&b, "signed").await;

    // 2. The Client declines; the Provider's link then shows the envelope voided.
    let env = signing_envelope(&s, json!({})).await;
    let id = env["id"].as_str().unwrap().to_string();
    let provider = link(&s, &id, "Provider").await;
    b.goto(&s.url(&link(&s, &id, "Client").await)).await;
    b.wait_for_text("Your fields").await;
    b.click(&b.find("#decline summary").await).await;
    audit.check(&b, "decline open").await;
    b.type_text(&b.find("#reason").await, "The dates are wrong")
        .await;
    b.click(&b.find("#decline-button").await).await;
    b.wait_for_text("You declined to sign").await;
    audit.check(&b, "declined").await;
    b.goto(&s.url(&provider)).await;
    b.wait_for_text("The dates are wrong").await;
    audit.check(&b, "voided").await;

    // 3. The keyboard alone, on a phone.
    let env = signing_envelope(&s, json!({})).await;
    let id = env["id"].as_str().unwrap().to_string();
    b.set_window(390, 844).await;
    b.goto(&s.url(&link(&s, &id, "Client").await)).await;
    b.wait_for_text("Your fields").await;
    sign_with_the_keyboard(&b).await;
    let env = super::get_json(&s, &format!("/v1/envelopes/{id}")).await;
    assert_eq!(env["signers"][0]["status"], "completed");
    b.set_window(1280, 900).await;

    // 4. In person, an approver and a viewer.
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
    let id = env["id"].as_str().unwrap().to_string();
    b.goto(&s.url(&link(&s, &id, "Client").await)).await;
    b.wait_for_text("Please hand this device to Ada Lovelace")
        .await;
    audit.check(&b, "in-person hand-over").await;
    b.goto(&s.url(&link(&s, &id, "Legal").await)).await;
    b.wait_for_text("Your approval").await;
    audit.check(&b, "approver").await;
    b.click(&b.find("#consent").await).await;
    b.click(&b.find("#sign-button").await).await;
    b.wait_for_text("You approved Supply agreement").await;
    audit.check(&b, "approved").await;
    b.goto(&s.url(&link(&s, &id, "Board").await)).await;
    b.wait_for_text("You have viewed this document").await;
    audit.check(&b, "viewer").await;

    // 5. Choices, a number, a condition, computed values and a file to attach.
    let pdf = PdfBuilder::new()
        .page(&[
            "Order",
            "Plan: {{radio:Client:plan:Basic|Pro}}",
            "Colour: {{select:Client:colour:Red|Blue}}",
            "Quantity: {{number:Client:qty}}",
            "Express: {{checkbox:Client:express}}",
            "Fee: {{number:Client:fee:=9.90:if express}}",
            "Total: {{number:Client:total:=round(qty * 12.5 + fee, 2)}}",
            "Proof of address: {{attachment:Client:proof}}",
            "Signature: {{signature:Client}}",
        ])
        .build();
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"file_base64": b64(&pdf), "file_name": "order.pdf", "delivery": "embedded",
                   "name": "Order", "signers": [
                       {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}]}),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    b.goto(&s.url(&link(&s, &id, "Client").await)).await;
    b.wait_for_text("Your fields").await;
    b.type_text(&b.find(r#"input[name="text:qty"]"#).await, "3")
        .await;
    b.click(&b.find(r#"input[name="check:express"]"#).await)
        .await;
    b.find(r#"input[type="file"][name="file:proof"]"#).await;
    audit
        .check(&b, "choices, a computed total and a file input")
        .await;

    // 6. The builder, a field selected.
    let t = s
        .post(
            &s.test_key,
            "/v1/templates",
            json!({"name": "Consulting", "file_base64": b64(&super::common::pdf::signing_contract()),
                   "file_name": "consulting.pdf", "roles": ["Client", "Provider"]}),
        )
        .await
        .ok(201);
    let tid = t["id"].as_str().unwrap();
    let v = s
        .post(
            &s.test_key,
            &format!("/v1/templates/{tid}/builder_url"),
            json!({}),
        )
        .await
        .ok(200);
    b.goto(v["url"].as_str().unwrap()).await;
    b.find(".sheet.loaded").await;
    audit.check(&b, "builder").await;
    b.click(&b.find("button.fld").await).await;
    audit.check(&b, "builder, a field selected").await;

    b.quit().await;
    s.shutdown().await.unwrap();

    for n in &audit.notes {
        eprintln!("axe (not failing): {n}");
    }
    eprintln!(
        "axe-core measured {} page states: {} serious or critical violations, {} lesser",
        audit.measured,
        audit.failures.len(),
        audit.notes.len()
    );
    assert!(
        audit.failures.is_empty(),
        "axe-core found serious or critical violations:\n{}",
        audit.failures.join("\n")
    );
}
