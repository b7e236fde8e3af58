//! Computed fields (extensions E14): a `number` field with `formula` is worked out from other
//! number fields, in exact decimals, by the server (the page only shows it as the signer types),
//! read-only for signers, and stamped. Formulas that cannot be worked out (an unknown key, a
//! circle, another signer's field, bad syntax) are refused on create.

use serde_json::{Value, json};

use crate::common::pdf::PdfBuilder;
use crate::common::signing::{form_token, html, link, post_form};
use crate::common::{TestServer, b64};

fn number(key: &str, role: Option<&str>, y: u32, more: Value) -> Value {
    let mut f = json!({"type": "number", "key": key, "page": 1, "x": 72, "y": y,
                       "width": 160, "height": 20});
    if let Some(r) = role {
        f["role"] = json!(r);
    }
    if let Value::Object(m) = more {
        f.as_object_mut().unwrap().extend(m);
    }
    f
}

/// An order form: the sender sets the unit price; the client enters a quantity and an optional
/// discount; the total is computed for the client; the sender's `fees` is computed on create.
fn order(more: Vec<Value>, data: Value) -> Value {
    let pdf = PdfBuilder::new().page(&["Order form"]).build();
    let mut fields = vec![
        number("price", None, 100, json!({})),
        number("qty", Some("Client"), 140, json!({})),
        number("discount", Some("Client"), 180, json!({"required": false})),
        number(
            "total",
            Some("Client"),
            220,
            json!({"label": "Total", "formula": "round({qty} * {price} - {discount}, 2)"}),
        ),
        json!({"type": "signature", "role": "Client", "key": "sig",
               "page": 1, "x": 72, "y": 400, "width": 200, "height": 40}),
    ];
    fields.extend(more);
    json!({"file_base64": b64(&pdf), "file_name": "order.pdf", "delivery": "embedded",
           "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
           "fields": fields, "data": data})
}

async fn signed_text(s: &TestServer, id: &str) -> String {
    crate::kinds::file_text(s, id, "signed").await
}

async fn post(s: &TestServer, path: &str, values: &[(&str, &str)]) -> (u16, String) {
    let page = html(&s.send(s.client.get(s.url(path))).await);
    let csrf = form_token(&page, "sign-form");
    let mut pairs = vec![
        ("csrf", csrf.as_str()),
        ("mode:sig", "type"),
        ("typed:sig", "Ada Lovelace"),
        ("consent", "yes"),
    ];
    pairs.extend_from_slice(values);
    let r = post_form(s, path, &pairs, Some(&s.base)).await;
    (r.status, html(&r))
}

