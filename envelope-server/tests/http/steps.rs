//! Signing steps (extensions E13): with `signing_order: true`, signers who share an `order` act
//! together, each step starting when the whole step before it has signed, with the signing
//! requests sent per step. Four signers in three steps, over real HTTP and the signing pages.

use serde_json::{Value, json};

use crate::common::pdf::PdfBuilder;
use crate::common::signing::{form_token, html, link, post_form};
use crate::common::{TestServer, b64};

const ROLES: [&str; 4] = ["Founder A", "Founder B", "Founder C", "Investor"];

/// Signs the signer of `role` on its page: a typed signature in its one field, consent.
async fn sign(s: &TestServer, env: &str, role: &str) {
    let path = link(s, env, role).await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    let csrf = form_token(&page, "sign-form");
    let key = format!("{}_sig", role.replace(' ', "_"));
    let r = post_form(
        s,
        &path,
        &[
            ("csrf", &csrf),
            (&format!("mode:{key}"), "type"),
            (&format!("typed:{key}"), role),
            ("consent", "yes"),
        ],
        Some(&s.base),
    )
    .await;
    assert_eq!(r.status, 200, "{}", html(&r));
}

/// The roles that have been asked to sign (a signing request queued), and the envelope.
async fn asked(s: &TestServer, env: &str) -> (Vec<String>, Value) {
    let got = s
        .get(&s.test_key, &format!("/v1/envelopes/{env}"))
        .await
        .ok(200);
    let roles = got["signers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["last_email"]["kind"] == "signing_request")
        .map(|x| x["role"].as_str().unwrap().to_string())
        .collect();
    (roles, got)
}

/// Whether the signer of `role` may sign now (a link can be had for it).
async fn may_sign(s: &TestServer, env: &str, role: &str) -> bool {
    let r = s
        .post(
            &s.test_key,
            &format!("/v1/envelopes/{env}/signing_url"),
            json!({"signer": role}),
        )
        .await;
    match r.status {
        200 => true,
        _ => {
            r.error(409, "signer_not_actionable");
            false
        }
    }
}

#[tokio::test]
async fn four_signers_in_three_steps() {
    let s = TestServer::start().await;
    let fields: Vec<Value> = ROLES
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({"type": "signature", "role": r, "key": format!("{}_sig", r.replace(' ', "_")),
                   "page": 1, "x": 72, "y": 200 + 80 * i, "width": 200, "height": 40})
        })
        .collect();
    let signers: Vec<Value> = ROLES
        .iter()
        .zip([1, 2, 2, 3])
        .map(|(r, order)| {
            json!({"name": r, "email": format!("{}@example.com", r.replace(' ', ".").to_lowercase()),
                   "role": r, "order": order})
        })
        .collect();
    let pdf = PdfBuilder::new().page(&["Shareholders' agreement"]).build();
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            json!({"file_base64": b64(&pdf), "file_name": "sha.pdf", "signing_order": true,
                   "delivery": "email", "signers": signers, "fields": fields}),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    let orders: Vec<i64> = env["signers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["order"].as_i64().unwrap())
        .collect();
    assert_eq!(orders, vec![1, 2, 2, 3]);

    // Step 1: the first founder alone.
    assert_eq!(asked(&s, id).await.0, vec!["Founder A"]);
    for (role, can) in [
        ("Founder B", false),
        ("Investor", false),
        ("Founder A", true),
    ] {
        assert_eq!(may_sign(&s, id, role).await, can, "{role}");
    }
    sign(&s, id, "Founder A").await;

    // Step 2: both other founders at once, asked together; the investor waits.
    assert_eq!(
        asked(&s, id).await.0,
        vec!["Founder A", "Founder B", "Founder C"]
    );
    for (role, can) in [
        ("Founder B", true),
        ("Founder C", true),
        ("Investor", false),
    ] {
        assert_eq!(may_sign(&s, id, role).await, can, "{role}");
    }
    // Without naming a signer, a link is ambiguous now.
    s.post(
        &s.test_key,
        &format!("/v1/envelopes/{id}/signing_url"),
        json!({}),
    )
    .await
    .error(400, "signer_ambiguous");
    // Within the step any order: C first, and the step is not over until B signs too.
    sign(&s, id, "Founder C").await;
    assert!(!may_sign(&s, id, "Investor").await);
    assert_eq!(asked(&s, id).await.0.len(), 3, "nobody new is asked");
    sign(&s, id, "Founder B").await;

    // Step 3: the investor.
    let (roles, _) = asked(&s, id).await;
    assert_eq!(roles.len(), 4, "{roles:?}");
    sign(&s, id, "Investor").await;
    let (_, done) = asked(&s, id).await;
    assert_eq!(done["status"], "completed");
}
