//! The document as pictures of its pages (issue 18), in headless Chromium, which has no PDF
//! plugin: at phone width (390 px) and at desktop width, every page is drawn (a picture of the
//! page's size in points times the scale, not blank), and each of the signer's fields sits over
//! its box within 2 px. At phone width the signer taps the fields on the page: the signature
//! opens its input in a dialog, a text field too, the check box ticks in place; "Next field"
//! walks the required fields; what was entered shows in place. After signing, the signed copy
//! holds the typed signature (pdftotext). Screenshots: `signing-pages-phone.png`,
//! `signing-pages-phone-filled.png`, `signing-pages-desktop.png`.

use serde_json::{Value, json};

use envelope_core::service::ClientInfo;

use super::common::signing::{link, signing_envelope};
use super::common::{Options, TestServer};
use super::webdriver::{Driver, Session};
use super::{save, settle, tool};

/// Waits until every page picture has loaded; returns `[naturalWidth, naturalHeight, width
/// attribute, height attribute, dark pixels]` for each, dark pixels counted on a canvas.
async fn pictures(b: &Session) -> Vec<Value> {
    for _ in 0..200 {
        let done = b
            .script(
                "return Array.from(document.querySelectorAll('img.page-img'))\
                   .every(i => i.complete && i.naturalWidth > 0);",
                vec![],
            )
            .await;
        if done.as_bool() == Some(true) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let v = b
        .script(
            "return Array.from(document.querySelectorAll('img.page-img')).map(i => {\
               const c = document.createElement('canvas');\
               c.width = i.naturalWidth; c.height = i.naturalHeight;\
               const x = c.getContext('2d'); x.drawImage(i, 0, 0);\
               const d = x.getImageData(0, 0, c.width, c.height).data;\
               let dark = 0; for (let k = 0; k < d.length; k += 4) { if (d[k] < 128) dark++; }\
               return [i.naturalWidth, i.naturalHeight, +i.getAttribute('width'),\
                       +i.getAttribute('height'), dark]; });",
            vec![],
        )
        .await;
    v.as_array().unwrap().clone()
}

/// The page's size in points, as pdfinfo reads it from the original.
fn page_size(pdf: &[u8], page: u32) -> (f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.pdf");
    std::fs::write(&path, pdf).unwrap();
    let p = page.to_string();
    let info = tool("pdfinfo", &["-f", &p, "-l", &p, path.to_str().unwrap()]);
    let line = info
        .lines()
        .find(|l| l.starts_with(&format!("Page {p:>4} size:")) || l.starts_with("Page size:"))
        .unwrap_or_else(|| panic!("no page size in {info}"));
    let nums: Vec<f64> = line
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let n = nums.len();
    (nums[n - 2], nums[n - 1])
}

/// Checks that each of the signer's fields sits over its box on its page's picture.
async fn fields_in_place(b: &Session, fields: &[envelope_core::field::Field], pdf: &[u8]) {
    let mut checked = 0;
    for (i, f) in fields.iter().enumerate() {
        if f.kind == envelope_core::field::FieldType::Date {
            continue;
        }
        let (w, h) = page_size(pdf, f.page);
        let rects = b
            .script(
                &format!(
                    "const s = document.querySelector('.sheet[data-document=\"{d}\"][data-page=\"{p}\"]');\
                     const r = s.querySelector('img.page-img').getBoundingClientRect();\
                     const b = s.querySelector('button.spot[data-for=\"f{i}\"]').getBoundingClientRect();\
                     return [r.left, r.top, r.width, r.height, b.left, b.top, b.width, b.height];",
                    d = f.document,
                    p = f.page,
                ),
                vec![],
            )
            .await;
        let r: Vec<f64> = rects
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let want = [
            r[0] + f.x / w * r[2],
            r[1] + f.y / h * r[3],
            f.width / w * r[2],
            f.height / h * r[3],
        ];
        for (k, (got, want)) in r[4..].iter().zip(want).enumerate() {
            assert!(
                (got - want).abs() <= 2.0,
                "field {} ({:?}): coordinate {k} is {got}, its box says {want}",
                f.key,
                f.kind
            );
        }
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} fields checked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_are_drawn_with_the_fields_in_place_on_a_phone_and_a_desktop() {
    let driver = Driver::start().await;
    let clock = std::sync::Arc::new(envelope_core::ManualClock::new(
        envelope_core::Timestamp::parse("2027-03-15T09:30:00.000Z").unwrap(),
    ));
    let s = TestServer::start_with(Options {
        clock: Some(clock),
        ..Options::default()
    })
    .await;
    let pdf = super::common::pdf::signing_contract();
    let env = signing_envelope(&s, json!({})).await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;
    let token = path.strip_prefix("/sign/").unwrap();
    let session = s
        .svc
        .open_signing_link(token, None, &ClientInfo::default())
        .await
        .unwrap();
    let fields = session.fields.clone();

    let profile = tempfile::tempdir().unwrap();
    let b = driver.session(profile.path()).await;

    // Desktop first, then the phone, where the signer signs.
    for (name, width, height) in [("desktop", 1280, 900), ("phone", 390, 844)] {
        b.set_window(width, height).await;
        b.goto(&s.url(&path)).await;
        b.wait_for_text("Your fields").await;
        let inner = b.script("return window.innerWidth;", vec![]).await;
        assert!(
            inner.as_f64().unwrap() <= f64::from(width),
            "{name}: viewport {inner}"
        );
        let pics = pictures(&b).await;
        assert_eq!(pics.len(), 2, "{name}: one picture per page");
        for (i, p) in pics.iter().enumerate() {
            let (w, h) = page_size(&pdf, i as u32 + 1);
            let scale = f64::from(envelope_core::render::SCALE);
            assert_eq!(p[0], json!((w * scale) as u64), "{name} page {}", i + 1);
            assert_eq!(p[1], json!((h * scale) as u64), "{name} page {}", i + 1);
            assert_eq!((p[0].clone(), p[1].clone()), (p[2].clone(), p[3].clone()));
            assert!(
                p[4].as_u64().unwrap() > 500,
                "{name} page {} is blank: {p:?}",
                i + 1
            );
        }
        fields_in_place(&b, &fields, &pdf).await;
        // The Provider's field shows as theirs, on page 2.
        let other = b
            .script(
                "return Array.from(document.querySelectorAll('.sheet[data-page=\"2\"] .spot.other'))\
                   .map(e => e.textContent);",
                vec![],
            )
            .await;
        assert_eq!(other, json!(["For Provider"]), "{name}");
        settle().await;
        save(
            &format!("signing-pages-{name}.png"),
            &b.viewport_png().await,
        );
    }

    // On the phone: tap the signature on the page; its input opens in a dialog.
    let sig = fields
        .iter()
        .position(|f| f.kind == envelope_core::field::FieldType::Signature)
        .unwrap();
    let spot = b.find(&format!("button.spot[data-for=\"f{sig}\"]")).await;
    b.script_on("arguments[0].scrollIntoView({block: 'center'});", &spot)
        .await;
    b.click(&spot).await;
    let open = b
        .script(
            &format!(
                "const d = document.getElementById('field-dialog');\
                 return [d.open, !!d.querySelector('#f{sig}')];"
            ),
            vec![],
        )
        .await;
    assert_eq!(
        open,
        json!([true, true]),
        "the signature's input is in the open dialog"
    );
    let typed = b
        .find(r#"#field-dialog input[name="typed:Client_signature"]"#)
        .await;
    b.type_text(&typed, "Ada Lovelace").await;
    b.click(&b.find("#dialog-done").await).await;
    let shown = b
        .script(
            &format!(
                "const b = document.querySelector('button.spot[data-for=\"f{sig}\"]');\
                 return [document.getElementById('field-dialog').open, b.classList.contains('filled'),\
                         b.querySelector('.spot-value').textContent,\
                         !!document.querySelector('#sign-form #f{sig}')];"
            ),
            vec![],
        )
        .await;
    assert_eq!(
        shown,
        json!([false, true, "Ada Lovelace", true]),
        "the typed signature shows in place and its input is back in the form"
    );

    // "Next field" goes to the first required field still empty, in reading order.
    let next = b.find("#next-field").await;
    for _ in 0..4 {
        b.click(&next).await;
        let at = b
            .script(
                "const e = document.activeElement;\
                 return [e.getAttribute('data-for'), e.getAttribute('data-kind')];",
                vec![],
            )
            .await;
        let kind = at[1].as_str().unwrap_or_default().to_string();
        match kind.as_str() {
            "text" => {
                b.keys("\u{E007}").await; // Enter opens it, from the keyboard.
                let input = b.find(r#"#field-dialog input[name="text:company"]"#).await;
                b.type_text(&input, "Bakery and Sons").await;
                b.click(&b.find("#dialog-done").await).await;
            }
            "initials" => {
                b.keys("\u{E007}").await;
                let input = b
                    .find(r#"#field-dialog input[name="typed:Client_initials"]"#)
                    .await;
                b.type_text(&input, "AL").await;
                b.click(&b.find("#dialog-done").await).await;
            }
            _ => break,
        }
    }
    // The optional check box ticks where it is tapped.
    let terms = fields.iter().position(|f| f.key == "terms").unwrap();
    let tick = b.find(&format!("button.spot[data-for=\"f{terms}\"]")).await;
    b.script_on("arguments[0].scrollIntoView({block: 'center'});", &tick)
        .await;
    b.click(&tick).await;
    let ticked = b
        .script(
            "return document.querySelector('input[name=\"check:terms\"]').checked;",
            vec![],
        )
        .await;
    assert_eq!(ticked, json!(true));
    b.click(&next).await;
    let done = b
        .script(
            "return [document.getElementById('fields-done').textContent !== '', document.activeElement.id,\
               Array.from(document.querySelectorAll('button.spot.mine'))\
                 .map(b => [b.getAttribute('data-kind'), b.classList.contains('filled'),\
                            b.querySelector('.spot-value').textContent])];",
            vec![],
        )
        .await;
    assert_eq!(
        done[0],
        json!(true),
        "every required field is filled: {done}"
    );
    assert_eq!(done[1], json!("consent"), "{done}");
    let filled: Vec<&Value> = done[2].as_array().unwrap().iter().collect();
    assert!(
        filled.iter().all(|f| f[1] == json!(true)),
        "every field shows its value: {done}"
    );
    assert!(
        filled.contains(&&json!(["text", true, "Bakery and Sons"])),
        "{done}"
    );
    assert!(
        filled.contains(&&json!(["checkbox", true, "\u{2713}"])),
        "{done}"
    );
    let first = b.find("#doc-title").await;
    b.script_on("arguments[0].scrollIntoView({block: 'start'});", &first)
        .await;
    settle().await;
    save("signing-pages-phone-filled.png", &b.viewport_png().await);

    b.click(&b.find("#consent").await).await;
    b.click(&b.find("#sign-button").await).await;
    b.wait_for_text("Thank you for signing").await;

    // The Provider signs through the test helper; the signed copy holds what was typed.
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    let url = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}/files/signed"))
        .await
        .ok(200)["url"]
        .as_str()
        .unwrap()
        .to_string();
    let signed = s.send(s.client.get(&url)).await;
    assert_eq!(signed.status, 200);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("signed.pdf");
    std::fs::write(&file, &signed.body).unwrap();
    let text = tool("pdftotext", &[file.to_str().unwrap(), "-"]);
    for want in ["Ada Lovelace", "Bakery and Sons", "AL"] {
        assert!(text.contains(want), "{want:?} in the signed copy: {text}");
    }
    b.quit().await;
}