async fn create(s: &TestServer, body: Value) -> String {
    let env = s.post(&s.test_key, "/v1/envelopes", body).await.ok(201);
    env["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_formula_is_computed_by_the_server_and_stamped() {
    let s = TestServer::start().await;
    let id = create(&s, order(vec![], json!({"price": "19.99"}))).await;
    let path = link(&s, &id, "Client").await;

    // The page: an output (never posted) with the formula's tree and the sender's price.
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(
        page.contains(r#"<output id="f2" name="text:total" data-formula=""#),
        "{page}"
    );
    assert!(
        page.contains(r#"data-known="{&quot;price&quot;:&quot;19.99&quot;}""#),
        "{page}"
    );
    assert!(page.contains("&quot;round&quot;"), "{page}");

    // A value sent for the computed field is refused, and the envelope stays signable.
    let (status, body) = post(&s, &path, &[("text:qty", "3"), ("text:total", "1")]).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("computed from its formula"), "{body}");

    // 3 × 19.99 − 0.5 = 59.47, worked out by the server and stamped.
    let (status, body) = post(&s, &path, &[("text:qty", "3"), ("text:discount", "0.5")]).await;
    assert_eq!(status, 200, "{body}");
    let text = signed_text(&s, &id).await;
    assert!(text.contains("59.47"), "{text}");

    // The test helper enters 1 for the required quantity and leaves the discount empty (0).
    let mut body = order(vec![], json!({"price": "19.99"}));
    body["delivery"] = json!("email");
    let id = create(&s, body).await;
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    let text = signed_text(&s, &id).await;
    assert!(text.contains("19.99"), "{text}");
}

#[tokio::test]
async fn decimals_are_exact_and_sender_formulas_are_computed_on_create() {
    let s = TestServer::start().await;
    let more = vec![
        number("a", None, 260, json!({})),
        number("b", None, 300, json!({})),
        number("sum", None, 340, json!({"formula": "{a} + {b}"})),
        number("third", None, 380, json!({"formula": "{a} / 3"})),
    ];
    let body = order(more, json!({"price": "1", "a": "0.1", "b": "0.2"}));
    let id = create(&s, body).await;
    let path = link(&s, &id, "Client").await;
    let (status, body) = post(&s, &path, &[("text:qty", "1")]).await;
    assert_eq!(status, 200, "{body}");
    let text = signed_text(&s, &id).await;
    assert!(
        text.contains("0.3") && !text.contains("0.30000000000000004"),
        "{text}"
    );
    assert!(text.contains("0.0333333333"), "{text}");

    // A value given for a computed sender field is refused.
    let more = vec![number("sum", None, 340, json!({"formula": "{price} * 2"}))];
    let e = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            order(more, json!({"price": "1", "sum": "2"})),
        )
        .await;
    assert_eq!(e.status, 400, "{:?}", e.json());
    assert_eq!(e.json()["param"], "data.sum");
}

#[tokio::test]
async fn a_formula_without_a_value_is_refused_where_it_is_required() {
    let s = TestServer::start().await;
    let more = vec![number(
        "per_unit",
        Some("Client"),
        260,
        json!({"label": "Per unit", "formula": "{price} / {qty}"}),
    )];
    let id = create(&s, order(more, json!({"price": "10"}))).await;
    let path = link(&s, &id, "Client").await;
    let (status, body) = post(&s, &path, &[("text:qty", "0")]).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("Per unit") && body.contains("divides by zero"),
        "{body}"
    );
    let (status, body) = post(&s, &path, &[("text:qty", "4")]).await;
    assert_eq!(status, 200, "{body}");
    assert!(signed_text(&s, &id).await.contains("2.5"));

    // In the signer's language.
    let more = vec![number(
        "per_unit",
        Some("Client"),
        260,
        json!({"label": "Stückpreis", "formula": "{price} / {qty}"}),
    )];
    let mut body = order(more, json!({"price": "10"}));
    body["signers"][0]["locale"] = json!("de");
    let id = create(&s, body).await;
    let path = link(&s, &id, "Client").await;
    let (status, body) = post(&s, &path, &[("text:qty", "0")]).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("„Stückpreis“ wird aus Ihren Eingaben berechnet"),
        "{body}"
    );

    // Optional, it is left empty instead.
    let more = vec![number(
        "per_unit",
        Some("Client"),
        260,
        json!({"required": false, "formula": "{price} / {qty}"}),
    )];
    let id = create(&s, order(more, json!({"price": "10"}))).await;
    let path = link(&s, &id, "Client").await;
    let (status, body) = post(&s, &path, &[("text:qty", "0")]).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn formulas_that_cannot_be_worked_out_are_refused() {
    let s = TestServer::start().await;
    let n = |key: &str, role: Option<&str>, formula: &str| {
        number(
            key,
            role,
            300,
            json!({"required": false, "formula": formula}),
        )
    };
    let text = json!({"type": "text", "role": "Client", "key": "note", "required": false,
                      "page": 1, "x": 72, "y": 500, "width": 100, "height": 20});
    let cases: Vec<(Vec<Value>, &str, &str)> = vec![
        (
            vec![n("x", Some("Client"), "{nope} + 1")],
            "fields.5.formula",
            "no field",
        ),
        (
            vec![n("x", Some("Client"), "{x} + 1")],
            "fields.5.formula",
            "its own",
        ),
        (
            vec![
                n("x", Some("Client"), "{y} + 1"),
                n("y", Some("Client"), "{x} * 2"),
            ],
            "fields.5.formula",
            "circle",
        ),
        (
            vec![text.clone(), n("x", Some("Client"), "{note} + 1")],
            "fields.6.formula",
            "number fields",
        ),
        (
            vec![n("x", Some("Client"), "{qty} ^ 2")],
            "fields.5.formula",
            "'^' at character 7",
        ),
        (
            vec![n("x", Some("Client"), "round({qty}, 11)")],
            "fields.5.formula",
            "round",
        ),
        (
            vec![n("x", None, "{qty} * 2")],
            "fields.5.formula",
            "sender fields only",
        ),
        (
            vec![
                number("other", Some("Witness"), 320, json!({"required": false})),
                json!({"type": "signature", "role": "Witness", "key": "wsig",
                       "page": 1, "x": 300, "y": 400, "width": 200, "height": 40}),
                n("x", Some("Client"), "{other} * 2"),
            ],
            "fields.7.formula",
            "own role",
        ),
        (
            vec![
                json!({"type": "text", "role": "Client", "key": "t", "page": 1, "x": 72,
                        "y": 500, "width": 100, "height": 20, "formula": "1 + 1"}),
            ],
            "fields.5.formula",
            "only number fields",
        ),
        (
            vec![number("x", Some("Client"), 300, json!({"formula": 12}))],
            "fields.5.formula",
            "expected a string",
        ),
        // Hostile sizes answer at once: a formula over 1,000 characters, nesting past 32, a
        // chain of eleven computed fields (judging one must stay a few reads).
        (
            vec![n("x", Some("Client"), &"1+".repeat(501))],
            "fields.5.formula",
            "at most 1000 characters",
        ),
        (
            vec![n(
                "x",
                Some("Client"),
                &format!("{}1{}", "(".repeat(33), ")".repeat(33)),
            )],
            "fields.5.formula",
            "too complex",
        ),
        (
            (0..11)
                .map(|i| {
                    let read = if i == 0 {
                        "qty".to_string()
                    } else {
                        format!("c{}", i - 1)
                    };
                    n(&format!("c{i}"), Some("Client"), &format!("{{{read}}} + 1"))
                })
                .collect(),
            "fields.15.formula",
            "10 deep at most",
        ),
        // A circle through a condition: x shows while total is filled, total reads x.
        (
            vec![
                number(
                    "x",
                    Some("Client"),
                    300,
                    json!({"required": false, "condition": {"field": "total2", "filled": true}}),
                ),
                n("total2", Some("Client"), "{x} + 1"),
            ],
            "fields.5.condition.field",
            "circle",
        ),
    ];
    for (more, param, words) in cases {
        let mut body = order(more, json!({"price": "1"}));
        if body["fields"].to_string().contains("Witness") {
            body["signers"]
                .as_array_mut()
                .unwrap()
                .push(json!({"name": "Wes", "email": "wes@example.com", "role": "Witness"}));
        }
        let e = s.post(&s.test_key, "/v1/envelopes", body).await;
        assert_eq!(e.status, 400, "{param}: {:?}", e.json());
        assert_eq!(e.json()["param"], param, "{:?}", e.json());
        let message = e.json()["message"].as_str().unwrap_or_default().to_string();
        assert!(message.contains(words), "{words}: {message}");
    }
}

