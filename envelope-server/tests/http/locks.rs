//! Access codes cannot be ground down (extensions E8), through the real server on a clock the
//! test moves: five wrong codes lock the link for 15 minutes, the next five for an hour, the
//! next five until the sender unlocks it or reassigns the signer; every lock emits
//! `signer.locked`, and the audit trail shows locks and unlocks.

use std::sync::Arc;

use chrono::Duration;
use serde_json::{Value, json};

use envelope_core::{Clock, ManualClock, Timestamp};

use crate::common::signing::{form_token, html, link, post_form, signing_envelope};
use crate::common::{Options, Resp, TestServer};

const CODE: &str = "Tulip-4821";

fn start_clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T09:00:00.000Z").unwrap(),
    ))
}

async fn locked_envelope(s: &TestServer) -> (String, String, String) {
    let env = signing_envelope(
        s,
        json!({"signers": [
            {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client",
             "auth": {"method": "access_code", "access_code": CODE}},
            {"name": "Paul Provider", "email": "paul@example.com", "role": "Provider"}
        ]}),
    )
    .await;
    let id = env["id"].as_str().unwrap().to_string();
    let signer = env["signers"][0]["id"].as_str().unwrap().to_string();
    let path = link(s, &id, "Client").await;
    (id, signer, path)
}

async fn enter(s: &TestServer, path: &str, code: &str) -> Resp {
    let page = html(&s.send(s.client.get(s.url(path))).await);
    let csrf = form_token(&page, "code-form");
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let body: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([("csrf", csrf.as_str()), ("code", code)])
        .finish();
    s.send(
        client
            .post(s.url(&format!("{path}/verify")))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("origin", &s.base)
            .body(body),
    )
    .await
}

/// Five wrong codes: four answered with the attempts left, the fifth locks (429).
async fn wrong_round(s: &TestServer, path: &str) -> String {
    for _ in 0..4 {
        assert_eq!(enter(s, path, "wrong").await.status, 400);
    }
    let r = enter(s, path, "wrong").await;
    assert_eq!(r.status, 429, "{}", html(&r));
    html(&r)
}

async fn locked_events(s: &TestServer) -> Vec<Value> {
    let list = s
        .get(&s.test_key, "/v1/events?type=signer.locked")
        .await
        .ok(200);
    let mut events = list["data"].as_array().unwrap().clone();
    events.reverse();
    events
}

#[tokio::test]
async fn the_lock_ladder_then_the_sender_unlocks() {
    let clock = start_clock();
    let s = TestServer::start_with(Options {
        clock: Some(clock.clone()),
        ..Options::default()
    })
    .await;
    // Endpoints may subscribe to the new event type.
    s.post(
        &s.test_key,
        "/v1/webhook_endpoints",
        json!({"url": "https://hooks.example.com/envelope", "events": ["signer.locked"]}),
    )
    .await
    .ok(201);
    let (id, signer, path) = locked_envelope(&s).await;
    let t0 = clock.now();

    // (time of the round after t0, when the lock ends: None = until the sender acts)
    let ladder = [
        (Duration::zero(), Some(Duration::minutes(15))),
        (Duration::minutes(15), Some(Duration::minutes(75))),
        (Duration::minutes(75), None),
    ];
    for (n, (at, until)) in ladder.iter().enumerate() {
        clock.set(t0 + *at);
        let page = wrong_round(&s, &path).await;
        let events = locked_events(&s).await;
        assert_eq!(events.len(), n + 1, "one signer.locked per lock");
        let e = &events[n];
        assert_eq!(e["data"]["signer"]["id"], signer.as_str());
        match until {
            Some(d) => {
                assert_eq!(e["data"]["until"], json!(t0 + *d), "{e}");
                assert!(page.contains("The link is locked until"), "{page}");
            }
            None => {
                assert_eq!(e["data"]["until"], Value::Null, "{e}");
                assert!(e["data"].as_object().unwrap().contains_key("until"));
                assert!(page.contains("ask the sender to unlock it"), "{page}");
            }
        }
    }
    // The last lock does not end by itself: a day later the right code is still refused.
    clock.set(t0 + Duration::days(1));
    let r = enter(&s, &path, CODE).await;
    assert_eq!(r.status, 429);
    assert!(r.header("set-cookie").is_none());
    assert!(html(&r).contains("ask the sender to unlock it"));

    // Unlock: errors first.
    let unlock = |sg: &str| format!("/v1/envelopes/{id}/signers/{sg}/unlock");
    s.post(&s.test_key, &unlock("sgn_nobody"), json!({}))
        .await
        .error(404, "resource_missing");
    let other = s
        .get(&s.test_key, &format!("/v1/envelopes/{id}"))
        .await
        .ok(200)["signers"][1]["id"]
        .as_str()
        .unwrap()
        .to_string();
    s.post(&s.test_key, &unlock(&other), json!({}))
        .await
        .error(409, "invalid_state");
    let env = s
        .post(&s.test_key, &unlock(&signer), json!({}))
        .await
        .ok(200);
    assert_eq!(env["id"], id.as_str());
    s.post(&s.test_key, &unlock(&signer), json!({}))
        .await
        .error(409, "invalid_state");
    // Codes are checked again, and the ladder starts again at 15 minutes.
    assert!(html(&s.send(s.client.get(s.url(&path))).await).contains("5 attempts left"));
    wrong_round(&s, &path).await;
    let events = locked_events(&s).await;
    assert_eq!(
        events[3]["data"]["until"],
        json!(t0 + Duration::days(1) + Duration::minutes(15))
    );
    clock.set(t0 + Duration::days(1) + Duration::minutes(15));
    assert_eq!(enter(&s, &path, CODE).await.status, 303);

    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    let text = crate::reach::audit_text(&s, &id).await;
    assert_eq!(text.matches("Link locked").count(), 4, "{text}");
    for needle in [
        "Until 2027-03-10 09:15:00 UTC",
        "Until 2027-03-10 10:15:00 UTC",
        "Until the sender unlocks it",
        "Until 2027-03-11 09:15:00 UTC",
        "By the sender (role Client)",
    ] {
        assert!(text.contains(needle), "{needle:?} missing:\n{text}");
    }
    assert_eq!(text.matches("Link unlocked").count(), 1, "{text}");
}

