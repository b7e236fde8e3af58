//! Correcting a sent envelope (extensions E14): `PATCH /v1/envelopes/{id}` on a sent envelope
//! nobody has signed changes a signer's email, the old link stops working, the new address gets
//! the request and signs; `envelope.corrected` names what changed; the audit trail shows before
//! and after. After the first signature, and for what cannot change once sent, it is refused.

use std::sync::Arc;

use envelope_core::MemoryMailer;
use serde_json::{Value, json};

use crate::common::signing::{html, link, sign_as_client, sign_as_provider, signing_envelope};
use crate::common::{Options, TestServer};

async fn server() -> (TestServer, Arc<MemoryMailer>) {
    let mail = Arc::new(MemoryMailer::new());
    let s = TestServer::start_with(Options {
        mailer: Some(mail.clone()),
        ..Options::default()
    })
    .await;
    (s, mail)
}

async fn sent(s: &TestServer) -> String {
    let env = signing_envelope(s, json!({"delivery": "email"})).await;
    assert_eq!(env["status"], "sent");
    env["id"].as_str().unwrap().to_string()
}

async fn events(s: &TestServer, id: &str) -> Vec<Value> {
    let list = s
        .get(&s.test_key, "/v1/events?type=envelope.corrected")
        .await
        .ok(200);
    list["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["data"]["object"]["id"] == id)
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_mistyped_email_is_corrected_and_the_old_link_stops_working() {
    let (s, mail) = server().await;
    let id = sent(&s).await;
    let path = format!("/v1/envelopes/{id}");
    let old_link = link(&s, &id, "Client").await;
    let before = s.get(&s.test_key, &path).await.ok(200);

    let fixed = s
        .patch(
            &s.test_key,
            &path,
            json!({"signers": {"Client": {"name": "Ada Lovelace",
                                           "email": "ada.lovelace@example.com"}},
                   "subject": "Please sign the supply agreement"}),
        )
        .await
        .ok(200);
    assert_eq!(fixed["status"], "sent");
    let client = &fixed["signers"][0];
    assert_eq!(client["email"], "ada.lovelace@example.com");
    assert_eq!(client["id"], before["signers"][0]["id"], "the same signer");
    assert_eq!(client["status"], "pending");
    assert_eq!(
        fixed["signers"][1], before["signers"][1],
        "the other signer as it was"
    );

    // The old link is dead; the new address got the request, with the new subject.
    let r = s.send(s.client.get(s.url(&old_link))).await;
    assert_eq!(r.status, 404, "{}", html(&r));
    s.svc.settle_emails().await;
    let to_new: Vec<_> = mail
        .sent()
        .into_iter()
        .filter(|e| e.to.email == "ada.lovelace@example.com")
        .collect();
    assert_eq!(to_new.len(), 1);
    assert!(
        to_new[0]
            .subject
            .contains("Please sign the supply agreement")
    );

    // One event, naming what changed.
    let ev = events(&s, &id).await;
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(
        ev[0]["data"]["changes"],
        json!(["signers.Client.email", "subject"])
    );
    // The same correction again changes nothing and says nothing.
    let again = s
        .patch(
            &s.test_key,
            &path,
            json!({"signers": {"Client": {"name": "Ada Lovelace",
                                           "email": "ada.lovelace@example.com"}}}),
        )
        .await
        .ok(200);
    for (a, f) in again["signers"]
        .as_array()
        .unwrap()
        .iter()
        .zip(fixed["signers"].as_array().unwrap())
    {
        assert_eq!((&a["id"], &a["email"]), (&f["id"], &f["email"]));
    }
    assert_eq!(events(&s, &id).await.len(), 1);

    // The new link signs; the audit trail shows before and after.
    sign_as_client(&s, &link(&s, &id, "Client").await).await;
    sign_as_provider(&s, &link(&s, &id, "Provider").await).await;
    let done = s.get(&s.test_key, &path).await.ok(200);
    assert_eq!(done["status"], "completed");
    crate::kinds::says(
        &crate::kinds::audit_text(&s, &id).await,
        &[
            "Envelope corrected Sender (API) signers.Client.email: ada@example.com -> ada.lovelace@example.com; subject changed",
            "Signer corrected Sender (API) Role Client: from Ada Lovelace <ada@example.com> to Ada Lovelace <ada.lovelace@example.com>",
        ],
    );
}

#[tokio::test]
async fn what_cannot_be_corrected_is_refused_and_nothing_after_the_first_signature() {
    let (s, _mail) = server().await;
    let id = sent(&s).await;
    let path = format!("/v1/envelopes/{id}");
    let before = s.get(&s.test_key, &path).await.ok(200);
    for (body, param) in [
        (
            json!({"signers": {"Nobody": {"name": "N", "email": "n@example.com"}}}),
            "signers.Nobody.role",
        ),
        (
            json!({"signers": [{"name": "A", "email": "a@example.com", "role": "Client", "order": 5}]}),
            "signers.0.order",
        ),
        (
            json!({"signers": [{"name": "A", "email": "a@example.com", "role": "Client",
                                "kind": "approver"}]}),
            "signers.0.kind",
        ),
        (
            json!({"signers": [{"name": "A", "email": "a@example.com", "role": "Client",
                                "auth": {"method": "access_code", "access_code": "Tulip-4821"}}]}),
            "signers.0.auth",
        ),
        (
            json!({"signers": [{"name": "A", "email": "a@example.com", "role": "Client"},
                               {"name": "B", "email": "b@example.com", "role": "Client"}]}),
            "signers.1.role",
        ),
        (
            json!({"signers": [{"name": "A", "email": "not an address", "role": "Client"}]}),
            "signers.0.email",
        ),
    ] {
        let e = s.patch(&s.test_key, &path, body).await;
        assert_eq!(e.status, 400, "{param}: {:?}", e.json());
        assert_eq!(e.json()["param"], param, "{:?}", e.json());
    }
    assert_eq!(
        s.get(&s.test_key, &path).await.ok(200),
        before,
        "nothing written"
    );

    // Each correction stays in the record and the audit trail: twenty at most.
    for n in 0..20 {
        s.patch(
            &s.test_key,
            &path,
            json!({"subject": format!("Subject {n}")}),
        )
        .await
        .ok(200);
    }
    s.patch(&s.test_key, &path, json!({"subject": "One too many"}))
        .await
        .error(409, "invalid_state");

    // Once someone signed, the envelope is what they signed: no correction.
    sign_as_provider(&s, &link(&s, &id, "Provider").await).await;
    s.patch(&s.test_key, &path, json!({"subject": "Late"}))
        .await
        .error(409, "invalid_state");
}
