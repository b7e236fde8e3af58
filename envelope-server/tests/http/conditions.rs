//! Conditional fields (extensions E14): a field with `condition` is shown, required and stamped
//! only while the condition holds. The server is the judge: over the signing page's form post,
//! through the test helper, and in the signed copy. Conditions that read an unknown field, the
//! field itself, or wait on each other are refused on create.

use serde_json::{Value, json};

use crate::common::pdf::PdfBuilder;
use crate::common::signing::{form_token, html, link, post_form};
use crate::common::{TestServer, b64};

/// A form for `Client`: accept (Yes or No, required); why (required text, only when the answer
/// is No); a signature.
fn form(conditions: Value) -> Value {
    let pdf = PdfBuilder::new().page(&["Change request"]).build();
    let mut fields = vec![
        json!({"type": "radio", "role": "Client", "key": "accept", "options": ["Yes", "No"],
               "page": 1, "x": 72, "y": 200, "width": 120, "height": 20}),
        json!({"type": "text", "role": "Client", "key": "why", "label": "Why not?",
               "page": 1, "x": 72, "y": 260, "width": 300, "height": 20,
               "condition": {"field": "accept", "equals": "No"}}),
        json!({"type": "signature", "role": "Client", "key": "sig",
               "page": 1, "x": 72, "y": 400, "width": 200, "height": 40}),
    ];
    if let Value::Array(more) = conditions {
        fields.extend(more);
    }
    json!({"file_base64": b64(&pdf), "file_name": "change.pdf", "delivery": "embedded",
           "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}],
           "fields": fields})
}

async fn signed_text(s: &TestServer, id: &str) -> String {
    crate::kinds::file_text(s, id, "signed").await
}

async fn post(s: &TestServer, path: &str, accept: &str, why: Option<&str>) -> (u16, String) {
    let page = html(&s.send(s.client.get(s.url(path))).await);
    let csrf = form_token(&page, "sign-form");
    let mut pairs = vec![
        ("csrf", csrf.as_str()),
        ("text:accept", accept),
        ("mode:sig", "type"),
        ("typed:sig", "Ada Lovelace"),
        ("consent", "yes"),
    ];
    if let Some(w) = why {
        pairs.push(("text:why", w));
    }
    let r = post_form(s, path, &pairs, Some(&s.base)).await;
    (r.status, html(&r))
}

#[tokio::test]
async fn a_condition_switches_a_field_on_and_off() {
    let s = TestServer::start().await;

    // The page: the conditional field sits in a block the script shows, and is not `required`
    // to the browser (the script makes it so while it shows).
    let env = s
        .post(&s.test_key, "/v1/envelopes", form(json!([])))
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    let path = link(&s, &id, "Client").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(
        page.contains(r#"data-cond-field="accept" data-cond-equals="No" data-required="true""#),
        "{page}"
    );
    assert!(
        page.contains(
            r#"name="text:why" dir="auto" maxlength="1000" value="" aria-describedby="f1-hint" data-req>"#
        ),
        "{page}"
    );

    // No: the reason is required, and stamped.
    let (status, body) = post(&s, &path, "No", None).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("Why not?"),
        "the error names the field: {body}"
    );
    let (status, body) = post(&s, &path, "No", Some("Too expensive")).await;
    assert_eq!(status, 200, "{body}");
    assert!(signed_text(&s, &id).await.contains("Too expensive"));

    // Yes: the reason is not asked for, and a reason sent anyway is not kept or stamped.
    let env = s
        .post(&s.test_key, "/v1/envelopes", form(json!([])))
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    let path = link(&s, &id, "Client").await;
    let (status, body) = post(&s, &path, "Yes", Some("Left over")).await;
    assert_eq!(status, 200, "{body}");
    let text = signed_text(&s, &id).await;
    assert!(
        text.contains("Yes") && !text.contains("Left over"),
        "{text}"
    );

    // The test helper answers the first option (Yes): the required reason does not apply.
    let mut body = form(json!([]));
    body["delivery"] = json!("email");
    let env = s.post(&s.test_key, "/v1/envelopes", body).await.ok(201);
    let id = env["id"].as_str().unwrap().to_string();
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    let text = signed_text(&s, &id).await;
    assert!(!text.contains("Test value"), "{text}");
}

#[tokio::test]
async fn conditions_over_unknown_fields_themselves_or_each_other_are_refused() {
    let s = TestServer::start().await;
    let text = |key: &str, condition: Value| {
        json!({"type": "text", "role": "Client", "key": key, "required": false,
               "page": 1, "x": 72, "y": 500, "width": 100, "height": 20, "condition": condition})
    };
    for (more, param) in [
        (
            json!([text("a", json!({"field": "nope", "filled": true}))]),
            "fields.3.condition.field",
        ),
        (
            json!([text("a", json!({"field": "a", "filled": true}))]),
            "fields.3.condition.field",
        ),
        (
            json!([
                text("a", json!({"field": "b", "filled": true})),
                text("b", json!({"field": "a", "filled": true}))
            ]),
            "fields.3.condition.field",
        ),
        (
            json!([text(
                "a",
                json!({"field": "accept", "equals": "No", "filled": true})
            )]),
            "fields.3.condition",
        ),
        (
            json!([text("a", json!({"field": "accept"}))]),
            "fields.3.condition",
        ),
        (
            json!([text("a", json!({"field": "accept", "equals": 3}))]),
            "fields.3.condition.equals",
        ),
        (
            json!([text(
                "a",
                json!({"field": "accept", "equals": "x".repeat(1001)})
            )]),
            "fields.3.condition.equals",
        ),
        (
            json!([text("a", json!({"field": "accept", "when": 1}))]),
            "fields.3.condition.when",
        ),
        // A chain of eleven: judging one condition must stay a few lookups.
        (
            Value::Array(
                (0..11)
                    .map(|i| {
                        let read = if i == 0 {
                            "accept".to_string()
                        } else {
                            format!("c{}", i - 1)
                        };
                        text(&format!("c{i}"), json!({"field": read, "filled": true}))
                    })
                    .collect(),
            ),
            "fields.13.condition.field",
        ),
    ] {
        let e = s.post(&s.test_key, "/v1/envelopes", form(more)).await;
        assert_eq!(e.status, 400, "{param}: {:?}", e.json());
        assert_eq!(e.json()["param"], param, "{:?}", e.json());
    }
    // A chain is fine: c shows when b is filled, b when accept is No.
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            form(json!([text("c", json!({"field": "why", "filled": true}))])),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    let layout = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}/pages"))
        .await
        .ok(200);
    let c = layout["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["key"] == "c")
        .unwrap()
        .clone();
    assert_eq!(c["condition"], json!({"field": "why", "filled": true}));
}
