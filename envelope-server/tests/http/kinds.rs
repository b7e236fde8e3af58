//! Approvers, viewers and in-person signing (extensions E13), over real HTTP and the signing
//! pages: an approver approves or declines on its page, a viewer finishes by opening the link,
//! an in-person signer's request goes to the host and the page asks for the hand-over; the
//! emails say what each is asked, and the audit trail what each did.

use std::sync::Arc;

use envelope_core::MemoryMailer;
use serde_json::{Value, json};

use crate::common::pdf::PdfBuilder;
use crate::common::signing::{form_token, html, link, post_form};
use crate::common::{Options, Resp, TestServer, b64};

/// A one-page contract with a signature field for `Client`, signed in steps by `signers`.
fn body(signers: Value) -> Value {
    let pdf = PdfBuilder::new().page(&["Purchase order 2027-114"]).build();
    json!({
        "file_base64": b64(&pdf), "file_name": "order.pdf", "name": "Purchase order",
        "delivery": "email", "signing_order": true, "signers": signers,
        "fields": [{"type": "signature", "role": "Client", "key": "client_sig",
                    "page": 1, "x": 72, "y": 300, "width": 200, "height": 40}],
    })
}

async fn server() -> (TestServer, Arc<MemoryMailer>) {
    let mail = Arc::new(MemoryMailer::new());
    let s = TestServer::start_with(Options {
        mailer: Some(mail.clone()),
        ..Options::default()
    })
    .await;
    (s, mail)
}

/// The emails sent so far to `address`, as (subject, text).
async fn mail_to(s: &TestServer, mail: &MemoryMailer, address: &str) -> Vec<(String, String)> {
    s.svc.settle_emails().await;
    mail.sent()
        .into_iter()
        .filter(|e| e.to.email == address)
        .map(|e| (e.subject, e.text))
        .collect()
}

/// Signs as the Client on its page: a typed signature, consent.
async fn sign_client(s: &TestServer, env: &str) {
    let path = link(s, env, "Client").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    let csrf = form_token(&page, "sign-form");
    let r = post_typed(s, &path, &csrf, "client_sig", "Ada Lovelace").await;
    assert_eq!(r.status, 200, "{}", html(&r));
}

async fn envelope(s: &TestServer, id: &str) -> Value {
    s.get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200)
}

fn signer<'a>(env: &'a Value, role: &str) -> &'a Value {
    env["signers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["role"] == role)
        .unwrap()
}

pub use crate::common::file_text;

