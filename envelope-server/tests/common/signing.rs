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