#[tokio::test]
async fn a_reassign_lifts_the_last_lock() {
    let clock = start_clock();
    let s = TestServer::start_with(Options {
        clock: Some(clock.clone()),
        ..Options::default()
    })
    .await;
    let (id, signer, path) = locked_envelope(&s).await;
    let t0 = clock.now();
    for at in [0, 15, 75] {
        clock.set(t0 + Duration::minutes(at));
        wrong_round(&s, &path).await;
    }
    s.post(
        &s.test_key,
        &format!("/v1/envelopes/{id}/signers/{signer}/reassign"),
        json!({"name": "Nora Jones", "email": "nora@example.net",
               "auth": {"method": "access_code", "access_code": "Rose-1234"}}),
    )
    .await
    .ok(200);
    // The new person's link starts unlocked, with the count and the ladder from the start.
    let nora = link(&s, &id, "Client").await;
    let page = html(&s.send(s.client.get(s.url(&nora))).await);
    assert!(page.contains("5 attempts left"), "{page}");
    assert_eq!(enter(&s, &nora, "Rose-1234").await.status, 303);
    s.post_empty(
        &s.test_key,
        &format!("/v1/test_helpers/envelopes/{id}/complete"),
    )
    .await
    .ok(200);
    let text = crate::reach::audit_text(&s, &id).await;
    assert!(text.contains("By reassigning the signer"), "{text}");
    assert_eq!(text.matches("Link locked").count(), 3, "{text}");
}

/// A signer without a check, or on a draft, has nothing to unlock: 409, nothing written.
#[tokio::test]
async fn unlock_refuses_what_is_not_locked() {
    let s = TestServer::start().await;
    let env = signing_envelope(&s, json!({})).await;
    let id = env["id"].as_str().unwrap();
    let signer = env["signers"][0]["id"].as_str().unwrap();
    let e = s
        .post(
            &s.test_key,
            &format!("/v1/envelopes/{id}/signers/{signer}/unlock"),
            json!({}),
        )
        .await
        .error(409, "invalid_state");
    assert!(
        e["message"].as_str().unwrap().contains("no identity check"),
        "{e}"
    );
    s.post(
        &s.test_key,
        &format!("/v1/envelopes/{id}/signers/{signer}/unlock"),
        json!({"force": true}),
    )
    .await
    .error(400, "parameter_unknown");
    let r = post_form(&s, "/v1/envelopes/x/signers/y/unlock", &[], None).await;
    assert_eq!(r.status, 401);
}
