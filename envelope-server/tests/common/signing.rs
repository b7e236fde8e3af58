//! Helpers for the signing pages: envelopes with fields for a page, links, form tokens, posts.

use serde_json::{Value, json};

use super::pdf::signing_contract;
use super::{Resp, TestServer, b64};

/// Creates a sent envelope from [`signing_contract`] for `Client` and `Provider`; `extra`
/// parameters are merged in (delivery, signing_order, names...).
pub async fn signing_envelope(s: &TestServer, extra: Value) -> Value {
    let mut body = json!({
        "file_base64": b64(&signing_contract()),
        "file_name": "supply.pdf",
        "name": "Supply agreement",
        "delivery": "embedded",
        "signers": [
            {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"},
            {"name": "Paul Provider", "email": "paul@example.com", "role": "Provider"}
        ],
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    s.post(&s.test_key, "/v1/envelopes", body).await.ok(201)
}

/// A signing link for `role` (path and query of the URL, relative to the server).
pub async fn link(s: &TestServer, envelope: &str, role: &str) -> String {
    let v = s
        .post(
            &s.test_key,
            &format!("/v1/envelopes/{envelope}/signing_url"),
            json!({ "signer": role }),
        )
        .await
        .ok(200);
    let url = v["url"].as_str().unwrap();
    let path = url
        .strip_prefix(&s.base)
        .expect("links point at this server");
    assert!(path.starts_with("/sign/"), "{url}");
    path.to_string()
}

/// The value of the hidden `csrf` input of the form with this id.
pub fn form_token(html: &str, form_id: &str) -> String {
    let form = html
        .split(&format!(r#"id="{form_id}""#))
        .nth(1)
        .unwrap_or_else(|| panic!("no form {form_id} in the page"));
    let rest = form.split(r#"name="csrf" value=""#).nth(1).unwrap();
    rest.split('"').next().unwrap().to_string()
}

/// A urlencoded form post with an `Origin` header (as browsers send it), if given.
pub async fn post_form(
    s: &TestServer,
    path: &str,
    pairs: &[(&str, &str)],
    origin: Option<&str>,
) -> Resp {
    let body: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    let mut req = s
        .client
        .post(s.url(path))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body);
    if let Some(o) = origin {
        req = req.header("origin", o);
    }
    s.send(req).await
}

/// The page body as text.
pub fn html(r: &Resp) -> String {
    String::from_utf8(r.body.to_vec()).unwrap()
}

/// Signs [`signing_envelope`]'s document as its Client on the signing page at `path` (company,
/// terms, typed signature and initials, consent); asserts a 200 and returns the page.
pub async fn sign_as_client(s: &TestServer, path: &str) -> String {
    let page = html(&s.send(s.client.get(s.url(path))).await);
    let csrf = form_token(&page, "sign-form");
    let r = post_form(
        s,
        path,
        &[
            ("csrf", &csrf),
            ("text:company", "Zoë's Bakery"),
            ("check:terms", "on"),
            ("mode:Client_signature", "type"),
            ("typed:Client_signature", "Ada Lovelace"),
            ("mode:Client_initials", "type"),
            ("typed:Client_initials", "AL"),
            ("consent", "yes"),
        ],
        Some(&s.base),
    )
    .await;
    assert_eq!(r.status, 200, "{}", html(&r));
    html(&r)
}

/// Signs [`signing_envelope`]'s document as its Provider on the signing page at `path` (typed
/// signature, consent); asserts a 200 and returns the page.
pub async fn sign_as_provider(s: &TestServer, path: &str) -> String {
    let page = html(&s.send(s.client.get(s.url(path))).await);
    let csrf = form_token(&page, "sign-form");
    let r = post_form(
        s,
        path,
        &[
            ("csrf", &csrf),
            ("mode:Provider_signature", "type"),
            ("typed:Provider_signature", "Paul Provider"),
            ("consent", "yes"),
        ],
        Some(&s.base),
    )
    .await;
    assert_eq!(r.status, 200, "{}", html(&r));
    html(&r)
}