#[tokio::test]
async fn tags_carry_conditions_and_formulas() {
    let s = TestServer::start().await;
    let pdf = PdfBuilder::new()
        .page(&[
            "Quantity: {{number:Client:qty}}",
            "Express: {{checkbox:Client:express}}",
            "Fee: {{number:Client:fee:=9.90:if express}}",
            "Total: {{number:Client:total:=round(qty * 12.5 + fee, 2)}}",
            "Why so many? {{text:Client:why:if qty=100}}",
            "Sign: {{signature:Client}}",
        ])
        .build();
    let body = |pdf: &[u8]| {
        json!({"file_base64": b64(pdf), "file_name": "order.pdf", "delivery": "embedded",
               "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}]})
    };
    let env = s
        .post(&s.test_key, "/v1/envelopes", body(&pdf))
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    let layout = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}/pages"))
        .await
        .ok(200);
    let fields = layout["fields"].as_array().unwrap();
    let field = |key: &str| fields.iter().find(|f| f["key"] == key).unwrap().clone();
    assert_eq!(field("fee")["formula"], "9.90");
    assert_eq!(
        field("fee")["condition"],
        json!({"field": "express", "filled": true})
    );
    assert_eq!(field("total")["formula"], "round({qty} * 12.5 + {fee}, 2)");
    assert_eq!(
        field("why")["condition"],
        json!({"field": "qty", "equals": "100"})
    );

    let path = link(&s, &id, "Client").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    let csrf = form_token(&page, "sign-form");
    let pairs = [
        ("csrf", csrf.as_str()),
        ("text:qty", "2"),
        ("check:express", "on"),
        ("mode:Client_signature", "type"),
        ("typed:Client_signature", "Ada Lovelace"),
        ("consent", "yes"),
    ];
    let r = post_form(&s, &path, &pairs, Some(&s.base)).await;
    let (status, body_) = (r.status, html(&r));
    assert_eq!(status, 200, "{body_}");
    let text = signed_text(&s, &id).await;
    assert!(text.contains("9.90") && text.contains("34.90"), "{text}");

    // A tag's formula is checked like an explicit one: the error names the tag's field.
    let bad = PdfBuilder::new()
        .page(&[
            "Total: {{number:Client:total:=qty * price}}",
            "Sign: {{signature:Client}}",
        ])
        .build();
    let e = s.post(&s.test_key, "/v1/envelopes", body(&bad)).await;
    assert_eq!(e.status, 400, "{:?}", e.json());
    assert_eq!(e.json()["param"], "file");
    let message = e.json()["message"].as_str().unwrap().to_string();
    assert!(
        message.contains("the tag of field 'total'") && message.contains("'qty'"),
        "{message}"
    );
}
