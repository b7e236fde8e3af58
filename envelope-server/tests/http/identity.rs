//! Verifying a signer's identity (extensions E2) through the real server: `auth` on the signer
//! object and its errors, reassign with `auth`, and the code step of the signing pages: every
//! route of a link answers without the grant and none of them leaks the PDF or acts.

use std::sync::Arc;

use serde_json::{Value, json};

use chrono::Duration;

use envelope_core::mail::EmailKind;
use envelope_core::{ManualClock, MemoryMailer, Timestamp};

use crate::common::signing::{form_token, html, link, post_form, signing_envelope};
use crate::common::{Options, Resp, TestServer};

fn with_auth(client_auth: Value) -> Value {
    json!({"signers": [
        {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client", "auth": client_auth},
        {"name": "Paul Provider", "email": "paul@example.com", "role": "Provider"}
    ]})
}

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// A form post with a cookie, not following redirects.
async fn post_with(
    s: &TestServer,
    path: &str,
    pairs: &[(&str, &str)],
    cookie: Option<&str>,
) -> Resp {
    let body: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    let mut req = no_redirects()
        .post(s.url(path))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", &s.base)
        .body(body);
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    s.send(req).await
}

async fn get_with(s: &TestServer, path: &str, cookie: Option<&str>) -> Resp {
    let mut req = s.client.get(s.url(path));
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    s.send(req).await
}

#[tokio::test]
async fn signers_show_auth_by_method_and_bad_auth_is_a_400() {
    let s = TestServer::start().await;
    let env = signing_envelope(
        &s,
        with_auth(json!({"method": "access_code", "access_code": "Tulip-4821"})),
    )
    .await;
    assert_eq!(env["signers"][0]["auth"], json!({"method": "access_code"}));
    assert_eq!(env["signers"][1]["auth"], Value::Null, "{env}");
    assert!(!env.to_string().contains("Tulip-4821"));
    let id = env["id"].as_str().unwrap();
    let got = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(got["signers"][0]["auth"], json!({"method": "access_code"}));
    assert!(!got.to_string().contains("Tulip"));

    // A seed request: the same answer as before, plus `auth: null`.
    let plain = signing_envelope(&s, json!({})).await;
    for signer in plain["signers"].as_array().unwrap() {
        assert_eq!(signer["auth"], Value::Null);
    }

    for (auth, code, param) in [
        (
            json!({"method": "access_code", "access_code": "12"}),
            "parameter_invalid",
            "signers.0.auth.access_code",
        ),
        (
            json!({"method": "access_code"}),
            "parameter_missing",
            "signers.0.auth.access_code",
        ),
        (
            json!({"method": "voice"}),
            "parameter_invalid",
            "signers.0.auth.method",
        ),
        (
            json!({"method": "email_code", "code": "1"}),
            "parameter_unknown",
            "signers.0.auth.code",
        ),
    ] {
        let mut body = with_auth(auth.clone());
        body["file_base64"] = json!(crate::common::b64(&crate::common::pdf::signing_contract()));
        body["file_name"] = json!("supply.pdf");
        let e = s
            .post(&s.test_key, "/v1/envelopes", body)
            .await
            .error(400, code);
        assert_eq!(e["param"], param, "{auth}");
    }

    // Multipart: the signers part is JSON text, read the same way.
    let form = reqwest::multipart::Form::new()
        .text(
            "signers",
            json!([{"name": "A", "email": "a@example.com", "role": "Client",
                    "auth": {"method": "access_code", "access_code": "1\u{7}23"}}])
            .to_string(),
        )
        .part(
            "file",
            reqwest::multipart::Part::bytes(crate::common::pdf::signing_contract())
                .file_name("supply.pdf"),
        );
    let r = s
        .send(
            s.client
                .post(s.url("/v1/envelopes"))
                .bearer_auth(&s.test_key)
                .multipart(form),
        )
        .await;
    let e = r.error(400, "parameter_invalid");
    assert_eq!(e["param"], "signers.0.auth.access_code");

    // Reassign takes `auth` now; a bad one names `auth.*`.
    let signer = env["signers"][0]["id"].as_str().unwrap();
    let path = format!("/v1/envelopes/{id}/signers/{signer}/reassign");
    let e = s
        .post(
            &s.test_key,
            &path,
            json!({"name": "Nora", "email": "nora@example.net", "auth": {"method": "access_code", "access_code": "x"}}),
        )
        .await
        .error(400, "parameter_invalid");
    assert_eq!(e["param"], "auth.access_code");
    let after = s
        .post(
            &s.test_key,
            &path,
            json!({"name": "Nora", "email": "nora@example.net", "auth": {"method": "email_code"}}),
        )
        .await
        .ok(200);
    assert_eq!(after["signers"][0]["auth"], json!({"method": "email_code"}));
    let after = s
        .post(
            &s.test_key,
            &path,
            json!({"name": "Nora", "email": "nora@example.net"}),
        )
        .await
        .ok(200);
    assert_eq!(
        after["signers"][0]["auth"],
        Value::Null,
        "no auth unless given"
    );
}

#[tokio::test]
async fn no_route_of_the_link_leaks_or_acts_without_the_code() {
    let s = TestServer::start().await;
    let env = signing_envelope(
        &s,
        with_auth(json!({"method": "access_code", "access_code": "Tulip-4821"})),
    )
    .await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;
    let token = path.trim_start_matches("/sign/").to_string();

    // The page is the code step: nothing of the document, the name included.
    let r = get_with(&s, &path, None).await;
    assert_eq!(r.status, 200);
    let page = html(&r);
    assert!(page.contains("Enter your access code"), "{page}");
    assert!(page.contains(r#"autocomplete="one-time-code""#));
    assert!(page.contains("5 attempts left"));
    assert!(!page.contains("/document") && !page.contains("Supply agreement"));
    assert!(!page.contains("<script>") && !page.contains(" style="));
    assert!(
        r.header("content-security-policy")
            .unwrap()
            .contains("script-src 'self'")
    );
    let verify_csrf = form_token(&page, "code-form");

    // The document, the sign post and the decline post: refused, no PDF, nothing done.
    let d = get_with(&s, &format!("{path}/document"), None).await;
    assert_eq!(d.status, 403);
    assert!(!d.body.starts_with(b"%PDF"));
    // A document by number (extensions E5) is guarded the same way.
    let d = get_with(&s, &format!("{path}/document/1"), None).await;
    assert_eq!(d.status, 403);
    assert!(!d.body.starts_with(b"%PDF"));
    assert_eq!(
        d.header("content-type").as_deref(),
        Some("text/html; charset=utf-8")
    );
    let r = post_form(
        &s,
        &path,
        &[("csrf", "x"), ("consent", "yes")],
        Some(&s.base),
    )
    .await;
    assert_eq!(r.status, 403);
    assert!(html(&r).contains("Enter your access code"));
    let r = post_form(
        &s,
        &format!("{path}/decline"),
        &[("csrf", "x"), ("reason", "no")],
        Some(&s.base),
    )
    .await;
    assert_eq!(r.status, 403);
    let now = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200);
    assert_eq!(now["status"], "sent");
    assert_eq!(now["signers"][0]["status"], "pending", "not even viewed");
    // A forged grant is no grant.
    let d = get_with(
        &s,
        &format!("{path}/document"),
        Some("envelope_grant=forged1"),
    )
    .await;
    assert_eq!(d.status, 403);

    // The verify post: a form token is required, a wrong code counts.
    let r = post_with(
        &s,
        &format!("{path}/verify"),
        &[("code", "Tulip-4821")],
        None,
    )
    .await;
    assert_eq!(r.status, 403, "no form token");
    let r = post_with(
        &s,
        &format!("{path}/verify"),
        &[("csrf", &verify_csrf), ("code", "wrong")],
        None,
    )
    .await;
    assert_eq!(r.status, 400);
    let page = html(&r);
    assert!(
        page.contains(r#"role="alert""#) && page.contains("4 attempts left"),
        "{page}"
    );
    assert!(r.header("set-cookie").is_none());

    // The right code: a strict cookie scoped to the link, and back to the page. This server's
    // signing host is plain http://127.0.0.1: not `Secure` (tests below show https).
    let r = post_with(
        &s,
        &format!("{path}/verify"),
        &[("csrf", &verify_csrf), ("code", "Tulip-4821")],
        None,
    )
    .await;
    assert_eq!(r.status, 303);
    assert_eq!(
        r.header("location").as_deref(),
        Some(format!("../{token}").as_str())
    );
    let set = r.header("set-cookie").unwrap();
    assert!(set.starts_with("envelope_grant="), "{set}");
    let path_attr = format!("Path=/sign/{token};");
    for attr in [
        path_attr.as_str(),
        "HttpOnly",
        "SameSite=Strict",
        "Max-Age=43200",
    ] {
        assert!(set.contains(attr), "{attr} missing from {set}");
    }
    assert!(!set.contains("Secure"), "{set}");
    let cookie = set.split(';').next().unwrap().to_string();

    // With the grant: the page, the document, signing.
    let page = html(&get_with(&s, &path, Some(&cookie)).await);
    assert!(
        page.contains("Supply agreement") && page.contains("/document"),
        "{page}"
    );
    let d = get_with(&s, &format!("{path}/document"), Some(&cookie)).await;
    assert_eq!(d.status, 200);
    assert!(d.body.starts_with(b"%PDF"));
    let one = get_with(&s, &format!("{path}/document/1"), Some(&cookie)).await;
    assert_eq!((one.status, &one.body), (200, &d.body));
    for n in ["2", "0", "01x", "99999999999"] {
        let r = get_with(&s, &format!("{path}/document/{n}"), Some(&cookie)).await;
        assert_eq!(r.status, 404, "document/{n}");
        assert!(!r.body.starts_with(b"%PDF"));
    }
    let csrf = form_token(&page, "sign-form");
    let r = post_with(
        &s,
        &path,
        &[
            ("csrf", csrf.as_str()),
            ("text:company", "Zoë's Bakery"),
            ("check:terms", "on"),
            ("mode:Client_signature", "type"),
            ("typed:Client_signature", "Ada Lovelace"),
            ("mode:Client_initials", "type"),
            ("typed:Client_initials", "AL"),
            ("consent", "yes"),
        ],
        Some(&cookie),
    )
    .await;
    assert_eq!(r.status, 200, "{}", html(&r));
    assert!(html(&r).contains("Thank you for signing"));
    // The code routes take POST only.
    let r = get_with(&s, &format!("{path}/verify"), None).await;
    assert_eq!(
        (r.status, r.header("allow").as_deref()),
        (405, Some("POST"))
    );
}

#[tokio::test]
async fn five_wrong_codes_lock_the_link_and_emailed_codes_arrive() {
    let mail = Arc::new(MemoryMailer::new());
    let s = TestServer::start_with(Options {
        mailer: Some(mail.clone()),
        ..Options::default()
    })
    .await;
    let env = signing_envelope(&s, with_auth(json!({"method": "email_code"}))).await;
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;
    let codes = || -> Vec<_> {
        mail.sent()
            .into_iter()
            .filter(|e| e.kind == EmailKind::Code)
            .collect()
    };

    // Opening the link (as a mail system's link scanner does) sends nothing, however often;
    // the page offers to send a code, and shows the signer's first name only.
    for _ in 0..3 {
        let page = html(&get_with(&s, &path, None).await);
        assert!(page.contains("Enter the code we emailed you"), "{page}");
        assert!(page.contains("Send me a code"), "{page}");
        assert!(page.contains("Hello Ada,"), "{page}");
        assert!(
            !page.contains("Lovelace") && !page.contains("example.com"),
            "{page}"
        );
    }
    s.svc.settle_emails().await;
    assert!(codes().is_empty(), "a GET emailed a code");
    let page = html(&get_with(&s, &path, None).await);
    let send_csrf = form_token(&page, "send-code-form");

    // The signer's POST sends one; the page then says so and offers a new one.
    let r = post_with(
        &s,
        &format!("{path}/send-code"),
        &[("csrf", &send_csrf)],
        None,
    )
    .await;
    assert_eq!(r.status, 200);
    let page = html(&r);
    assert!(page.contains("A new code is on its way"), "{page}");
    assert!(page.contains("Send a new code") && page.contains(r#"inputmode="numeric""#));
    assert!(
        !page.contains("example.com"),
        "no address, not even masked: {page}"
    );
    s.svc.settle_emails().await;
    assert_eq!(codes().len(), 1);
    let verify_csrf = form_token(&page, "code-form");

    // A new code within the minute: refused, with the wait.
    let r = post_with(
        &s,
        &format!("{path}/send-code"),
        &[("csrf", &send_csrf)],
        None,
    )
    .await;
    assert_eq!(r.status, 429);
    assert!(html(&r).contains("less than a minute ago"));
    s.svc.settle_emails().await;
    assert_eq!(codes().len(), 1);

    for left in ["4 attempts", "3 attempts", "2 attempts", "1 attempt "] {
        let r = post_with(
            &s,
            &format!("{path}/verify"),
            &[("csrf", &verify_csrf), ("code", "000000x")],
            None,
        )
        .await;
        assert_eq!(r.status, 400);
        assert!(html(&r).contains(left), "{left}: {}", html(&r));
    }
    let r = post_with(
        &s,
        &format!("{path}/verify"),
        &[("csrf", &verify_csrf), ("code", "000000x")],
        None,
    )
    .await;
    assert_eq!(r.status, 429);
    let page = html(&r);
    assert!(page.contains("The link is locked until"), "{page}");
    // Locked: even the right code is refused, and no grant is set.
    let code = codes()[0]
        .text
        .split_whitespace()
        .find(|w| w.len() == 6 && w.bytes().all(|b| b.is_ascii_digit()))
        .unwrap()
        .to_string();
    let r = post_with(
        &s,
        &format!("{path}/verify"),
        &[("csrf", &verify_csrf), ("code", &code)],
        None,
    )
    .await;
    assert_eq!(r.status, 429);
    assert!(r.header("set-cookie").is_none());
    let page = html(&get_with(&s, &path, None).await);
    assert!(page.contains("The link is locked until"), "{page}");
}

/// At most one code a minute and ten a day per signer: the eleventh is refused on the page,
/// in the signer's language, with the time a new one may be asked for.
#[tokio::test]
async fn ten_code_emails_a_day_and_the_page_says_when_the_next_may_come() {
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T09:00:00.000Z").unwrap(),
    ));
    let mail = Arc::new(MemoryMailer::new());
    let s = TestServer::start_with(Options {
        mailer: Some(mail.clone()),
        clock: Some(clock.clone()),
        ..Options::default()
    })
    .await;
    let mut body = with_auth(json!({"method": "email_code"}));
    body["signers"][0]["locale"] = json!("fr");
    let env = signing_envelope(&s, body).await;
    let path = link(&s, env["id"].as_str().unwrap(), "Client").await;
    let page = html(&get_with(&s, &path, None).await);
    assert!(page.contains("M’envoyer un code"), "{page}");
    let csrf = form_token(&page, "send-code-form");
    let send_path = format!("{path}/send-code");
    let pairs = [("csrf", csrf.as_str())];
    let send = || post_with(&s, &send_path, &pairs, None);
    for n in 0..10 {
        assert_eq!(send().await.status, 200, "code {n}");
        clock.advance(Duration::minutes(1));
    }
    let r = send().await;
    assert_eq!(r.status, 429);
    let page = html(&r);
    assert!(
        page.contains("Trop de codes ont été envoyés aujourd’hui") && page.contains("09:00 UTC"),
        "{page}"
    );
    s.svc.settle_emails().await;
    let sent = mail
        .sent()
        .into_iter()
        .filter(|e| e.kind == EmailKind::Code)
        .count();
    assert_eq!(sent, 10);
    // A day after the first, one more may go.
    clock.set(Timestamp::parse("2027-03-11T09:00:00.000Z").unwrap());
    assert_eq!(send().await.status, 200);
}

/// The grant cookie follows the signing host's scheme: `Secure` on https (here a signing host
/// in front of this server), not on plain http (the tests above), where a browser would refuse
/// it on any host but localhost.
#[tokio::test]
async fn the_grant_cookie_is_secure_on_an_https_signing_host() {
    let s = TestServer::start_with(Options {
        settings: Some(envelope_core::Settings {
            signing_host: Some("https://sign.example.com/app".into()),
            ..envelope_core::Settings::default()
        }),
        ..Options::default()
    })
    .await;
    let env = signing_envelope(
        &s,
        with_auth(json!({"method": "access_code", "access_code": "4821"})),
    )
    .await;
    let v = s
        .post(
            &s.test_key,
            &format!("/v1/envelopes/{}/signing_url", env["id"].as_str().unwrap()),
            json!({"signer": "Client"}),
        )
        .await
        .ok(200);
    let url = v["url"].as_str().unwrap();
    let token = url
        .strip_prefix("https://sign.example.com/app/sign/")
        .unwrap();
    // The proxy in front strips /app: this server serves /sign/{token}.
    let path = format!("/sign/{token}");
    let page = html(&get_with(&s, &path, None).await);
    let csrf = form_token(&page, "code-form");
    let r = post_with(
        &s,
        &format!("{path}/verify"),
        &[("csrf", &csrf), ("code", "4821")],
        None,
    )
    .await;
    assert_eq!(r.status, 303);
    let set = r.header("set-cookie").unwrap();
    let expected =
        format!("Path=/app/sign/{token}; Max-Age=43200; HttpOnly; Secure; SameSite=Strict");
    assert!(set.ends_with(&expected), "{set}");
}

/// Embedded signing: a `Strict` cookie is never sent inside a cross-site frame, so a verify
/// post from a frame (where framing is allowed) gets a partitioned `SameSite=None` cookie.
#[tokio::test]
async fn a_framed_code_step_gets_a_partitioned_cookie() {
    use envelope_server::{FrameAncestors, PageSecret, PageSettings};
    let s = TestServer::start_with(Options {
        pages: Some(PageSettings {
            frame_ancestors: FrameAncestors::parse("https://app.example.com").unwrap(),
            secret: PageSecret::random(),
        }),
        ..Options::default()
    })
    .await;
    let env = signing_envelope(
        &s,
        with_auth(json!({"method": "access_code", "access_code": "4821"})),
    )
    .await;
    let path = link(&s, env["id"].as_str().unwrap(), "Client").await;
    let page = html(&get_with(&s, &path, None).await);
    let csrf = form_token(&page, "code-form");
    let body: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([("csrf", csrf.as_str()), ("code", "4821")])
        .finish();
    let r = s
        .send(
            no_redirects()
                .post(s.url(&format!("{path}/verify")))
                .header("content-type", "application/x-www-form-urlencoded")
                .header("sec-fetch-site", "same-origin")
                .header("sec-fetch-dest", "iframe")
                .body(body),
        )
        .await;
    assert_eq!(r.status, 303);
    let set = r.header("set-cookie").unwrap();
    assert!(
        set.ends_with("HttpOnly; Secure; SameSite=None; Partitioned"),
        "{set}"
    );
    let cookie = set.split(';').next().unwrap();
    let d = get_with(&s, &format!("{path}/document"), Some(cookie)).await;
    assert!(d.body.starts_with(b"%PDF"));
}

/// A stranger holding the link posts a huge "code": refused as too large before it is read
/// (the code step's 4 KiB cap), without counting as an attempt; and a long code that fits the
/// cap is one wrong attempt, not a slow one.
#[tokio::test]
async fn oversized_code_posts_are_refused_before_they_are_read() {
    let s = TestServer::start().await;
    let env = signing_envelope(
        &s,
        with_auth(json!({"method": "access_code", "access_code": "Tulip-4821"})),
    )
    .await;
    let path = link(&s, env["id"].as_str().unwrap(), "Client").await;
    let page = html(&get_with(&s, &path, None).await);
    let csrf = form_token(&page, "code-form");

    let huge = "9".repeat(2_000_000);
    let r = post_with(
        &s,
        &format!("{path}/verify"),
        &[("csrf", &csrf), ("code", &huge)],
        None,
    )
    .await;
    assert_eq!(r.status, 413);
    let page = html(&get_with(&s, &path, None).await);
    assert!(page.contains("5 attempts left"), "{page}");

    let long = "9".repeat(3_000);
    let r = post_with(
        &s,
        &format!("{path}/verify"),
        &[("csrf", &csrf), ("code", &long)],
        None,
    )
    .await;
    assert_eq!(r.status, 400);
    assert!(html(&r).contains("4 attempts left"));
}
