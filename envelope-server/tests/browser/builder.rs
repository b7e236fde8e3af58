//! The builder page (extensions E11) in headless Chromium, inside a caller's page on another
//! origin: a signature field dragged from the palette onto page 1 with real pointer events, its
//! role set, moved with the arrow keys (1 pt, Shift 10 pt) and saved; the caller's page hears
//! `envelope.builder.saved`; an envelope made from the template and completed by the test
//! helper has the signer's stamp inside the placed box (`pdftotext -bbox`). A change made
//! through the API meanwhile makes the next save a conflict that keeps the layout on screen
//! until Reload. The API's own error shows inline and selects the field it names. A 200-page
//! document has every page's box at once and fetches only the pictures near the view. A draft
//! gets a text field from the keyboard, a renamed signer, is saved and sent from the page
//! (`envelope.builder.sent`). Also: the link's locale, Tab order, accessible names, the
//! headers, unknown and expired links. Screenshots: `builder-template.png` (1280 px) and
//! `builder-phone.png` (390 px).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::net::TcpListener;

use envelope_core::{ManualClock, Timestamp};
use envelope_server::{FrameAncestors, PageSecret, PageSettings};

use super::common::pdf::{PdfBuilder, signing_contract};
use super::common::{Options, TestServer, b64};
use super::webdriver::{Driver, Session};
use super::{caller_site, get_json, save, settle, tool};

const RIGHT: &str = "\u{E014}";
const DOWN: &str = "\u{E015}";
const ENTER: &str = "\u{E007}";
const TAB: &str = "\u{E004}";

/// A builder link for `path` (`/v1/templates/{id}` or `/v1/envelopes/{id}`), as a path on the
/// server.
async fn builder_link(s: &TestServer, object: &str) -> String {
    let v = s
        .post(&s.test_key, &format!("{object}/builder_url"), json!({}))
        .await
        .ok(200);
    assert_eq!(v["object"], "builder_url", "{v}");
    let url = v["url"].as_str().unwrap();
    let path = url
        .strip_prefix(&s.base)
        .expect("links point at this server");
    assert!(path.starts_with("/build/bld_"), "{url}");
    path.to_string()
}