/// The audit trail's words in one line (its rows wrap).
pub async fn audit_text(s: &TestServer, id: &str) -> String {
    file_text(s, id, "audit_trail")
        .await
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Asserts that `text` says each of `said`.
pub fn says(text: &str, said: &[&str]) {
    for x in said {
        assert!(text.contains(x), "{x:?} not in {text}");
    }
}

/// Posts the signing form at `path` with a typed signature in field `key`, and consent.
async fn post_typed(s: &TestServer, path: &str, csrf: &str, key: &str, name: &str) -> Resp {
    post_form(
        s,
        path,
        &[
            ("csrf", csrf),
            (&format!("mode:{key}"), "type"),
            (&format!("typed:{key}"), name),
            ("consent", "yes"),
        ],
        Some(&s.base),
    )
    .await
}

#[tokio::test]
async fn a_signer_then_an_approver_then_a_viewer() {
    let (s, mail) = server().await;
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            body(json!([
                {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client", "order": 1},
                {"name": "Lee Legal", "email": "lee@example.com", "role": "Legal", "order": 2,
                 "kind": "approver"},
                {"name": "Bo Board", "email": "bo@example.com", "role": "Board", "order": 3,
                 "kind": "viewer"},
            ])),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    let kinds: Vec<&str> = env["signers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["signer", "approver", "viewer"]);
    assert!(env["signers"][0]["in_person"].is_null());

    sign_client(&s, id).await;

    // The approver is asked to approve, and approves on its page: no fields, its own words.
    let asked = mail_to(&s, &mail, "lee@example.com").await;
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].0.contains("Please approve: Purchase order"),
        "{asked:?}"
    );
    assert!(asked[0].1.contains("review and approve"), "{asked:?}");
    let path = link(&s, id, "Legal").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(page.contains("<title>Approve Purchase order"), "{page}");
    assert!(page.contains("I agree to approve electronically"), "{page}");
    assert!(page.contains(">Approve</button>"), "{page}");
    assert!(page.contains("Decline to approve"), "{page}");
    assert!(!page.contains("typed:"), "an approver fills no fields");
    let csrf = form_token(&page, "sign-form");
    // Without consent, nothing is approved.
    let r = post_form(&s, &path, &[("csrf", &csrf)], Some(&s.base)).await;
    assert_eq!(r.status, 400, "{}", html(&r));
    assert_eq!(signer(&envelope(&s, id).await, "Legal")["status"], "viewed");
    let r = post_form(
        &s,
        &path,
        &[("csrf", &csrf), ("consent", "yes")],
        Some(&s.base),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(html(&r).contains("You approved"), "{}", html(&r));
    let now = envelope(&s, id).await;
    let legal = signer(&now, "Legal");
    assert_eq!(legal["status"], "completed");
    assert!(legal["signed_at"].is_string());
    assert_eq!(now["status"], "sent");

    // The viewer is asked to view; opening the link finishes the envelope, and the page shows
    // the document.
    let asked = mail_to(&s, &mail, "bo@example.com").await;
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].0.contains("Shared with you: Purchase order"),
        "{asked:?}"
    );
    let path = link(&s, id, "Board").await;
    let r = s.send(s.client.get(s.url(&path))).await;
    assert_eq!(r.status, 200);
    let page = html(&r);
    assert!(page.contains("You have viewed this document"), "{page}");
    assert!(page.contains("/document"), "the document is shown: {page}");
    assert!(!page.contains("sign-form"), "a viewer has no form");
    let done = envelope(&s, id).await;
    assert_eq!(done["status"], "completed");
    let board = signer(&done, "Board");
    assert_eq!(board["status"], "completed");
    assert_eq!(board["viewed_at"], board["signed_at"]);
    // Opening again shows the document again (the signed copy now), changing nothing.
    let again = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(again.contains("You have viewed this document"), "{again}");
    // A post to a viewer's link changes nothing: it answers with the same page.
    let r = post_form(
        &s,
        &path,
        &[("csrf", &csrf), ("consent", "yes")],
        Some(&s.base),
    )
    .await;
    assert!(html(&r).contains("You have viewed this document"));
    assert_eq!(envelope(&s, id).await["signers"], done["signers"]);

    // Events as for signers, each naming the kind.
    let events = s
        .get(&s.test_key, "/v1/events?type=envelope.signer_completed")
        .await
        .ok(200);
    let completed: Vec<(&str, &str)> = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let sg = &e["data"]["signer"];
            (sg["role"].as_str().unwrap(), sg["kind"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        completed,
        [
            ("Board", "viewer"),
            ("Legal", "approver"),
            ("Client", "signer")
        ]
    );

    says(
        &audit_text(&s, id).await,
        &[
            "Approval request sent",
            "Approved Lee Legal <lee@example.com>",
            "agreed to approve electronically",
            "Viewing request sent",
            "Finished by viewing Bo Board <bo@example.com>",
            // The signers' table: labels, then values.
            "Signer ID Kind IP address",
            "Approver (approves or declines; fills no fields)",
            "Viewer (finishes by opening the document)",
            "Viewed Approved Declined",
            "Viewed Finished (viewed) Declined",
            "Signed Ada Lovelace <ada@example.com>",
        ],
    );
}

#[tokio::test]
async fn an_approver_who_declines_voids_the_envelope() {
    let (s, _mail) = server().await;
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            body(json!([
                {"name": "Lee Legal", "email": "lee@example.com", "role": "Legal", "order": 1,
                 "kind": "approver"},
                {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client", "order": 2},
            ])),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Legal").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    let csrf = form_token(&page, "decline-form");
    let r = post_form(
        &s,
        &format!("{path}/decline"),
        &[("csrf", &csrf), ("reason", "Wrong price")],
        Some(&s.base),
    )
    .await;
    assert_eq!(r.status, 200, "{}", html(&r));
    let now = envelope(&s, id).await;
    assert_eq!(now["status"], "voided");
    assert_eq!(now["void_reason"], "declined by Legal: Wrong price");
    assert_eq!(signer(&now, "Legal")["status"], "declined");
}

#[tokio::test]
async fn fields_go_to_signers_only_and_bad_kinds_or_hosts_are_refused() {
    let (s, _mail) = server().await;
    let cases = [
        // The Client role has a signature field: an approver cannot take it.
        (
            json!([{"name": "A", "email": "a@example.com", "role": "Client", "kind": "approver"}]),
            "signers.0.kind",
        ),
        (
            json!([{"name": "A", "email": "a@example.com", "role": "Client", "kind": "viewer"}]),
            "signers.0.kind",
        ),
        (
            json!([{"name": "A", "email": "a@example.com", "role": "Client", "kind": "boss"}]),
            "signers.0.kind",
        ),
        (
            json!([{"name": "A", "email": "a@example.com", "role": "Client"},
                   {"name": "V", "email": "v@example.com", "kind": "viewer",
                    "in_person": {"host_name": "H", "host_email": "h@example.com"}}]),
            "signers.1.in_person",
        ),
        (
            json!([{"name": "A", "email": "a@example.com", "role": "Client",
                    "in_person": {"host_name": "H", "host_email": "not an address"}}]),
            "signers.0.in_person.host_email",
        ),
        (
            json!([{"name": "A", "email": "a@example.com", "role": "Client",
                    "in_person": {"host_email": "h@example.com"}}]),
            "signers.0.in_person.host_name",
        ),
        (
            json!([{"name": "A", "email": "a@example.com", "role": "Client",
                    "in_person": {"host_name": "H", "host_email": "h@example.com", "x": 1}}]),
            "signers.0.in_person.x",
        ),
    ];
    for (signers, param) in cases {
        let e = s.post(&s.test_key, "/v1/envelopes", body(signers)).await;
        assert_eq!(e.status, 400, "{param}: {:?}", e.json());
        assert_eq!(e.json()["param"], param, "{:?}", e.json());
    }
    // An approver and a viewer need no signature field; the test helper completes them.
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            body(json!([
                {"name": "A", "email": "a@example.com", "role": "Client"},
                {"name": "L", "email": "l@example.com", "role": "Legal", "kind": "approver"},
                {"name": "V", "email": "v@example.com", "role": "Board", "kind": "viewer"},
            ])),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    let done = s
        .post_empty(
            &s.test_key,
            &format!("/v1/test_helpers/envelopes/{id}/complete"),
        )
        .await
        .ok(200);
    assert_eq!(done["status"], "completed");
}

#[tokio::test]
async fn an_in_person_signing_goes_through_its_host() {
    let (s, mail) = server().await;
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            body(json!([
                {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client",
                 "in_person": {"host_name": "Hal Host", "host_email": "hal@bank.example"}},
            ])),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    assert_eq!(
        env["signers"][0]["in_person"],
        json!({"host_name": "Hal Host", "host_email": "hal@bank.example"})
    );
    // The request goes to the host, greeting the host and naming the signer; none to the signer.
    let to_host = mail_to(&s, &mail, "hal@bank.example").await;
    assert_eq!(to_host.len(), 1, "{to_host:?}");
    assert!(
        to_host[0].0.contains("In-person signing: Purchase order"),
        "{to_host:?}"
    );
    assert!(to_host[0].1.starts_with("Hello Hal Host,"), "{to_host:?}");
    assert!(
        to_host[0]
            .1
            .contains("signing of \"Purchase order\" by Ada Lovelace"),
        "{to_host:?}"
    );
    assert!(mail_to(&s, &mail, "ada@example.com").await.is_empty());

    // The link asks the host to hand the device over; nothing of the document shows yet, and
    // the signer has not viewed anything.
    let path = link(&s, id, "Client").await;
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(
        page.contains("Please hand this device to Ada Lovelace"),
        "{page}"
    );
    assert!(
        page.contains("Hal Host is hosting the in-person signing"),
        "{page}"
    );
    assert!(
        !page.contains("sign-form") && !page.contains("/document"),
        "{page}"
    );
    assert_eq!(
        signer(&envelope(&s, id).await, "Client")["status"],
        "pending"
    );
    let next = page
        .split(r#"id="hand-over" href=""#)
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(next.ends_with("/in-person"), "{next}");

    // Handed over: the signer's page, then signing as usual.
    let handed = format!("{path}/in-person");
    let page = html(&s.send(s.client.get(s.url(&handed))).await);
    assert!(page.contains("sign-form"), "{page}");
    assert_eq!(
        signer(&envelope(&s, id).await, "Client")["status"],
        "viewed"
    );
    let csrf = form_token(&page, "sign-form");
    let r = post_typed(&s, &path, &csrf, "client_sig", "Ada Lovelace").await;
    assert_eq!(r.status, 200, "{}", html(&r));
    assert_eq!(envelope(&s, id).await["status"], "completed");
    says(
        &audit_text(&s, id).await,
        &[
            "in person: sent to the host Hal Host <hal@bank.example>",
            "agreed to sign electronically; in person, hosted by Hal Host <hal@bank.example>",
            "Signer ID In person IP address",
            "Link emailed Ada Lovelace <ada@example.com> To hal@bank.example",
        ],
    );
    // The signed copy goes to the signer, not the host.
    let completed = mail_to(&s, &mail, "ada@example.com").await;
    assert_eq!(completed.len(), 1, "{completed:?}");
}

#[tokio::test]
async fn in_person_with_an_access_code_hands_over_then_asks_for_the_code() {
    let (s, _mail) = server().await;
    let env = s
        .post(
            &s.test_key,
            "/v1/envelopes",
            body(json!([
                {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client",
                 "auth": {"method": "access_code", "access_code": "Tulip-4821"},
                 "in_person": {"host_name": "Hal Host", "host_email": "hal@bank.example"}},
            ])),
        )
        .await
        .ok(201);
    let id = env["id"].as_str().unwrap();
    let path = link(&s, id, "Client").await;
    // The hand-over first, then the signer's own code step.
    let page = html(&s.send(s.client.get(s.url(&path))).await);
    assert!(
        page.contains("Please hand this device to Ada Lovelace"),
        "{page}"
    );
    let page = html(
        &s.send(s.client.get(s.url(&format!("{path}/in-person"))))
            .await,
    );
    assert!(page.contains("code-form"), "{page}");
    let csrf = form_token(&page, "code-form");
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = no_redirects
        .post(s.url(&format!("{path}/verify")))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", &s.base)
        .body(format!("csrf={csrf}&code=Tulip-4821"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    // Back to the signer's page, past the hand-over.
    let token = path.trim_start_matches("/sign/");
    assert_eq!(
        r.headers()["location"].to_str().unwrap(),
        format!("../{token}/in-person")
    );
}
