//! The signing pages through the real server: what a browser gets and posts, and what the API
//! shows afterwards. (tests/browser drives the same pages in Chromium.)

use std::sync::Arc;

use serde_json::json;

use envelope_core::{ManualClock, Timestamp};
use envelope_server::{FrameAncestors, PageSecret, PageSettings};

use crate::common::signing::{form_token, html, link, post_form, signing_envelope};
use crate::common::{Options, TestServer, b64};

fn client_fields(csrf: &str) -> Vec<(&str, &str)> {
    vec![
        ("csrf", csrf),
        ("text:company", "Zoë's <Bakery>"),
        ("check:terms", "on"),
        ("mode:Client_signature", "type"),
        ("typed:Client_signature", "Ada Lovelace"),
        ("mode:Client_initials", "type"),
        ("typed:Client_initials", "AL"),
        ("consent", "yes"),
    ]
}

#[tokio::test]
async fn the_page_shows_the_signers_fields_with_strict_headers() {
    let s = TestServer::start().await;
    let env = signing_envelope(&s, json!({})).await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;

    let r = s.send(s.client.get(s.url(&path))).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type").as_deref(),
        Some("text/html; charset=utf-8")
    );
    let csp = r.header("content-security-policy").unwrap();
    for directive in [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "frame-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} missing from {csp}");
    }
    assert_eq!(r.header("x-frame-options").as_deref(), Some("DENY"));
    assert_eq!(r.header("referrer-policy").as_deref(), Some("no-referrer"));
    assert_eq!(r.header("cache-control").as_deref(), Some("no-store"));
    assert_eq!(
        r.header("x-content-type-options").as_deref(),
        Some("nosniff")
    );

    let page = html(&r);
    // The Client's fields in document order, each with a label tied to its control.
    let order: Vec<usize> = [
        r#"name="text:company""#,
        r#"name="check:terms""#,
        r#"name="typed:Client_signature""#,
        r#"name="typed:Client_initials""#,
        "Filled in automatically",
    ]
    .iter()
    .map(|needle| {
        page.find(needle)
            .unwrap_or_else(|| panic!("{needle} missing"))
    })
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert!(page.contains(r#"<label for="f0">Company"#));
    assert!(page.contains(r#"<label for="consent">I agree to sign electronically"#));
    assert!(
        !page.contains("Provider_signature"),
        "only this signer's fields"
    );
    // The pages as pictures (relative to the page), and the PDF one link away.
    assert!(page.contains(r#"src="../sign/"#) && page.contains("/document/1/page/1\""));
    assert!(page.contains("/document/1\""));
    assert!(
        !page.contains("<script>") && !page.contains(" style="),
        "no inline code"
    );
    assert!(!form_token(&page, "sign-form").is_empty());

    // A plain GET marked the signer viewed.
    let env = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(env["signers"][0]["status"], "viewed");

    // The document, inline, framable by the page only.
    let d = s
        .send(s.client.get(s.url(&format!("{path}/document"))))
        .await;
    assert_eq!(d.status, 200);
    assert_eq!(d.header("content-type").as_deref(), Some("application/pdf"));
    assert!(
        d.header("content-disposition")
            .unwrap()
            .starts_with("inline; filename=\"supply.pdf\"")
    );
    assert!(
        d.header("content-security-policy")
            .unwrap()
            .contains("frame-ancestors 'self'")
    );
    assert!(d.body.starts_with(b"%PDF"));
    // The document's content is kept by no cache, shared or the browser's own.
    assert_eq!(d.header("cache-control").as_deref(), Some("no-store"));

    // Assets.
    let js = s.send(s.client.get(s.url("/assets/signing.js"))).await;
    assert_eq!(js.status, 200);
    assert!(
        js.header("content-type")
            .unwrap()
            .starts_with("text/javascript")
    );
    let css = s.send(s.client.get(s.url("/assets/signing.css"))).await;
    assert!(css.header("content-type").unwrap().starts_with("text/css"));
    // The typed-signature face the style sheet names: the core's own font file.
    assert!(String::from_utf8_lossy(&css.body).contains(r#"url("signature.ttf")"#));
    let font = s.send(s.client.get(s.url("/assets/signature.ttf"))).await;
    assert_eq!(font.status, 200);
    assert_eq!(font.header("content-type").as_deref(), Some("font/ttf"));
    assert_eq!(&font.body[..], envelope_core::service::SIGNATURE_FONT);
    assert_eq!(
        s.send(s.client.get(s.url("/assets/other.js"))).await.status,
        404
    );
}

#[tokio::test]
async fn signing_by_form_post_completes_the_envelope() {
    let s = TestServer::start().await;
    let env = signing_envelope(&s, json!({"signing_order": true})).await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    let csrf = form_token(&page, "sign-form");

    let r = post_form(&s, &path, &client_fields(&csrf), Some(&s.base)).await;
    let done = html(&r);
    assert_eq!(r.status, 200, "{done}");
    assert!(done.contains("Thank you for signing"), "{done}");
    assert!(done.contains(r#"data-event="envelope.signed""#));
    assert!(done.contains(&format!(r#"data-envelope="{id}""#)));
    // The pages after a post sit one level deeper only for /decline.
    assert!(done.contains(r#"href="../assets/signing.css""#));

    // The link is spent: reloading shows the state, without the event.
    let again = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(again.contains("You have signed") && !again.contains("data-event"));

    let provider = link(&s, id, "Provider").await;
    let page = html(&s.send(s.client.get(s.url(&provider))).await);
    let csrf = form_token(&page, "sign-form");
    let r = post_form(
        &s,
        &provider,
        &[
            ("csrf", &csrf),
            ("mode:Provider_signature", "type"),
            ("typed:Provider_signature", "Paul Provider"),
            ("consent", "yes"),
        ],
        Some(&s.base),
    )
    .await;
    assert!(html(&r).contains("Everyone has signed"), "{}", html(&r));
    let env = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(env["status"], "completed");
    // A completed envelope's link shows that, and no longer serves the form.
    let after = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(after.contains("Everyone has signed") && !after.contains("sign-form"));
}

#[tokio::test]
async fn posts_from_elsewhere_or_without_the_pages_token_are_refused() {
    let s = TestServer::start().await;
    let env = signing_envelope(&s, json!({})).await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    let csrf = form_token(&page, "sign-form");
    let decline_csrf = form_token(&page, "decline-form");
    assert_ne!(csrf, decline_csrf);

    let evil = post_form(
        &s,
        &path,
        &client_fields(&csrf),
        Some("https://evil.example"),
    )
    .await;
    assert_eq!(evil.status, 403);
    let cross = s
        .send(
            s.client
                .post(s.url(&path))
                .header("content-type", "application/x-www-form-urlencoded")
                .header("origin", "null")
                .header("sec-fetch-site", "cross-site")
                .body(format!("csrf={csrf}&consent=yes")),
        )
        .await;
    assert_eq!(cross.status, 403);
    let forged = post_form(&s, &path, &client_fields("AAAA"), Some(&s.base)).await;
    assert_eq!(forged.status, 403);
    let swapped = post_form(&s, &path, &client_fields(&decline_csrf), Some(&s.base)).await;
    assert_eq!(swapped.status, 403);
    let declined_with_sign_token = post_form(
        &s,
        &format!("{path}/decline"),
        &[("csrf", &csrf)],
        Some(&s.base),
    )
    .await;
    assert_eq!(declined_with_sign_token.status, 403);
    let json = s
        .send(
            s.client
                .post(s.url(&path))
                .header("content-type", "application/json")
                .body("{}"),
        )
        .await;
    assert_eq!(json.status, 415);
    // A token from a server with another secret is no good either.
    let other =
        PageSecret::random().form_token(envelope_server::signing_page::Action::Sign, &path[6..]);
    assert_eq!(
        post_form(&s, &path, &client_fields(&other), None)
            .await
            .status,
        403
    );

    let env = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(env["signers"][0]["status"], "viewed", "nothing was signed");
}

#[tokio::test]
async fn missing_consent_or_fields_show_the_form_again_with_the_problem() {
    let s = TestServer::start().await;
    let env = signing_envelope(&s, json!({})).await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    let csrf = form_token(&page, "sign-form");

    let mut fields = client_fields(&csrf);
    fields.retain(|(k, _)| *k != "consent");
    let r = post_form(&s, &path, &fields, Some(&s.base)).await;
    assert_eq!(r.status, 400);
    let again = html(&r);
    assert!(again.contains(r#"role="alert" id="form-error""#));
    assert!(again.contains("I agree to sign electronically” to sign"));
    // What was typed is kept, escaped.
    assert!(
        again.contains(r#"value="Zoë&#39;s &lt;Bakery&gt;""#),
        "{again}"
    );

    let mut fields = client_fields(&csrf);
    fields.retain(|(k, _)| *k != "text:company");
    let r = post_form(&s, &path, &fields, Some(&s.base)).await;
    assert_eq!(r.status, 400);
    assert!(
        html(&r).contains("Please fill in “Company”."),
        "{}",
        html(&r)
    );

    let mut fields = client_fields(&csrf);
    fields.push(("mode:Client_signature", "draw"));
    fields.push((
        "drawn:Client_signature",
        "data:image/png;base64,bm90IGEgcG5n",
    ));
    let r = post_form(&s, &path, &fields, Some(&s.base)).await;
    assert_eq!(r.status, 400);
    assert!(
        html(&r).contains("“Signature” was not accepted"),
        "{}",
        html(&r)
    );

    let env = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(env["signers"][0]["status"], "viewed");
}

#[tokio::test]
async fn declining_voids_with_the_reason_and_every_value_is_escaped() {
    let s = TestServer::start().await;
    let env = signing_envelope(
        &s,
        json!({
            "name": "<img src=x onerror=alert(1)>",
            "signers": [
                {"name": "<script>alert(2)</script>", "email": "x@example.com", "role": "Client"},
                {"name": "Paul", "email": "paul@example.com", "role": "Provider"}
            ],
            "message": "Hi \"there\" & <b>welcome</b>"
        }),
    )
    .await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;
    let provider = link(&s, id, "Provider").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(!page.contains("<script>alert") && !page.contains("<img src=x"));
    assert!(page.contains("&lt;script&gt;alert(2)&lt;/script&gt;"));
    assert!(page.contains("Hi &quot;there&quot; &amp; &lt;b&gt;welcome&lt;/b&gt;"));
    let csrf = form_token(&page, "decline-form");

    let r = post_form(
        &s,
        &format!("{path}/decline"),
        &[("csrf", &csrf), ("reason", "Wrong <address>")],
        Some(&s.base),
    )
    .await;
    let declined = html(&r);
    assert_eq!(r.status, 200, "{declined}");
    assert!(declined.contains("You declined to sign"));
    assert!(declined.contains(r#"data-event="envelope.declined""#));
    assert!(declined.contains(r#"href="../../assets/signing.css""#));

    let env = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(env["status"], "voided");
    assert_eq!(env["void_reason"], "declined by Client: Wrong <address>");

    let again = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(again.contains("You declined to sign") && !again.contains("data-event"));

    // The other signer's link now shows the cancellation with the reason, escaped.
    let provider_page = html(&s.send(s.client.get(s.url(&provider))).await);
    assert!(provider_page.contains("This envelope was cancelled"));
    assert!(provider_page.contains("declined by Client: Wrong &lt;address&gt;"));
    let d = s
        .send(s.client.get(s.url(&format!("{provider}/document"))))
        .await;
    assert_eq!(d.status, 404, "a voided envelope's document is gone");
}

#[tokio::test]
async fn voided_expired_and_unknown_links_have_their_pages() {
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-01-15T08:00:00.000Z").unwrap(),
    ));
    let s = TestServer::start_with(Options {
        clock: Some(clock.clone()),
        ..Options::default()
    })
    .await;
    let env = signing_envelope(&s, json!({})).await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;
    s.post(
        &s.test_key,
        &format!("/v1/envelopes/{id}/void"),
        json!({"reason": "Terms changed <see mail>"}),
    )
    .await
    .ok(200);
    let r = s.send(s.client.get(s.url(&path))).await;
    assert_eq!(r.status, 200);
    let page = html(&r);
    assert!(page.contains("This envelope was cancelled"));
    assert!(page.contains("Terms changed &lt;see mail&gt;"));

    let env = signing_envelope(&s, json!({"expires_in_days": 1})).await;
    let path = link(&s, env["id"].as_str().unwrap(), "Client").await;
    clock.advance(chrono::Duration::days(2));
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(page.contains("This link has expired"), "{page}");

    let unknown = s
        .send(
            s.client
                .get(s.url("/sign/Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg")),
        )
        .await;
    assert_eq!(unknown.status, 404);
    let page = html(&unknown);
    assert!(page.contains("This link is not valid"));
    assert!(!page.contains("Zm9vYmFy"), "the token is not echoed");
    assert!(unknown.header("content-security-policy").is_some());
    let odd = s.send(s.client.get(s.url("/sign/a/b/c"))).await;
    assert_eq!(odd.status, 404);
    let method = s.send(s.client.delete(s.url(&path))).await;
    assert_eq!(method.status, 405);
    assert_eq!(method.header("allow").as_deref(), Some("GET, POST"));
}

#[tokio::test]
async fn configured_sites_may_frame_the_pages() {
    let s = TestServer::start_with(Options {
        pages: Some(PageSettings {
            frame_ancestors: FrameAncestors::parse("https://app.example.com").unwrap(),
            secret: PageSecret::random(),
        }),
        ..Options::default()
    })
    .await;
    let env = signing_envelope(&s, json!({})).await;
    let path = link(&s, env["id"].as_str().unwrap(), "Client").await;
    let r = s.send(s.client.get(s.url(&path))).await;
    assert!(
        r.header("content-security-policy")
            .unwrap()
            .ends_with("frame-ancestors https://app.example.com")
    );
    assert_eq!(r.header("x-frame-options"), None);
    let d = s
        .send(s.client.get(s.url(&format!("{path}/document"))))
        .await;
    assert!(
        d.header("content-security-policy")
            .unwrap()
            .contains("frame-ancestors 'self' https://app.example.com")
    );
}

/// A 24x8 RGBA PNG with a diagonal stroke and a `tEXt` chunk, as a drawing pad might send it.
const INK_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAABgAAAAICAYAAADjoT9jAAAAF3RFWHRDb21tZW50AGZyb20gdGhlIHNpZ25lclawGRQAAAA0SURBVHicY+ASqfiPhBmojdEFqG4ZPkmqWEasQrItI8dVJFlGaRgTtIyaKQarZdS0AKtlAI6eiGngRayzAAAAAElFTkSuQmCC";

#[tokio::test]
async fn a_junk_drawing_is_refused_on_arrival_and_the_envelope_still_completes() {
    let s = TestServer::start().await;
    let env = signing_envelope(&s, json!({"signing_order": true})).await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    let csrf = form_token(&page, "sign-form");

    // The reported attack: the PNG magic followed by junk (and a chunk header the png crate
    // used to describe with its Debug output).
    let mut junk = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    junk.extend_from_slice(&[0xAB; 64]);
    let junk = format!("data:image/png;base64,{}", b64(&junk));
    let mut fields = client_fields(&csrf);
    fields.push(("mode:Client_signature", "draw"));
    fields.push(("drawn:Client_signature", &junk));
    let r = post_form(&s, &path, &fields, Some(&s.base)).await;
    let refused = html(&r);
    assert_eq!(r.status, 400, "{refused}");
    assert!(
        refused.contains("“Signature” was not accepted: the drawing is not a readable PNG image."),
        "{refused}"
    );
    assert!(!refused.contains("ChunkType") && !refused.contains("Thank you for signing"));

    // Typed text the fonts cannot draw faithfully is refused too, naming the character.
    let mut fields = client_fields(&csrf);
    fields.retain(|(k, _)| *k != "typed:Client_signature");
    fields.push(("typed:Client_signature", "Ada \u{202E}ecalevol"));
    let r = post_form(&s, &path, &fields, Some(&s.base)).await;
    assert_eq!(r.status, 400);
    assert!(html(&r).contains("invisible formatting character (U+202E)"));

    // The same signer then draws for real; the drawing is accepted (and stored re-encoded).
    let ink = format!("data:image/png;base64,{INK_PNG}");
    let mut fields = client_fields(&csrf);
    fields.push(("mode:Client_signature", "draw"));
    fields.push(("drawn:Client_signature", &ink));
    let r = post_form(&s, &path, &fields, Some(&s.base)).await;
    assert_eq!(r.status, 200, "{}", html(&r));
    assert!(html(&r).contains("Thank you for signing"));

    let done = s
        .post_empty(
            &s.test_key,
            &format!("/v1/test_helpers/envelopes/{id}/complete"),
        )
        .await
        .ok(200);
    assert_eq!(done["status"], "completed");
    assert_eq!(done["files"], json!({"signed": true, "audit_trail": true}));
}
