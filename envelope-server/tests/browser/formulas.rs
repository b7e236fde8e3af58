//! Computed fields in Chromium (extensions E14): the page works out an order's total as the
//! signer types (a conditional express fee included), and the signed copy has the very digits
//! the page showed, worked out again by the server. Writes `signing-formula.png`.

use serde_json::json;

use super::common::pdf::PdfBuilder;
use super::common::signing::link;
use super::common::{TestServer, b64};
use super::webdriver::{Driver, Session};
use super::{get_json, save, settle};

async fn output(b: &Session, id: &str) -> String {
    b.script(
        &format!("return document.getElementById('{id}').value;"),
        vec![],
    )
    .await
    .as_str()
    .unwrap()
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_total_is_worked_out_as_the_signer_types() {
    let driver = Driver::start().await;
    let s = TestServer::start().await;
    let pdf = PdfBuilder::new().page(&["Order form"]).build();
    let number = |key: &str, role: Option<&str>, label: &str, y: u32| {
        let mut f = json!({"type": "number", "key": key, "label": label, "page": 1,
                           "x": 300, "y": y, "width": 160, "height": 20});
        if let Some(r) = role {
            f["role"] = json!(r);
        }
        f
    };
    let mut fee = number("express_fee", Some("Client"), "Express fee", 220);
    fee["formula"] = json!("9.90");
    fee["condition"] = json!({"field": "express", "equals": true});
    let mut total = number("total", Some("Client"), "Total", 260);
    total["formula"] = json!("round({qty} * {price} + {express_fee}, 2)");
    let mut vat = number("vat", Some("Client"), "Of which VAT (20%)", 300);
    vat["formula"] = json!("round({total} / 6, 2)");
    let mut each = number("each", Some("Client"), "Per item", 340);
    each["formula"] = json!("{total} / {qty}");
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"file_base64": b64(&pdf), "file_name": "order.pdf", "delivery": "embedded",
                   "name": "Order form",
                   "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
                   "data": {"price": "12.50"},
                   "fields": [
                       number("price", None, "Unit price", 100),
                       number("qty", Some("Client"), "Quantity", 140),
                       {"type": "checkbox", "role": "Client", "key": "express",
                        "label": "Express delivery (9.90)",
                        "page": 1, "x": 300, "y": 180, "width": 14, "height": 14},
                       fee, total, vat, each,
                       {"type": "signature", "role": "Client", "key": "sig",
                        "page": 1, "x": 72, "y": 420, "width": 200, "height": 40}]}),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let b = driver.session(profile.path()).await;
    b.set_window(1280, 900).await;
    b.goto(&s.url(&link(&s, id, "Client").await)).await;
    b.wait_for_text("Quantity").await;
    // Fields in the form: qty f0, express f1, fee f2, total f3, vat f4, each f5.
    assert_eq!(output(&b, "f3").await, "0.00", "nothing entered yet");
    assert_eq!(
        output(&b, "f5").await,
        "",
        "per item divides by an empty quantity"
    );

    let qty = b.find("#f0").await;
    b.type_text(&qty, "3").await;
    assert_eq!(output(&b, "f3").await, "37.50");
    assert_eq!(output(&b, "f2").await, "", "no express fee while unticked");

    b.click(&b.find("#f1").await).await;
    assert_eq!(output(&b, "f2").await, "9.90");
    assert_eq!(output(&b, "f3").await, "47.40");
    assert_eq!(output(&b, "f4").await, "7.90");
    assert_eq!(output(&b, "f5").await, "15.80");
    let readonly = b
        .script(
            "return document.querySelectorAll('input[name=\"text:total\"]').length;",
            vec![],
        )
        .await;
    assert_eq!(readonly.as_i64(), Some(0), "a computed field has no input");

    let sig = b.find(r#"input[name="typed:sig"]"#).await;
    b.type_text(&sig, "Ada Lovelace").await;
    b.script_on("arguments[0].scrollIntoView({block: 'center'});", &qty)
        .await;
    settle().await;
    save("signing-formula.png", &b.viewport_png().await);

    b.click(&b.find("#consent").await).await;
    b.click(&b.find("#sign-button").await).await;
    b.wait_for_text("Thank you for signing").await;
    let env = get_json(&s, &format!("/v1/envelopes/{id}")).await;
    assert_eq!(env["status"], "completed");

    // The server's digits are the page's.
    let text = super::common::file_text(&s, id, "signed").await;
    for want in ["9.90", "47.40", "7.90", "15.80"] {
        assert!(text.contains(want), "{want} in {text}");
    }
    b.quit().await;
}
