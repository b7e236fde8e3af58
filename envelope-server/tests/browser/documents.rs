//! A two-document envelope signed in Chromium (extensions E5): the page shows each document's
//! pages as pictures (issue 18), links each document's PDF, and lists the signer's fields under
//! each document's name; a text field and a radio
//! group (extensions E6) in the first document, a select and a typed signature in the second;
//! each signed copy holds only its own document's values. Writes `signing-two-documents.png`.

use serde_json::{Value, json};

use super::common::pdf::PdfBuilder;
use super::common::signing::link;
use super::common::{TestServer, b64};
use super::webdriver::Driver;
use super::{get_json, save, settle, tool};

async fn signed_text(s: &TestServer, id: &str, n: u32) -> String {
    let file = get_json(s, &format!("/v1/envelopes/{id}/files/signed?document={n}")).await;
    let pdf = s.send(s.client.get(file["url"].as_str().unwrap())).await;
    assert_eq!(pdf.status, 200);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("signed.pdf");
    std::fs::write(&path, &pdf.body).unwrap();
    tool("pdftotext", &[path.to_str().unwrap(), "-"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_document_envelope_is_signed_in_chromium() {
    let driver = Driver::start().await;
    let s = TestServer::start().await;
    let terms = PdfBuilder::new()
        .page(&[
            "Terms of supply",
            "Company: {{text:Client:company}}",
            "Plan: {{radio:Client:plan:Basic|Pro}}",
        ])
        .build();
    let annex = PdfBuilder::new()
        .page(&[
            "Annex: prices",
            "Colour: {{select:Client:colour:Red|Green}}",
            "Client: {{signature:Client}}",
        ])
        .build();
    let env: Value = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({
                "name": "Supply",
                "delivery": "embedded",
                "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
                "files": [
                    {"file_name": "terms.pdf", "file_base64": b64(&terms)},
                    {"file_name": "annex.pdf", "file_base64": b64(&annex)},
                ],
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

    // Each document's pages as pictures, in order, and a link to each document's own PDF.
    let sheets = b
        .script(
            "return Array.from(document.querySelectorAll('.sheet')).map(s => \
               [s.getAttribute('data-document'), s.getAttribute('data-page'), \
                s.querySelector('img.page-img').getAttribute('src')]);",
            vec![],
        )
        .await;
    let sheets = sheets.as_array().unwrap();
    assert_eq!(sheets.len(), 2, "{sheets:?}");
    for (i, sheet) in sheets.iter().enumerate() {
        let n = (i + 1).to_string();
        assert_eq!(
            (sheet[0].as_str(), sheet[1].as_str()),
            (Some(n.as_str()), Some("1"))
        );
        assert!(
            sheet[2]
                .as_str()
                .unwrap()
                .ends_with(&format!("/document/{n}/page/1"))
        );
    }
    let links = b
        .script(
            "return Array.from(document.querySelectorAll('section.document a[href]'))\
               .map(a => a.getAttribute('href'));",
            vec![],
        )
        .await;
    let links: Vec<&str> = links
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(links.len(), 2, "{links:?}");
    assert!(links[0].ends_with("/document/1") && links[1].ends_with("/document/2"));
    // Each link serves its own document, and each picture is a PNG (fetched beside the
    // browser: the page's policy lets no script fetch).
    let page = url::Url::parse(&s.url(&path)).unwrap();
    for (src, original) in links.iter().zip([&terms, &annex]) {
        let r = s.send(s.client.get(page.join(src).unwrap().as_str())).await;
        assert_eq!(r.status, 200, "{src}");
        assert_eq!(r.header("content-type").as_deref(), Some("application/pdf"));
        assert!(r.body.starts_with(original), "{src}");
    }
    for sheet in sheets {
        let src = sheet[2].as_str().unwrap();
        let r = s.send(s.client.get(page.join(src).unwrap().as_str())).await;
        assert_eq!(r.status, 200, "{src}");
        assert_eq!(r.header("content-type").as_deref(), Some("image/png"));
        assert!(r.body.starts_with(b"\x89PNG"), "{src}");
    }
    // The fields under each document's name.
    let legends = b
        .script(
            "return Array.from(document.querySelectorAll('fieldset.document-fields')).map(f => \
               [f.querySelector('legend').textContent, \
                Array.from(new Set(Array.from(f.querySelectorAll('input[name], select[name]'))\
                  .map(i => i.name).filter(n => !n.startsWith('mode:'))))]);",
            vec![],
        )
        .await;
    assert_eq!(
        legends,
        json!([
            ["terms.pdf", ["text:company", "text:plan"]],
            [
                "annex.pdf",
                [
                    "text:colour",
                    "typed:Client_signature",
                    "drawn:Client_signature"
                ]
            ]
        ]),
        "{legends}"
    );
    settle().await;
    save("signing-two-documents.png", &b.viewport_png().await);

    // The text, a radio button clicked, an option chosen by typing on the select, then the
    // typed signature (Type is the default), consent, Sign.
    let company = b.find(r#"input[name="text:company"]"#).await;
    b.type_text(&company, "Bakery and Sons").await;
    b.click(&b.find(r#"input[name="text:plan"][value="Pro"]"#).await)
        .await;
    let colour = b.find(r#"select[name="text:colour"]"#).await;
    b.type_text(&colour, "Green").await;
    let chosen = b
        .script(
            "return [document.querySelector('input[name=\"text:plan\"]:checked').value, \
               document.querySelector('select[name=\"text:colour\"]').value];",
            vec![],
        )
        .await;
    assert_eq!(chosen, json!(["Pro", "Green"]));
    let typed = b.find(r#"input[name="typed:Client_signature"]"#).await;
    b.type_text(&typed, "Ada Lovelace").await;
    b.click(&b.find("#consent").await).await;
    b.click(&b.find("#sign-button").await).await;
    b.wait_for_text("Everyone has signed").await;
    b.quit().await;

    let env = get_json(&s, &format!("/v1/envelopes/{id}")).await;
    assert_eq!(env["status"], "completed", "{env}");
    let first = signed_text(&s, id, 1).await;
    let second = signed_text(&s, id, 2).await;
    // Each copy holds only its own document's values: the radio's choice in the first, the
    // select's in the second.
    assert!(
        first.contains("Bakery and Sons") && first.contains("Pro"),
        "{first}"
    );
    assert!(
        !first.contains("Ada Lovelace") && !first.contains("Green"),
        "{first}"
    );
    assert!(
        second.contains("Ada Lovelace") && second.contains("Green"),
        "{second}"
    );
    assert!(!second.contains("Bakery and Sons"), "{second}");
    assert!(!first.contains("{{") && !second.contains("{{"));
}
