//! Conditional edits (extensions E11): `ETag` on reads and edits of envelopes and templates,
//! `If-Match` on their `PATCH`, `409 edit_conflict` when the object changed since it was read.

use serde_json::{Value, json};

use crate::common::pdf::{client_contract, two_party_contract};
use crate::common::{Resp, TestServer, b64, client_signer, envelope_body};

/// A PATCH with `If-Match: if_match`.
async fn patch_if(s: &TestServer, path: &str, if_match: &str, body: Value) -> Resp {
    s.send(
        s.client
            .patch(s.url(path))
            .bearer_auth(&s.test_key)
            .header("If-Match", if_match)
            .json(&body),
    )
    .await
}

/// The `ETag` of a response, asserted to be a strong tag of digits.
#[track_caller]
fn etag(r: &Resp) -> String {
    let tag = r.header("etag").expect("an ETag header");
    let digits = tag
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or_else(|| panic!("not a strong tag: {tag}"));
    assert!(
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()),
        "{tag}"
    );
    tag
}

/// Checks the whole contract on one object at `path`, whose edit `n` sets `member` to
/// `value(n)`.
async fn edits_are_conditional(s: &TestServer, path: &str, member: &str, value: fn(u32) -> Value) {
    let edit = |n: u32| json!({ member: value(n) });
    let read = s.get(&s.test_key, path).await;
    read.ok(200);
    let first = etag(&read);
    // Reading again gives the same tag (the envelope's comes from its kept view then).
    assert_eq!(etag(&s.get(&s.test_key, path).await), first);

    // The current tag: the edit applies, and the answer names the new version.
    let r = patch_if(s, path, &first, edit(1)).await;
    assert_eq!(r.ok(200)[member], value(1));
    let second = etag(&r);
    assert_ne!(second, first);
    assert_eq!(etag(&s.get(&s.test_key, path).await), second);

    // The tag read before that edit: 409, the current tag, nothing written.
    let before = s.get(&s.test_key, path).await.ok(200);
    let r = patch_if(s, path, &first, edit(2)).await;
    let b = r.error(409, "edit_conflict");
    assert_eq!(b["type"], "invalid_request_error");
    assert!(
        b["message"].as_str().unwrap().contains("Read it again"),
        "{b}"
    );
    assert_eq!(etag(&r), second);
    let after = s.get(&s.test_key, path).await;
    assert_eq!(after.ok(200), before, "nothing written");
    assert_eq!(etag(&after), second);

    // A list with the current tag among others applies.
    let r = patch_if(s, path, &format!("\"999999\", {second}"), edit(3)).await;
    assert_eq!(r.ok(200)[member], value(3));
    let third = etag(&r);

    // A weak tag never matches, even of the current version (strong comparison).
    let r = patch_if(s, path, &format!("W/{third}"), edit(4)).await;
    r.error(409, "edit_conflict");
    assert_eq!(etag(&r), third);

    // `*` matches any version; no If-Match edits as before.
    let r = patch_if(s, path, "*", edit(5)).await;
    assert_eq!(r.ok(200)[member], value(5));
    let fourth = etag(&r);
    assert_ne!(fourth, third);
    let r = s.patch(&s.test_key, path, edit(6)).await;
    assert_eq!(r.ok(200)[member], value(6));
    assert_ne!(etag(&r), fourth);

    // A value that is not entity tags: 400 on the header, nothing written.
    let before = s.get(&s.test_key, path).await.ok(200);
    for bad in ["7", "\"7", "*, \"7\"", "w/\"7\""] {
        let b = patch_if(s, path, bad, edit(7))
            .await
            .error(400, "parameter_invalid");
        assert_eq!(b["param"], "If-Match", "{bad}: {b}");
    }
    assert_eq!(s.get(&s.test_key, path).await.ok(200), before);
}

#[tokio::test]
async fn draft_edits_are_conditional_on_the_etag() {
    let s = TestServer::start().await;
    let mut body = envelope_body(&client_contract(), client_signer());
    body["send"] = json!(false);
    let env = s.post(&s.test_key, "/v1/envelopes", body).await.ok(201);
    let path = format!("/v1/envelopes/{}", env["id"].as_str().unwrap());
    edits_are_conditional(&s, &path, "metadata", |n| json!({"v": n.to_string()})).await;

    // The precondition is checked before the state: a sent envelope with a stale tag is a
    // conflict; with the current tag, a correction (extensions E14); once voided, with the
    // current tag, a state error.
    let tag = etag(&s.get(&s.test_key, &path).await);
    s.post_empty(&s.test_key, &format!("{path}/send"))
        .await
        .ok(200);
    let r = patch_if(&s, &path, &tag, json!({"subject": "Late"})).await;
    r.error(409, "edit_conflict");
    let now = etag(&r);
    assert_eq!(etag(&s.get(&s.test_key, &path).await), now);
    let r = patch_if(&s, &path, &now, json!({"subject": "Late"})).await;
    assert_eq!(r.ok(200)["status"], "sent");
    s.post_empty(&s.test_key, &format!("{path}/void"))
        .await
        .ok(200);
    let r = patch_if(&s, &path, &tag, json!({"subject": "Later"})).await;
    r.error(409, "edit_conflict");
    let now = etag(&r);
    patch_if(&s, &path, &now, json!({"subject": "Later"}))
        .await
        .error(409, "invalid_state");
}

#[tokio::test]
async fn template_edits_are_conditional_on_the_etag() {
    let s = TestServer::start().await;
    let t = s
        .post(
            &s.test_key,
            "/v1/templates",
            json!({"name": "T", "file_base64": b64(&two_party_contract()), "file_name": "t.pdf"}),
        )
        .await
        .ok(201);
    let path = format!("/v1/templates/{}", t["id"].as_str().unwrap());
    edits_are_conditional(&s, &path, "name", |n| json!(format!("Version {n}"))).await;
}