/// Waits until `script` (a JS expression) is truthy in the current frame.
async fn wait_until(b: &Session, script: &str, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let v = b.script(&format!("return !!({script});"), vec![]).await;
        if v == json!(true) {
            return;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The caller page's received messages, once at least `n` arrived.
async fn messages(b: &Session, n: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let m = b.script("return window.messages;", vec![]).await;
        let list = m.as_array().cloned().unwrap_or_default();
        if list.len() >= n {
            return list;
        }
        assert!(
            Instant::now() < deadline,
            "only {list:?} reached the caller's page"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Opens `link` inside the caller's page and enters its frame; waits for page 1's picture.
async fn open_framed(b: &Session, s: &TestServer, caller: &str, link: &str) {
    let target: String = url::form_urlencoded::byte_serialize(s.url(link).as_bytes()).collect();
    b.goto(&format!("{caller}/#{target}")).await;
    let frame = b.find("#signing").await;
    b.enter_frame(&frame).await;
    wait_until(
        b,
        "document.querySelector('.sheet.loaded')",
        "page 1's picture",
    )
    .await;
}

/// Clicks the field button of `key` and returns it focused and selected.
async fn pick(b: &Session, key: &str) {
    let f = b.find(&format!(r#"button.fld[data-key="{key}"]"#)).await;
    b.click(&f).await;
    let active = b
        .script(
            "return document.activeElement.getAttribute('data-key');",
            vec![],
        )
        .await;
    assert_eq!(active, json!(key), "the clicked field has the focus");
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The words `pdftotext -bbox` finds in `pdf`: (text, xMin, yMin, xMax, yMax), points from
/// the page's top-left.
fn words(pdf: &[u8]) -> Vec<(String, f64, f64, f64, f64)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("signed.pdf");
    std::fs::write(&path, pdf).unwrap();
    let html = tool("pdftotext", &["-bbox", path.to_str().unwrap(), "-"]);
    let attr = |line: &str, name: &str| -> f64 {
        let start = line.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        let end = start + line[start..].find('"').unwrap();
        line[start..end].parse().unwrap()
    };
    html.lines()
        .filter(|l| l.trim_start().starts_with("<word "))
        .map(|l| {
            let text = l[l.find('>').unwrap() + 1..l.rfind("</word>").unwrap()].to_string();
            (
                text,
                attr(l, "xMin"),
                attr(l, "yMin"),
                attr(l, "xMax"),
                attr(l, "yMax"),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sender_places_fields_in_the_builder_and_sends_a_draft() {
    let driver = Driver::start().await;
    let caller = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let caller_origin = format!("http://{}", caller.local_addr().unwrap());
    tokio::spawn(caller_site(caller));
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-15T09:30:00.000Z").unwrap(),
    ));
    let s = TestServer::start_with(Options {
        clock: Some(clock.clone()),
        pages: Some(PageSettings {
            frame_ancestors: FrameAncestors::parse(&caller_origin).unwrap(),
            secret: PageSecret::random(),
        }),
        ..Options::default()
    })
    .await;
    let profile = tempfile::tempdir().unwrap();
    let b = driver.session(profile.path()).await;
    b.set_window(1280, 900).await;

    // 1. A template of one page, two roles, no fields.
    let pdf = PdfBuilder::new()
        .page(&[
            "Consulting agreement",
            "The consultant delivers the work described in the annex.",
        ])
        .build();
    let t = s
        .post(
            &s.test_key,
            "/v1/templates",
            json!({"name": "Consulting", "file_base64": b64(&pdf), "file_name": "consulting.pdf",
                   "roles": ["Client", "Consultant"]}),
        )
        .await
        .ok(201);
    let tid = t["id"].as_str().unwrap().to_string();
    let tpath = format!("/v1/templates/{tid}");
    assert_eq!(t["fields"], json!([]), "{t}");
    let link = builder_link(&s, &tpath).await;

    // The page's headers: the signing pages' frame-ancestors, the API and blob pictures only.
    let page = s.send(s.client.get(s.url(&link))).await;
    assert_eq!(page.status, 200);
    let csp = page.header("content-security-policy").unwrap();
    for part in [
        "connect-src 'self'",
        "img-src 'self' blob: data:",
        "script-src 'self'",
        &format!("frame-ancestors {caller_origin}"),
    ] {
        assert!(csp.contains(part), "{part} not in {csp}");
    }
    assert_eq!(page.header("cache-control").as_deref(), Some("no-store"));
    assert_eq!(
        page.header("referrer-policy").as_deref(),
        Some("no-referrer")
    );
    let unknown = s
        .send(
            s.client
                .get(s.url(&format!("/build/bld_{}", "x".repeat(43)))),
        )
        .await;
    assert_eq!(unknown.status, 404);
    assert!(String::from_utf8_lossy(&unknown.body).contains("This link is not valid"));
    // The link's locale wins over the browser's languages.
    let de = s
        .post(
            &s.test_key,
            &format!("{tpath}/builder_url"),
            json!({"locale": "de"}),
        )
        .await
        .ok(200);
    let de_page = s
        .send(
            s.client
                .get(de["url"].as_str().unwrap())
                .header("accept-language", "fr"),
        )
        .await;
    let de_html = String::from_utf8_lossy(&de_page.body);
    assert!(de_html.contains("<html lang=\"de\">") && de_html.contains(">Speichern</button>"));
    assert_eq!(de_page.header("content-language").as_deref(), Some("de"));

    // 2. In the caller's page: drag Signature onto page 1, set its role, nudge it, save.
    open_framed(&b, &s, &caller_origin, &link).await;
    b.wait_for_text("Consulting").await;
    let palette = b.find("button.type-signature").await;
    let sheet = b.find(r#".sheet[data-document="1"][data-page="1"]"#).await;
    // Where the drop lands, in points: WebDriver offsets from the centre of the part of the
    // page in view.
    let drop = b
        .script_on(
            "const r = arguments[0].getBoundingClientRect(); \
             const l = Math.max(r.left, 0), t = Math.max(r.top, 0); \
             const x = Math.floor((l + Math.min(r.right, innerWidth)) / 2) + 40; \
             const y = Math.floor((t + Math.min(r.bottom, innerHeight)) / 2) + 120; \
             const s = r.width / 612; return [(x - r.left) / s, (y - r.top) / s];",
            &sheet,
        )
        .await;
    let drop = (num(&drop[0]), num(&drop[1]));
    b.drag(&palette, &sheet, 40, 120).await;
    wait_until(
        &b,
        "document.querySelectorAll('button.fld').length === 1",
        "the dropped field",
    )
    .await;
    let key = b
        .script(
            "return document.querySelector('button.fld').getAttribute('data-key');",
            vec![],
        )
        .await;
    assert_eq!(key, "Client_signature", "a new field takes the first role");
    // Tab goes from the palette to the field; every control has an accessible name.
    // The palette's last button (attachment), then the pages.
    b.script_on(
        "arguments[0].focus();",
        &b.find("button.type-attachment").await,
    )
    .await;
    b.keys(TAB).await;
    let active = b
        .script(
            "return document.activeElement.getAttribute('data-key');",
            vec![],
        )
        .await;
    assert_eq!(active, "Client_signature", "Tab reaches the field");
    let unnamed = b
        .script(
            "return Array.from(document.querySelectorAll('button, input, select, textarea'))\
               .filter(e => !(e.getAttribute('aria-label') || (e.labels && e.labels.length) \
                 || e.textContent.trim()))\
               .map(e => e.outerHTML);",
            vec![],
        )
        .await;
    assert_eq!(unnamed, json!([]), "controls without a name");
    b.click(&b.find(r#"#f-role option[value="Consultant"]"#).await)
        .await;
    let label = b
        .script(
            "return document.querySelector('button.fld').textContent;",
            vec![],
        )
        .await;
    assert!(
        label.as_str().unwrap().contains("Signature · Consultant"),
        "the field's name shows its type and role: {label}"
    );
    b.type_text(&b.find("#f-label").await, "Consultant's signature")
        .await;
    b.click(&b.find("#save").await).await;
    b.wait_for_text("Saved.").await;
    let saved = get_json(&s, &tpath).await;
    let f0 = &saved["fields"][0];
    assert_eq!(saved["fields"].as_array().unwrap().len(), 1, "{saved}");
    assert_eq!(f0["type"], "signature");
    assert_eq!(f0["role"], "Consultant");
    assert_eq!(
        f0["key"], "Consultant_signature",
        "the page's key follows the role"
    );
    assert_eq!(f0["label"], "Consultant's signature");
    assert_eq!(saved["roles"], json!(["Client", "Consultant"]));
    assert_eq!(f0["page"], 1);
    let (x0, y0) = (num(&f0["x"]), num(&f0["y"]));
    let (w, h) = (num(&f0["width"]), num(&f0["height"]));
    let (cx, cy) = (x0 + w / 2.0, y0 + h / 2.0);
    assert!(
        (cx - drop.0).abs() < 2.0,
        "centre x {cx}, dropped at {drop:?}"
    );
    assert!(
        (cy - drop.1).abs() < 2.0,
        "centre y {cy}, dropped at {drop:?}"
    );

    let key = f0["key"].as_str().unwrap().to_string();
    pick(&b, &key).await;
    b.keys(&RIGHT.repeat(3)).await;
    b.shift_keys(DOWN).await;
    b.click(&b.find("#save").await).await;
    b.wait_for_text("Saved.").await;
    wait_until(
        &b,
        "!document.getElementById('save').disabled",
        "the save to end",
    )
    .await;
    let moved = get_json(&s, &tpath).await;
    let f1 = &moved["fields"][0];
    assert!(
        (num(&f1["x"]) - (x0 + 3.0)).abs() < 0.01,
        "x: {f1}, was {x0}"
    );
    assert!(
        (num(&f1["y"]) - (y0 + 10.0)).abs() < 0.01,
        "y: {f1}, was {y0}"
    );
    b.leave_frame().await;
    let m = messages(&b, 2).await;
    assert_eq!(m[0], json!({"type": "envelope.builder.saved", "id": tid}));
    assert_eq!(m[1], m[0]);

    // 3. An envelope from the template: the stamp lies inside the placed box.
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"template": tid, "delivery": "embedded",
                   "signers": [{"name": "Grace Hopper", "email": "grace@example.com",
                                "role": "Consultant"}]}),
        )
        .await
        .ok(201);
    let eid = env["id"].as_str().unwrap();
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{eid}/complete"),
    )
    .await
    .ok(200);
    let file = get_json(&s, &format!("/v1/envelopes/{eid}/files/signed")).await;
    let signed = s.send(s.client.get(file["url"].as_str().unwrap())).await;
    assert_eq!(signed.status, 200);
    let (bx, by) = (num(&f1["x"]), num(&f1["y"]));
    let stamp: Vec<_> = words(&signed.body)
        .into_iter()
        .filter(|w| w.0 == "Grace" || w.0 == "Hopper")
        .collect();
    // The typed signature, and whatever else the stamp writes of the signer's name.
    assert!(stamp.len() >= 2, "the signer's name is stamped: {stamp:?}");
    for (word, x_min, y_min, x_max, y_max) in &stamp {
        let slack = 1.5;
        assert!(
            *x_min >= bx - slack
                && *x_max <= bx + w + slack
                && *y_min >= by - slack
                && *y_max <= by + h + slack,
            "{word} at ({x_min}, {y_min})-({x_max}, {y_max}) is outside the box \
             ({bx}, {by}) {w}x{h}"
        );
    }

    // 4. A change made elsewhere: the save is refused, the layout stays until Reload.
    b.goto(&s.url(&link)).await;
    wait_until(&b, "document.querySelector('.sheet.loaded')", "the picture").await;
    let tag_before = s.get(&s.test_key, &tpath).await.header("etag");
    s.patch(&s.test_key, &tpath, json!({"name": "Consulting (revised)"}))
        .await
        .ok(200);
    pick(&b, &key).await;
    b.keys(&RIGHT.repeat(5)).await;
    b.click(&b.find("#save").await).await;
    b.wait_for_text("changed elsewhere").await;
    let on_screen = num(&b
        .script(
            "return parseFloat(document.getElementById('f-x').value);",
            vec![],
        )
        .await);
    assert!(
        (on_screen - (bx + 5.0)).abs() < 0.01,
        "the moved field stays: {on_screen}"
    );
    let left = b
        .script(
            &format!(
                "return parseFloat(document.querySelector('button.fld[data-key=\"{key}\"]').style.left);"
            ),
            vec![],
        )
        .await;
    assert!(
        (num(&left) - (bx + 5.0) / 612.0 * 100.0).abs() < 0.01,
        "drawn where the user put it: {left}"
    );
    let api = get_json(&s, &tpath).await;
    assert_eq!(api["fields"][0]["x"], f1["x"], "nothing was written");
    assert_ne!(s.get(&s.test_key, &tpath).await.header("etag"), tag_before);
    b.click(&b.find("#reload").await).await;
    b.wait_for_text("Consulting (revised)").await;
    pick(&b, &key).await;
    let reloaded = num(&b
        .script(
            "return parseFloat(document.getElementById('f-x').value);",
            vec![],
        )
        .await);
    assert!(
        (reloaded - bx).abs() < 0.01,
        "the API's version after Reload: {reloaded}"
    );
    // The pictures of the documentation: a template whose document has its own fields
    // (dashed: locked), with a date field just added from the palette.
    let tagged = s
        .post(
            &s.test_key,
            "/v1/templates",
            json!({"name": "Supply agreement", "file_base64": b64(&signing_contract()),
                   "file_name": "supply.pdf"}),
        )
        .await
        .ok(201);
    let tagged_link = builder_link(
        &s,
        &format!("/v1/templates/{}", tagged["id"].as_str().unwrap()),
    )
    .await;
    b.goto(&s.url(&tagged_link)).await;
    wait_until(&b, "document.querySelector('.sheet.loaded')", "the picture").await;
    let locked = b
        .script(
            "return document.querySelectorAll('button.fld.locked').length;",
            vec![],
        )
        .await;
    assert!(
        num(&locked) >= 5.0,
        "the document's own fields are drawn, locked: {locked}"
    );
    let date = b.find("button.type-date").await;
    let sheet = b.find(r#".sheet[data-page="1"]"#).await;
    b.drag(&date, &sheet, 120, 40).await;
    wait_until(
        &b,
        "document.querySelector('button.fld.sel:not(.locked)')",
        "the new field",
    )
    .await;
    settle().await;
    save("builder-template.png", &b.viewport_png().await);
    b.set_window(390, 844).await;
    settle().await;
    save("builder-phone.png", &b.viewport_png().await);
    b.set_window(1280, 900).await;
    b.goto(&s.url(&link)).await;
    wait_until(&b, "document.querySelector('.sheet.loaded')", "the picture").await;
    pick(&b, &key).await;

    // The API's own words, inline: a radio field without options; the field is selected.
    b.set_window(1280, 900).await;
    b.click(&b.find(r#"#f-type option[value="radio"]"#).await)
        .await;
    b.click(&b.find("#save").await).await;
    let error = b.wait_for_text("Not saved:").await;
    assert!(error.contains("(fields.0.options)"), "{error}");
    let active = b
        .script(
            "return document.activeElement.getAttribute('data-key');",
            vec![],
        )
        .await;
    assert_eq!(active, json!(key), "the field the error names is selected");
    let options = b.find("#f-options").await;
    b.type_text(&options, "Yes\nNo").await;
    b.click(&b.find("#save").await).await;
    b.wait_for_text("Saved.").await;
    let radio = get_json(&s, &tpath).await;
    assert_eq!(
        radio["fields"][0]["options"],
        json!(["Yes", "No"]),
        "{radio}"
    );

    // A long document: every page has its box at once, pictures come as they near the view.
    let pages: Vec<String> = (1..=200).map(|n| format!("Page {n}")).collect();
    let mut long = PdfBuilder::new();
    for p in &pages {
        long = long.page(&[p.as_str()]);
    }
    let long = s
        .post(
            &s.test_key,
            "/v1/templates",
            json!({"name": "Long", "file_base64": b64(&long.build()), "file_name": "long.pdf",
                   "roles": ["Client"]}),
        )
        .await
        .ok(201);
    let long_link = builder_link(
        &s,
        &format!("/v1/templates/{}", long["id"].as_str().unwrap()),
    )
    .await;
    b.goto(&s.url(&long_link)).await;
    wait_until(
        &b,
        "document.querySelector('.sheet.loaded')",
        "the first page",
    )
    .await;
    let counts = b
        .script(
            "const s = Array.from(document.querySelectorAll('.sheet'));\
             return [s.length, s.filter(e => e.getBoundingClientRect().height > 500).length,\
                     document.querySelectorAll('img.page-img[src^=\"blob:\"]').length];",
            vec![],
        )
        .await;
    assert_eq!(counts[0], 200);
    assert_eq!(counts[1], 200, "every page has its size before its picture");
    assert!(
        num(&counts[2]) <= 5.0,
        "only pages near the view are fetched: {counts}"
    );

    // 5. A draft: a text field added from the keyboard, the signer renamed, saved, sent.
    let draft = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"file_base64": b64(&pdf), "file_name": "consulting.pdf", "send": false,
                   "name": "Consulting draft", "delivery": "embedded", "signature_page": true,
                   "signers": [{"name": "Ada Lovelace", "email": "ada@example.com",
                                "role": "Client"}]}),
        )
        .await
        .ok(201);
    let did = draft["id"].as_str().unwrap().to_string();
    let dpath = format!("/v1/envelopes/{did}");
    assert_eq!(draft["status"], "draft");
    let link = builder_link(&s, &dpath).await;
    open_framed(&b, &s, &caller_origin, &link).await;
    b.wait_for_text("Consulting draft").await;
    let text = b.find("button.type-text").await;
    b.script_on("arguments[0].focus();", &text).await;
    b.keys(ENTER).await;
    wait_until(
        &b,
        "document.querySelectorAll('button.fld').length === 1",
        "the text field",
    )
    .await;
    // A signer added without an address: the API's error names it, and the page goes there.
    b.click(&b.find("#add-person").await).await;
    b.click(&b.find("#save").await).await;
    let error = b.wait_for_text("Not saved:").await;
    assert!(error.contains("(signers.1"), "{error}");
    let active = b.script("return document.activeElement.id;", vec![]).await;
    assert!(
        active.as_str().unwrap().starts_with("signer-1-"),
        "the signer the error names has the focus: {active}"
    );
    b.type_text(&b.find("#signer-1-name").await, "Alan Turing")
        .await;
    b.type_text(&b.find("#signer-1-email").await, "alan@example.com")
        .await;
    let name = b.find("#signer-0-name").await;
    b.script_on("arguments[0].value = '';", &name).await;
    b.type_text(&name, "Ada King").await;
    b.click(&b.find("#send").await).await;
    b.wait_for_text("Sent: the signers have been asked to sign.")
        .await;
    let sent = get_json(&s, &dpath).await;
    assert_eq!(sent["status"], "sent", "{sent}");
    assert_eq!(sent["signers"][0]["name"], "Ada King");
    assert_eq!(sent["signers"][1]["name"], "Alan Turing");
    assert_eq!(sent["signers"][1]["email"], "alan@example.com");
    b.leave_frame().await;
    // Only what succeeded is told: the refused save sent nothing.
    let m = messages(&b, 2).await;
    assert_eq!(
        m,
        vec![
            json!({"type": "envelope.builder.saved", "id": did}),
            json!({"type": "envelope.builder.sent", "id": did}),
        ]
    );

    // After its hour, the link opens a page that says so.
    clock.advance(chrono::Duration::minutes(61));
    let expired = s.send(s.client.get(s.url(&long_link))).await;
    assert_eq!(expired.status, 410);
    assert!(String::from_utf8_lossy(&expired.body).contains("This builder link has expired"));

    b.quit().await;
    s.shutdown().await.unwrap();
}
