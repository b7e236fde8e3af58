//! The SigningService end to end on the in-memory seams, with a manual clock: every operation,
//! the rules of decisions.md, events, emails, and the PDF engine behind completion.

use envelope_testkit::pdf as support;

use std::sync::Arc;

use chrono::Duration;
use envelope_core::mail::EmailKind;
use envelope_core::model::{EnvelopeStatus, EventType, SignerStatus, SignerValue};
use envelope_core::service::{
    AuthContext, ClientInfo, CreateEnvelopeParams, CreateTemplateParams, FileKind, LinkState,
    ListParams, Params, SignInput, Upload,
};
use envelope_core::store::IdempotencyBegin;
use envelope_core::{ManualClock, MemoryMailer, Mode, SigningService, Timestamp};
use serde_json::{Value, json};
use support::simple_pdf;

const CONTRACT: &[u8] = include_bytes!("../../examples/contract.pdf");

struct World {
    svc: SigningService,
    mail: Arc<MemoryMailer>,
    clock: Arc<ManualClock>,
    test: AuthContext,
    live: AuthContext,
}

async fn world() -> World {
    let mail = Arc::new(MemoryMailer::new());
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
    ));
    let svc = SigningService::builder()
        .mailer(mail.clone())
        .clock(clock.clone())
        .build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let test = svc.authenticate(&acct.test_key.secret).await.unwrap();
    let live = svc.authenticate(&acct.live_key.secret).await.unwrap();
    World {
        svc,
        mail,
        clock,
        test,
        live,
    }
}

fn upload() -> Upload {
    Upload {
        file_name: "contract.pdf".into(),
        bytes: CONTRACT.to_vec().into(),
    }
}

fn signers2() -> Value {
    json!([
        {"name": "Zoë Client", "email": "client@example.com"},
        {"name": "Paul Provider", "email": "provider@example.com"}
    ])
}

impl World {
    async fn create(
        &self,
        ctx: &AuthContext,
        body: Value,
    ) -> envelope_core::Result<envelope_core::model::Envelope> {
        let limits = self.svc.settings().limits.clone();
        let p = CreateEnvelopeParams::parse(Params::json(body)?, Some(upload()), &limits)?;
        self.svc.create_envelope(ctx, p).await
    }

    async fn create_ok(&self, body: Value) -> envelope_core::model::Envelope {
        self.create(&self.test, body).await.unwrap()
    }

    /// Every email sent so far, once the sends in flight have finished.
    async fn sent(&self) -> Vec<envelope_core::mail::Email> {
        self.svc.settle_emails().await;
        self.mail.sent()
    }

    async fn emails(&self, kind: EmailKind) -> Vec<envelope_core::mail::Email> {
        self.sent()
            .await
            .into_iter()
            .filter(|e| e.kind == kind)
            .collect()
    }

    async fn events(&self, ctx: &AuthContext) -> Vec<EventType> {
        let list = self
            .svc
            .list_events(
                ctx,
                &ListParams {
                    limit: 100,
                    starting_after: None,
                },
                None,
            )
            .await
            .unwrap();
        list.data.iter().rev().map(|e| e.kind).collect()
    }

    fn token(url: &str) -> String {
        url.rsplit('/').next().unwrap().to_string()
    }
}

#[tokio::test]
async fn create_from_pdf_discovers_roles_and_emails_signers() {
    let w = world().await;
    let env = w
        .create_ok(json!({"signers": signers2(), "data": {"start_date": "2027-04-01"}}))
        .await;
    assert_eq!(env.status, EnvelopeStatus::Sent);
    assert_eq!(env.name, "contract.pdf");
    let roles: Vec<_> = env
        .signers
        .iter()
        .map(|s| (s.role.as_str(), s.order))
        .collect();
    assert_eq!(roles, [("Client", 1), ("Provider", 2)]);
    assert_eq!(
        w.events(&w.test).await,
        [EventType::Created, EventType::Sent]
    );
    let requests = w.emails(EmailKind::SigningRequest).await;
    assert_eq!(requests.len(), 2, "parallel signing asks everyone at once");
    assert!(requests[0].text.contains("/sign/"));
}

#[tokio::test]
async fn signing_order_asks_one_signer_at_a_time() {
    let w = world().await;
    let env = w
        .create_ok(
            json!({"signers": signers2(), "data": {"start_date": "x"}, "signing_order": true}),
        )
        .await;
    let requests = w.emails(EmailKind::SigningRequest).await;
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].to.email, "client@example.com");
    // The second signer cannot get a link yet.
    let e = w
        .svc
        .signing_url(&w.test, &env.id, Some("Provider"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), "signer_not_actionable");
    // The first signs through the emailed link.
    let url = requests[0]
        .text
        .lines()
        .find(|l| l.contains("/sign/"))
        .unwrap()
        .trim();
    let token = World::token(url);
    let client = ClientInfo {
        ip_address: Some("203.0.113.7".into()),
        user_agent: Some("Test/1.0".into()),
    };
    let session = w
        .svc
        .open_signing_link(&token, None, &client)
        .await
        .unwrap();
    assert_eq!(session.state, LinkState::Ready);
    // The signer sees the document with the sender's data filled in and no raw tags.
    let (_, shown) = w.svc.signing_document(&token, None).await.unwrap();
    assert_eq!(&shown[..CONTRACT.len()], CONTRACT);
    let info = envelope_core::pdf::inspect(&shown, &Default::default()).unwrap();
    assert!(
        info.fields.is_empty(),
        "no tag is left to find: {:?}",
        info.fields
    );
    assert!(
        chrono::NaiveDate::parse_from_str(&session.signing_date, "%Y-%m-%d").is_ok(),
        "the date a date field will get: {}",
        session.signing_date
    );
    assert_eq!(session.envelope.signers[0].status, SignerStatus::Viewed);
    let keys: Vec<_> = session.fields.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(keys, ["company", "Client_signature", "Client_date"]);
    let mut input = SignInput::default();
    let refused = w
        .svc
        .sign(&token, None, input.clone(), &client)
        .await
        .unwrap_err();
    assert_eq!(
        (refused.code(), refused.param().as_deref()),
        ("parameter_missing", Some("consent"))
    );
    input.consent = true;
    input
        .values
        .insert("company".into(), SignerValue::Text("Zoë's Bakery".into()));
    input.values.insert(
        "Client_signature".into(),
        SignerValue::Typed("Zoë Client".into()),
    );
    let env2 = w.svc.sign(&token, None, input, &client).await.unwrap();
    assert_eq!(env2.signers[0].status, SignerStatus::Completed);
    assert_eq!(env2.status, EnvelopeStatus::Sent);
    let requests = w.emails(EmailKind::SigningRequest).await;
    assert_eq!(
        requests.len(),
        2,
        "the provider is asked once it is their turn"
    );
    assert_eq!(requests[1].to.email, "provider@example.com");
    // The link is spent.
    assert_eq!(
        w.svc
            .open_signing_link(&token, None, &client)
            .await
            .unwrap()
            .state,
        LinkState::Signed
    );
    let done = w.svc.test_complete(&w.test, &env.id).await.unwrap();
    assert_eq!(done.status, EnvelopeStatus::Completed);
    assert_eq!(
        w.events(&w.test).await,
        [
            EventType::Created,
            EventType::Sent,
            EventType::SignerViewed,
            EventType::SignerCompleted,
            EventType::SignerCompleted,
            EventType::Completed
        ]
    );
    assert_eq!(w.emails(EmailKind::Completed).await.len(), 2);
}

#[tokio::test]
async fn test_helper_completes_and_files_are_real() {
    let w = world().await;
    let env = w.create_ok(json!({"signers": signers2(), "data": {"start_date": "2027-04-01"}, "metadata": {"deal": "42"}})).await;
    let e = w
        .svc
        .envelope_file_link(&w.test, &env.id, FileKind::Signed)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "file_not_ready");
    let done = w.svc.test_complete(&w.test, &env.id).await.unwrap();
    assert_eq!(done.status, EnvelopeStatus::Completed);
    assert!(done.files.signed && done.files.audit_trail);
    assert!(done.completed_at.is_some());
    let link = w
        .svc
        .envelope_file_link(&w.test, &env.id, FileKind::Signed)
        .await
        .unwrap();
    let (name, signed) = w
        .svc
        .open_file_link(&World::token(&link.url))
        .await
        .unwrap();
    assert_eq!(name, "contract-signed.pdf");
    assert!(signed.len() > CONTRACT.len());
    assert_eq!(
        &signed[..CONTRACT.len()],
        CONTRACT,
        "the original is a prefix of the signed copy"
    );
    let link = w
        .svc
        .envelope_file_link(&w.test, &env.id, FileKind::AuditTrail)
        .await
        .unwrap();
    let (_, audit) = w
        .svc
        .open_file_link(&World::token(&link.url))
        .await
        .unwrap();
    assert!(audit.starts_with(b"%PDF-"));
    // Events carry the full envelope, metadata included.
    let events = w
        .svc
        .list_events(&w.test, &ListParams::default(), Some("envelope.completed"))
        .await
        .unwrap();
    assert_eq!(events.data.len(), 1);
    assert_eq!(
        events.data[0].data.object.envelope().unwrap().metadata["deal"],
        "42"
    );
    assert_eq!(
        events.data[0].data.object.envelope().unwrap().status,
        EnvelopeStatus::Completed
    );
    // Download links die after 5 minutes.
    w.clock.advance(Duration::minutes(5));
    assert_eq!(
        w.svc
            .open_file_link(&World::token(&link.url))
            .await
            .unwrap_err()
            .code(),
        "resource_missing"
    );
    // And the helper is for test keys and sent envelopes only.
    assert_eq!(
        w.svc
            .test_complete(&w.test, &env.id)
            .await
            .unwrap_err()
            .code(),
        "invalid_state"
    );
    assert_eq!(
        w.svc
            .test_complete(&w.live, &env.id)
            .await
            .unwrap_err()
            .code(),
        "test_mode_only"
    );
}

#[tokio::test]
async fn data_and_signer_rules() {
    let w = world().await;
    let cases = [
        (json!({"signers": signers2()}), "missing_data"),
        (
            json!({"signers": signers2(), "data": {"start_date": "x", "nope": "y"}}),
            "unknown_data_fields",
        ),
        (
            json!({"signers": [{"name": "A", "email": "a@example.com", "role": "Client"}], "data": {"start_date": "x"}}),
            "missing_signer",
        ),
        (
            json!({"signers": [
                {"name": "A", "email": "a@example.com", "role": "Client"},
                {"name": "B", "email": "b@example.com", "role": "Provider"},
                {"name": "C", "email": "c@example.com", "role": "Witness"}
            ], "data": {"start_date": "x"}}),
            "signer_without_fields",
        ),
        (
            json!({"signers": signers2(), "data": {"start_date": "x"}, "expires_in_days": 91}),
            "parameter_invalid",
        ),
        (
            json!({"signers": [{"name": "A", "email": "not-an-email"}]}),
            "parameter_invalid",
        ),
    ];
    for (body, code) in cases {
        let e = w.create(&w.test, body.clone()).await.unwrap_err();
        assert_eq!(e.code(), code, "{body}");
    }
    let e = w
        .create(&w.test, json!({"signers": signers2()}))
        .await
        .unwrap_err();
    match e {
        envelope_core::Error::MissingData { keys } => assert_eq!(keys, ["start_date"]),
        other => panic!("{other:?}"),
    }
    assert!(
        w.sent().await.is_empty(),
        "nothing went out for refused requests"
    );
    let list = w
        .svc
        .list_envelopes(&w.test, &ListParams::default(), None)
        .await
        .unwrap();
    assert!(list.data.is_empty(), "nothing was created");
}

#[tokio::test]
async fn draft_send_void_rules() {
    let w = world().await;
    let body = json!({"signers": signers2(), "data": {"start_date": "x"}, "send": false, "expires_in_days": 2});
    let draft = w.create_ok(body.clone()).await;
    assert_eq!(draft.status, EnvelopeStatus::Draft);
    assert!(draft.expires_at.is_none() && draft.sent_at.is_none());
    assert!(w.sent().await.is_empty());
    assert_eq!(
        w.svc
            .signing_url(&w.test, &draft.id, None)
            .await
            .unwrap_err()
            .code(),
        "invalid_state"
    );
    let sent = w.svc.send_envelope(&w.test, &draft.id).await.unwrap();
    assert_eq!(sent.status, EnvelopeStatus::Sent);
    assert_eq!(
        sent.expires_at.unwrap(),
        sent.sent_at.unwrap() + Duration::days(2)
    );
    assert_eq!(
        w.svc
            .send_envelope(&w.test, &draft.id)
            .await
            .unwrap_err()
            .code(),
        "invalid_state"
    );
    // Void from draft works; a voided envelope cannot be voided again.
    let other = w.create_ok(body).await;
    let voided = w.svc.void_envelope(&w.test, &other.id, None).await.unwrap();
    assert_eq!(
        voided.void_reason.as_deref(),
        Some("This envelope was voided via the API.")
    );
    assert_eq!(
        w.svc
            .void_envelope(&w.test, &other.id, None)
            .await
            .unwrap_err()
            .code(),
        "invalid_state"
    );
    // A completed one cannot be voided.
    w.svc.test_complete(&w.test, &sent.id).await.unwrap();
    assert_eq!(
        w.svc
            .void_envelope(&w.test, &sent.id, Some("x"))
            .await
            .unwrap_err()
            .code(),
        "envelope_completed"
    );
}

#[tokio::test]
async fn expiry_voids_and_stops_links() {
    let w = world().await;
    let env = w
        .create_ok(
            json!({"signers": signers2(), "data": {"start_date": "x"}, "expires_in_days": 1}),
        )
        .await;
    let link = w
        .svc
        .signing_url(&w.test, &env.id, Some("Client"))
        .await
        .unwrap();
    assert_eq!(
        link.expires_at,
        env.expires_at.unwrap(),
        "links never outlive the envelope"
    );
    w.clock.advance(Duration::days(1));
    let token = World::token(&link.url);
    let session = w
        .svc
        .open_signing_link(&token, None, &ClientInfo::default())
        .await
        .unwrap();
    assert_eq!(session.state, LinkState::Expired);
    let got = w.svc.get_envelope(&w.test, &env.id).await.unwrap();
    assert_eq!(got.status, EnvelopeStatus::Voided);
    assert_eq!(got.void_reason.as_deref(), Some("expired"));
    assert_eq!(got.voided_at, env.expires_at);
    let voided = w
        .events(&w.test)
        .await
        .into_iter()
        .filter(|k| *k == EventType::Voided)
        .count();
    assert_eq!(voided, 1, "expiry is recorded once");
    assert_eq!(w.svc.expire_due().await.unwrap(), 0);
}

#[tokio::test]
async fn background_expiry_finds_due_envelopes() {
    let w = world().await;
    w.create_ok(json!({"signers": signers2(), "data": {"start_date": "x"}, "expires_in_days": 3}))
        .await;
    w.clock.advance(Duration::days(2));
    assert_eq!(w.svc.expire_due().await.unwrap(), 0);
    w.clock.advance(Duration::days(1));
    assert_eq!(w.svc.expire_due().await.unwrap(), 1);
    assert_eq!(w.emails(EmailKind::Voided).await.len(), 2);
}

#[tokio::test]
async fn purge_forgets_only_what_can_no_longer_be_used() {
    let w = world().await;
    let env = w
        .create_ok(
            json!({"signers": signers2(), "data": {"start_date": "x"}, "expires_in_days": 1}),
        )
        .await;
    let link = w
        .svc
        .signing_url(&w.test, &env.id, Some("Client"))
        .await
        .unwrap();
    let token = World::token(&link.url);
    let fp = envelope_core::service::idempotency_fingerprint("POST", "/v1/envelopes", b"{}");
    w.svc.idempotency_begin(&w.test, "k1", &fp).await.unwrap();
    let stored = envelope_core::store::StoredResponse {
        status: 201,
        body: b"{}".to_vec(),
    };
    w.svc
        .idempotency_finish(&w.test, "k1", stored)
        .await
        .unwrap();
    // A claim whose process died: never finished.
    w.svc.idempotency_begin(&w.test, "k2", &fp).await.unwrap();

    // A day later the link has expired, but it still says so, and nothing is purged yet.
    w.clock.advance(Duration::days(1));
    assert_eq!(w.svc.purge_expired().await.unwrap().total(), 0);
    let session = w
        .svc
        .open_signing_link(&token, None, &ClientInfo::default())
        .await
        .unwrap();
    assert_eq!(session.state, LinkState::Expired);

    // A month on: the link, the finished record and the dead claim go; the envelope stays.
    let kept = Duration::days(envelope_core::service::EXPIRED_LINKS_KEPT_DAYS);
    w.clock.advance(kept + Duration::minutes(1));
    let purged = w.svc.purge_expired().await.unwrap();
    assert_eq!(purged.idempotency_keys, 2, "{purged:?}");
    assert!(purged.signing_tokens >= 1, "{purged:?}");
    let gone = w
        .svc
        .open_signing_link(&token, None, &ClientInfo::default())
        .await
        .unwrap_err();
    assert_eq!(gone.code(), "resource_missing");
    assert_eq!(
        w.svc.get_envelope(&w.test, &env.id).await.unwrap().id,
        env.id
    );
    assert_eq!(w.svc.purge_expired().await.unwrap().total(), 0);
}

#[tokio::test]
async fn remind_once_an_hour_and_reasons() {
    let w = world().await;
    let env = w
        .create_ok(
            json!({"signers": signers2(), "data": {"start_date": "x"}, "signing_order": true}),
        )
        .await;
    let r = w.svc.remind(&w.test, &env.id).await.unwrap();
    assert!(r.reminded.is_empty());
    let reasons: Vec<_> = r.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert_eq!(reasons, ["reminded_recently", "not_their_turn"]);
    w.clock.advance(Duration::minutes(61));
    let r = w.svc.remind(&w.test, &env.id).await.unwrap();
    assert_eq!(r.reminded.len(), 1);
    assert_eq!(r.reminded[0].email, "client@example.com");
    assert_eq!(w.emails(EmailKind::Reminder).await.len(), 1);
    let r = w.svc.remind(&w.test, &env.id).await.unwrap();
    assert_eq!(r.skipped[0].reason, "reminded_recently");
    // Embedded envelopes email nobody.
    let emb = w
        .create_ok(
            json!({"signers": signers2(), "data": {"start_date": "x"}, "delivery": "embedded"}),
        )
        .await;
    let r = w.svc.remind(&w.test, &emb.id).await.unwrap();
    assert!(r.skipped.iter().all(|s| s.reason == "embedded"));
    w.svc.void_envelope(&w.test, &emb.id, None).await.unwrap();
    assert_eq!(
        w.svc.remind(&w.test, &emb.id).await.unwrap_err().code(),
        "invalid_state"
    );
}

#[tokio::test]
async fn decline_voids_the_envelope() {
    let w = world().await;
    let env = w
        .create_ok(
            json!({"signers": signers2(), "data": {"start_date": "x"}, "delivery": "embedded"}),
        )
        .await;
    assert!(w.sent().await.is_empty(), "embedded delivery emails nobody");
    let e = w.svc.signing_url(&w.test, &env.id, None).await.unwrap_err();
    assert_eq!(e.code(), "signer_ambiguous");
    assert_eq!(
        w.svc
            .signing_url(&w.test, &env.id, Some("Nobody"))
            .await
            .unwrap_err()
            .code(),
        "signer_not_found"
    );
    let link = w
        .svc
        .signing_url(&w.test, &env.id, Some(&env.signers[1].id))
        .await
        .unwrap();
    let token = World::token(&link.url);
    let out = w
        .svc
        .decline(&token, None, Some("wrong dates"), &ClientInfo::default())
        .await
        .unwrap();
    assert_eq!(out.status, EnvelopeStatus::Voided);
    assert_eq!(
        out.void_reason.as_deref(),
        Some("declined by Provider: wrong dates")
    );
    assert_eq!(
        out.signers[1].decline_reason.as_deref(),
        Some("wrong dates")
    );
    let tail: Vec<_> = w.events(&w.test).await.into_iter().skip(2).collect();
    assert_eq!(tail, [EventType::SignerDeclined, EventType::Voided]);
    assert_eq!(
        w.svc
            .open_signing_link(&token, None, &ClientInfo::default())
            .await
            .unwrap()
            .state,
        LinkState::Declined
    );
}

#[tokio::test]
async fn live_allowance_is_enforced_atomically() {
    let w = world().await;
    w.svc
        .admin()
        .set_allowance(&w.live.account.id, 1)
        .await
        .unwrap();
    let body = json!({"signers": signers2(), "data": {"start_date": "x"}});
    w.create(&w.live, body.clone()).await.unwrap();
    let e = w.create(&w.live, body.clone()).await.unwrap_err();
    assert_eq!(e.code(), "insufficient_balance");
    let list = w
        .svc
        .list_envelopes(&w.live, &ListParams::default(), None)
        .await
        .unwrap();
    assert_eq!(list.data.len(), 1, "the refused send created nothing");
    // A live draft costs nothing until sent.
    let draft = w
        .create(
            &w.live,
            json!({"signers": signers2(), "data": {"start_date": "x"}, "send": false}),
        )
        .await
        .unwrap();
    assert_eq!(
        w.svc
            .send_envelope(&w.live, &draft.id)
            .await
            .unwrap_err()
            .code(),
        "insufficient_balance"
    );
    let b = w.svc.balance(&w.live).await.unwrap();
    assert_eq!(
        (b.allowance, b.used, b.remaining, b.livemode),
        (1, 1, 0, true)
    );
    assert_eq!(b.period_start.to_rfc3339(), "2027-03-01T00:00:00.000Z");
    assert_eq!(b.period_end.to_rfc3339(), "2027-04-01T00:00:00.000Z");
    // Test mode never consumes it.
    w.create_ok(body).await;
    assert_eq!(w.svc.balance(&w.test).await.unwrap().used, 1);
}

#[tokio::test]
async fn modes_and_accounts_are_isolated() {
    let w = world().await;
    let env = w
        .create_ok(json!({"signers": signers2(), "data": {"start_date": "x"}}))
        .await;
    assert_eq!(
        w.svc
            .get_envelope(&w.live, &env.id)
            .await
            .unwrap_err()
            .code(),
        "resource_missing"
    );
    let other = w.svc.admin().create_account("Other").await.unwrap();
    let other = w.svc.authenticate(&other.test_key.secret).await.unwrap();
    assert_eq!(
        w.svc
            .get_envelope(&other, &env.id)
            .await
            .unwrap_err()
            .code(),
        "resource_missing"
    );
    assert!(
        w.svc
            .list_envelopes(&other, &ListParams::default(), None)
            .await
            .unwrap()
            .data
            .is_empty()
    );
    assert!(
        w.svc
            .list_events(&other, &ListParams::default(), None)
            .await
            .unwrap()
            .data
            .is_empty()
    );
    assert_eq!(w.svc.account(&w.live).await.unwrap().key.mode, Mode::Live);
}

#[tokio::test]
async fn templates_make_envelopes_and_archive() {
    let w = world().await;
    let limits = w.svc.settings().limits.clone();
    let p = CreateTemplateParams::parse(
        Params::json(json!({"name": "MSA", "roles": ["Provider", "Client"]})).unwrap(),
        Some(upload()),
        &limits,
    )
    .unwrap();
    let t = w.svc.create_template(&w.test, p).await.unwrap();
    assert_eq!(t.roles, ["Provider", "Client"]);
    assert_eq!(t.page_count, 1);
    let keys: Vec<_> = t.fields.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "start_date",
            "company",
            "Client_signature",
            "Client_date",
            "Provider_signature",
            "Provider_date"
        ]
    );
    let body = json!({
        "template": t.id,
        "signers": {"Client": {"name": "C", "email": "c@example.com"}, "Provider": {"name": "P", "email": "p@example.com"}},
        "data": {"start_date": "2027-05-01"}
    });
    let p =
        CreateEnvelopeParams::parse(Params::json(body.clone()).unwrap(), None, &limits).unwrap();
    let env = w.svc.create_envelope(&w.test, p).await.unwrap();
    assert_eq!(env.name, "MSA");
    assert_eq!(env.template.as_deref(), Some(t.id.as_str()));
    let orders: Vec<_> = env
        .signers
        .iter()
        .map(|s| (s.role.as_str(), s.order))
        .collect();
    assert_eq!(
        orders,
        [("Client", 2), ("Provider", 1)],
        "object form takes the template's role order"
    );
    let by_template = w
        .svc
        .list_envelopes(&w.test, &ListParams::default(), Some(&t.id))
        .await
        .unwrap();
    assert_eq!(by_template.data.len(), 1);
    w.svc.archive_template(&w.test, &t.id).await.unwrap();
    let p = CreateEnvelopeParams::parse(Params::json(body).unwrap(), None, &limits).unwrap();
    let e = w.svc.create_envelope(&w.test, p).await.unwrap_err();
    assert_eq!(
        (e.code(), e.param().as_deref()),
        ("resource_missing", Some("template"))
    );
    assert!(w.svc.get_template(&w.test, &t.id).await.unwrap().archived);
    assert!(
        w.svc
            .list_templates(&w.test, &ListParams::default())
            .await
            .unwrap()
            .data
            .is_empty()
    );
    // The envelope made from it is unaffected.
    assert_eq!(
        w.svc.test_complete(&w.test, &env.id).await.unwrap().status,
        EnvelopeStatus::Completed
    );
}

#[tokio::test]
async fn signature_page_for_documents_without_signature_fields() {
    let w = world().await;
    let limits = w.svc.settings().limits.clone();
    let pdf = simple_pdf(&["Purchase order", "Quantity: {{text:Buyer:quantity}}"]);
    let make = |page: bool| {
        let body = json!({
            "signers": [{"name": "Łukasz Żółć", "email": "l@example.com"}, {"name": "Seller", "email": "s@example.com"}],
            "signature_page": page
        });
        let up = Upload {
            file_name: "po.pdf".into(),
            bytes: pdf.clone().into(),
        };
        CreateEnvelopeParams::parse(Params::json(body).unwrap(), Some(up), &limits).unwrap()
    };
    let e = w
        .svc
        .create_envelope(&w.test, make(false))
        .await
        .unwrap_err();
    assert_eq!(
        (e.code(), e.param().as_deref()),
        ("signer_without_fields", Some("signers.0"))
    );
    let env = w.svc.create_envelope(&w.test, make(true)).await.unwrap();
    let roles: Vec<_> = env.signers.iter().map(|s| s.role.as_str()).collect();
    assert_eq!(
        roles,
        ["Buyer", "Signer 2"],
        "list signers take the document's roles, then Signer N"
    );
    let done = w.svc.test_complete(&w.test, &env.id).await.unwrap();
    let link = w
        .svc
        .envelope_file_link(&w.test, &done.id, FileKind::Signed)
        .await
        .unwrap();
    let (_, signed) = w
        .svc
        .open_file_link(&World::token(&link.url))
        .await
        .unwrap();
    assert_eq!(&signed[..pdf.len()], &pdf[..]);
    let info = envelope_core::pdf::inspect(&signed, &Default::default()).unwrap();
    assert_eq!(info.page_count, 2, "one signature page was appended");
}

#[tokio::test]
async fn pagination_walks_every_item_once() {
    let w = world().await;
    let mut ids = Vec::new();
    for _ in 0..7 {
        ids.push(
            w.create_ok(json!({"signers": signers2(), "data": {"start_date": "x"}, "send": false}))
                .await
                .id,
        );
    }
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let page = w
            .svc
            .list_envelopes(
                &w.test,
                &ListParams {
                    limit: 3,
                    starting_after: after.clone(),
                },
                None,
            )
            .await
            .unwrap();
        seen.extend(page.data.iter().map(|e| e.id.clone()));
        if !page.has_more {
            break;
        }
        after = seen.last().map(ToString::to_string);
    }
    ids.reverse();
    assert_eq!(seen, ids, "newest first, each once");
    let e = w
        .svc
        .list_envelopes(
            &w.test,
            &ListParams {
                limit: 3,
                starting_after: Some("env_nope".into()),
            },
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(
        (e.code(), e.param().as_deref()),
        ("resource_missing", Some("starting_after"))
    );
}

#[tokio::test]
async fn raced_void_and_complete_apply_once() {
    let w = world().await;
    for _ in 0..5 {
        let env = w
            .create_ok(json!({"signers": signers2(), "data": {"start_date": "x"}}))
            .await;
        let (a, b) = tokio::join!(
            w.svc.void_envelope(&w.test, &env.id, None),
            w.svc.test_complete(&w.test, &env.id)
        );
        assert!(a.is_ok() != b.is_ok(), "exactly one wins: {a:?} / {b:?}");
        let final_status = w.svc.get_envelope(&w.test, &env.id).await.unwrap().status;
        assert!(matches!(
            final_status,
            EnvelopeStatus::Voided | EnvelopeStatus::Completed
        ));
    }
}

#[tokio::test]
async fn idempotency_admits_one_request_per_key() {
    let w = world().await;
    let fp = envelope_core::service::idempotency_fingerprint("POST", "/v1/envelopes", b"{}");
    assert!(matches!(
        w.svc.idempotency_begin(&w.test, "k1", &fp).await.unwrap(),
        IdempotencyBegin::Started { .. }
    ));
    assert_eq!(
        w.svc
            .idempotency_begin(&w.test, "k1", &fp)
            .await
            .unwrap_err()
            .code(),
        "idempotency_key_in_use"
    );
    let other =
        envelope_core::service::idempotency_fingerprint("POST", "/v1/envelopes", b"{\"a\":1}");
    assert_eq!(
        w.svc
            .idempotency_begin(&w.test, "k1", &other)
            .await
            .unwrap_err()
            .code(),
        "idempotency_key_reused"
    );
    let stored = envelope_core::store::StoredResponse {
        status: 201,
        body: b"{}".to_vec(),
    };
    w.svc
        .idempotency_finish(&w.test, "k1", stored.clone())
        .await
        .unwrap();
    assert_eq!(
        w.svc.idempotency_begin(&w.test, "k1", &fp).await.unwrap(),
        IdempotencyBegin::Replay(stored)
    );
    // Keys are per mode.
    assert!(matches!(
        w.svc.idempotency_begin(&w.live, "k1", &fp).await.unwrap(),
        IdempotencyBegin::Started { .. }
    ));
    w.clock.advance(Duration::hours(24));
    assert!(matches!(
        w.svc.idempotency_begin(&w.test, "k1", &fp).await.unwrap(),
        IdempotencyBegin::Started { .. }
    ));
    assert_eq!(
        w.svc
            .idempotency_begin(&w.test, &"k".repeat(256), &fp)
            .await
            .unwrap_err()
            .code(),
        "parameter_invalid"
    );
}

/// The process dies after committing an envelope and before storing the idempotent response;
/// the client retries with the same key once the claim is stale. The retry must answer with
/// the first envelope, not create a second one.
#[tokio::test]
async fn a_retry_after_a_crash_finds_the_first_envelope() {
    let w = world().await;
    let body = json!({"signers": signers2(), "data": {"start_date": "x"}});
    let fp = envelope_core::service::idempotency_fingerprint(
        "POST",
        "/v1/envelopes",
        body.to_string().as_bytes(),
    );
    let claim = |w: &World| {
        let (svc, test, fp) = (w.svc.clone(), w.test.clone(), fp.clone());
        async move {
            match svc
                .idempotency_begin(&test, "crash-key", &fp)
                .await
                .unwrap()
            {
                IdempotencyBegin::Started { origin } => AuthContext {
                    idempotency_origin: Some(origin),
                    ..test
                },
                other => panic!("expected Started, got {other:?}"),
            }
        }
    };
    let ctx = claim(&w).await;
    let first = w.create(&ctx, body.clone()).await.unwrap();
    let emails = w.sent().await.len();
    // ... and the process dies here: no idempotency_finish.

    w.clock.advance(Duration::minutes(6));
    let retry_ctx = claim(&w).await;
    assert_eq!(retry_ctx.idempotency_origin, ctx.idempotency_origin);
    let retried = w.create(&retry_ctx, body.clone()).await.unwrap();
    assert_eq!(retried.id, first.id);
    // The first envelope as it is now: only its emails moved on (sent since).
    let strip = |mut e: envelope_core::model::Envelope| {
        for s in &mut e.signers {
            s.last_email = None;
        }
        e
    };
    assert_eq!(strip(retried.clone()), strip(first.clone()));
    let listed = w
        .svc
        .list_envelopes(
            &w.test,
            &ListParams {
                limit: 100,
                starting_after: None,
            },
            None,
        )
        .await
        .unwrap();
    assert_eq!(listed.data.len(), 1, "one envelope, not two");
    assert_eq!(
        w.events(&w.test).await,
        [EventType::Created, EventType::Sent],
        "one set of events"
    );
    assert_eq!(w.sent().await.len(), emails, "no second signing request");

    // Without a key, two creates are two envelopes.
    let a = w.create_ok(body.clone()).await;
    let b = w.create_ok(body).await;
    assert_ne!(a.id, b.id);
}

#[tokio::test]
async fn keys_revoke_and_authenticate() {
    let w = world().await;
    let admin = w.svc.admin();
    let k = admin
        .create_key(&w.test.account.id, Mode::Live)
        .await
        .unwrap();
    assert!(k.secret.starts_with("sk_live_") && k.secret.len() >= 40);
    assert_eq!(
        w.svc.authenticate(&k.secret).await.unwrap().mode(),
        Mode::Live
    );
    admin
        .revoke_key(&w.test.account.id, &k.key.id)
        .await
        .unwrap();
    assert_eq!(
        w.svc.authenticate(&k.secret).await.unwrap_err().code(),
        "invalid_api_key"
    );
    for bad in [
        "",
        "sk_test_",
        "Bearer x",
        "sk_test_doesnotexist0000000000000000",
    ] {
        assert_eq!(
            w.svc.authenticate(bad).await.unwrap_err().code(),
            "invalid_api_key"
        );
    }
    assert_eq!(admin.list_keys(&w.test.account.id).await.unwrap().len(), 3);
    assert!(format!("{:?}", k).contains("NewKey") && !format!("{:?}", k).contains(&k.secret));
}

/// Extensions E1: carbon-copy recipients sign nothing, hear of the void and of the completion
/// (the signed copy and the audit trail attached) whatever the delivery, and the audit trail
/// lists them.
#[tokio::test]
async fn carbon_copies_get_the_outcome_whatever_the_delivery() {
    let w = world().await;
    let cc = json!([
        {"name": "Carla Copy", "email": "carla@example.org"},
        {"name": "Ben Board", "email": "ben@example.org"}
    ]);
    let body = |delivery: &str| {
        json!({"signers": signers2(), "data": {"start_date": "2027-04-01"},
               "delivery": delivery, "cc": cc})
    };
    let env = w.create_ok(body("embedded")).await;
    assert_eq!(env.cc.len(), 2);
    assert!(env.cc.iter().all(|c| c.id.starts_with("rcp_")));
    assert_eq!(env.cc[0].name, "Carla Copy");
    assert!(
        w.sent().await.is_empty(),
        "embedded: nothing before the end"
    );

    let done = w.svc.test_complete(&w.test, &env.id).await.unwrap();
    assert_eq!(done.cc, env.cc);
    let copies: Vec<_> = w
        .emails(EmailKind::Completed)
        .await
        .into_iter()
        .filter(|e| e.to.email.ends_with("@example.org"))
        .collect();
    assert_eq!(copies.len(), 2, "each copy, and no signer (embedded)");
    assert_eq!(w.emails(EmailKind::Completed).await.len(), 2);
    let names: Vec<&str> = copies[0]
        .attachments
        .iter()
        .map(|a| a.file_name.as_str())
        .collect();
    assert_eq!(names, ["contract-signed.pdf", "contract-audit-trail.pdf"]);
    assert!(copies[0].text.contains("You receive a copy of"));
    let trail = support::pdftotext(&copies[0].attachments[1].bytes);
    assert!(trail.contains("Copies sent to (2)"), "{trail}");
    assert!(trail.contains("carla@example.org") && trail.contains("ben@example.org"));

    // Voided: the copies hear of it too (email delivery: so do the signers who had a link).
    let voided = w.create_ok(body("email")).await;
    w.svc
        .void_envelope(&w.test, &voided.id, Some("wrong version"))
        .await
        .unwrap();
    let notices: Vec<String> = w
        .emails(EmailKind::Voided)
        .await
        .into_iter()
        .map(|e| e.to.email)
        .collect();
    assert_eq!(
        notices,
        [
            "client@example.com",
            "provider@example.com",
            "carla@example.org",
            "ben@example.org"
        ]
    );
}

#[tokio::test]
async fn carbon_copy_entries_are_checked() {
    let w = world().await;
    let base = json!({"signers": signers2(), "data": {"start_date": "2027-04-01"}});
    let with = |cc: Value| {
        let mut b = base.clone();
        b["cc"] = cc;
        b
    };
    let many: Vec<Value> = (0..21)
        .map(|i| json!({"name": "A", "email": format!("a{i}@x.io")}))
        .collect();
    let cases = [
        (
            json!([{"name": "A", "email": "a@x.io"}, {"name": "B", "email": "nope"}]),
            "parameter_invalid",
            "cc[1].email",
        ),
        (
            json!([{"email": "a@x.io"}]),
            "parameter_missing",
            "cc[0].name",
        ),
        (json!({"name": "A"}), "parameter_invalid", "cc"),
        (Value::Array(many), "parameter_invalid", "cc"),
    ];
    for (cc, code, param) in cases {
        let e = w.create(&w.test, with(cc.clone())).await.unwrap_err();
        assert_eq!(e.code(), code, "{cc}");
        assert_eq!(e.param().as_deref(), Some(param), "{cc}");
    }
    let unknown = json!([{"name": "A", "email": "a@x.io", "role": "x"}]);
    let e = w.create(&w.test, with(unknown)).await.unwrap_err();
    assert_eq!(e.param().as_deref(), Some("cc[0].role"));
    let ok = w.create_ok(base).await;
    assert!(ok.cc.is_empty(), "cc: [] when none");
}

/// Extensions E3: a signer's place handed to someone else keeps its ID and role, kills the
/// previous person's links, emails the new person when it is their turn, emits
/// `signer.reassigned` with `data.previous`, and shows in the audit trail.
#[tokio::test]
async fn reassigning_a_signer() {
    use envelope_core::service::Reassign;
    let w = world().await;
    let env = w
        .create_ok(json!({"signers": signers2(), "data": {"start_date": "2027-04-01"}}))
        .await;
    let client = env.signers[0].clone();
    let old_link = w
        .svc
        .signing_url(&w.test, &env.id, Some(&client.role))
        .await
        .unwrap();
    w.svc
        .open_signing_link(&World::token(&old_link.url), None, &ClientInfo::default())
        .await
        .unwrap();
    w.clock.advance(Duration::seconds(1));
    let to = Reassign {
        name: " Nora New ".into(),
        email: "nora@example.net".into(),
        auth: None,
        locale: None,
    };
    let after = w
        .svc
        .reassign_signer(&w.test, &env.id, &client.id, &to)
        .await
        .unwrap();
    let s = &after.signers[0];
    assert_eq!(
        (s.id.as_str(), s.role.as_str()),
        (client.id.as_str(), "Client")
    );
    assert_eq!(
        (s.name.as_str(), s.email.as_str()),
        ("Nora New", "nora@example.net")
    );
    assert_eq!(
        s.status,
        SignerStatus::Pending,
        "the new person has not viewed it"
    );
    assert_eq!(s.viewed_at, None);

    // The previous person's link is dead; the new person got a signing request with a live one.
    let dead = w
        .svc
        .open_signing_link(&World::token(&old_link.url), None, &ClientInfo::default())
        .await
        .unwrap_err();
    assert_eq!(dead.code(), "resource_missing");
    let requests = w.emails(EmailKind::SigningRequest).await;
    let to_nora: Vec<_> = requests
        .iter()
        .filter(|e| e.to.email == "nora@example.net")
        .collect();
    assert_eq!(to_nora.len(), 1);
    let url = to_nora[0]
        .text
        .split_whitespace()
        .find(|w| w.contains("/sign/"))
        .unwrap();
    let session = w
        .svc
        .open_signing_link(&World::token(url), None, &ClientInfo::default())
        .await
        .unwrap();
    assert_eq!(session.envelope.signers[session.signer].name, "Nora New");

    // The event, for the events API and webhooks.
    let events = w
        .svc
        .list_events(
            &w.test,
            &ListParams {
                limit: 10,
                starting_after: None,
            },
            Some("signer.reassigned"),
        )
        .await
        .unwrap();
    assert_eq!(events.data.len(), 1);
    let data = &events.data[0].data;
    let previous = data.previous.as_ref().unwrap();
    assert_eq!(
        (previous.name.as_str(), previous.email.as_str()),
        ("Zoë Client", "client@example.com")
    );
    assert_eq!(data.signer.as_ref().unwrap().email, "nora@example.net");

    // Rules: unknown signer, bad address, done signer, finished envelope.
    let e = w
        .svc
        .reassign_signer(&w.test, &env.id, &"sgn_nope".parse().unwrap(), &to)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "resource_missing");
    let bad = Reassign {
        name: "X".into(),
        email: "x@".into(),
        auth: None,
        locale: None,
    };
    let e = w
        .svc
        .reassign_signer(&w.test, &env.id, &client.id, &bad)
        .await
        .unwrap_err();
    assert_eq!(
        (e.code(), e.param().as_deref()),
        ("parameter_invalid", Some("email"))
    );
    // A bounded history: the tenth hand-over of one signer is the last.
    let provider = env.signers[1].id.clone();
    for n in 0..envelope_core::rules::MAX_REASSIGNMENTS {
        let to = Reassign {
            name: format!("P{n}"),
            email: format!("p{n}@example.net"),
            auth: None,
            locale: None,
        };
        w.svc
            .reassign_signer(&w.test, &env.id, &provider, &to)
            .await
            .unwrap();
    }
    let e = w
        .svc
        .reassign_signer(&w.test, &env.id, &provider, &to)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "invalid_state");
    let done = w.svc.test_complete(&w.test, &env.id).await.unwrap();
    let e = w
        .svc
        .reassign_signer(&w.test, &env.id, &done.signers[1].id, &to)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "invalid_state");

    // The audit trail names both people.
    let link = w
        .svc
        .envelope_file_link(&w.test, &env.id, FileKind::AuditTrail)
        .await
        .unwrap();
    let (_, trail) = w
        .svc
        .open_file_link(&World::token(&link.url))
        .await
        .unwrap();
    let text = support::pdftotext(&trail);
    assert!(text.contains("Signer reassigned"), "{text}");
    assert!(text.contains("client@example.com") && text.contains("nora@example.net"));
}

/// Languages (extensions E4): a signer's `locale` writes their emails in it (English for tags
/// outside the supported set), and the audit trail, in English, lists each locale that was set.
#[tokio::test]
async fn a_signers_locale_writes_their_emails_and_shows_in_the_audit_trail() {
    let w = world().await;
    let env = w
        .create_ok(json!({"signers": [
            {"name": "Jürgen Kunde", "email": "client@example.com", "locale": "de"},
            {"name": "Paul Provider", "email": "provider@example.com", "locale": "xx-YY"}
        ], "data": {"start_date": "2027-04-01"}}))
        .await;
    let locales: Vec<Option<&str>> = env
        .signers
        .iter()
        .map(|s| s.locale.as_ref().map(|l| l.as_str()))
        .collect();
    assert_eq!(locales, [Some("de"), Some("xx-YY")], "kept as given");
    let wire = serde_json::to_value(&env).unwrap();
    assert_eq!(wire["signers"][0]["locale"], "de");

    let requests = w.emails(EmailKind::SigningRequest).await;
    let to = |who: &str| requests.iter().find(|e| e.to.email == who).unwrap().clone();
    let de = to("client@example.com");
    // A test envelope: "[Test] " before the signer's language (extensions E7).
    assert_eq!(
        de.subject,
        format!("[Test] Bitte unterschreiben: {}", env.name)
    );
    assert!(
        de.text.starts_with("Guten Tag Jürgen Kunde,\n\n"),
        "{}",
        de.text
    );
    assert!(
        de.text.contains(&format!(
            "Sie werden gebeten, „{}“ zu unterschreiben.",
            env.name
        )),
        "{}",
        de.text
    );
    let html = de.html.as_deref().unwrap();
    assert!(html.contains("<html lang=\"de\">") && html.contains("Prüfen und unterschreiben"));
    let xx = to("provider@example.com");
    assert_eq!(xx.subject, format!("[Test] Please sign: {}", env.name));
    assert!(xx.text.starts_with("Hello Paul Provider,"), "{}", xx.text);

    let done = w.svc.test_complete(&w.test, &env.id).await.unwrap();
    assert_eq!(done.status, EnvelopeStatus::Completed);
    let completed = w.emails(EmailKind::Completed).await;
    let de = completed
        .iter()
        .find(|e| e.to.email == "client@example.com")
        .unwrap();
    assert_eq!(de.subject, format!("[Test] Abgeschlossen: {}", env.name));

    let link = w
        .svc
        .envelope_file_link(&w.test, &env.id, FileKind::AuditTrail)
        .await
        .unwrap();
    let (_, trail) = w
        .svc
        .open_file_link(&World::token(&link.url))
        .await
        .unwrap();
    let text = support::pdftotext(&trail);
    let squashed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(squashed.matches("Locale").count(), 2, "{text}");
    // Labels and values are columns: the values are lines of their own.
    assert!(text.lines().any(|l| l.trim() == "de"), "{text}");
    assert!(text.lines().any(|l| l.trim() == "xx-YY"), "{text}");
    assert!(squashed.contains("Audit trail") && !squashed.contains("Unterschrift"));

    // Without locales the trail has no such row, as before.
    let plain = w
        .create_ok(json!({"signers": signers2(), "data": {"start_date": "2027-04-01"}}))
        .await;
    assert!(plain.signers.iter().all(|s| s.locale.is_none()));
    assert!(serde_json::to_value(&plain).unwrap()["signers"][0]["locale"].is_null());
    w.svc.test_complete(&w.test, &plain.id).await.unwrap();
    let link = w
        .svc
        .envelope_file_link(&w.test, &plain.id, FileKind::AuditTrail)
        .await
        .unwrap();
    let (_, trail) = w
        .svc
        .open_file_link(&World::token(&link.url))
        .await
        .unwrap();
    assert!(!support::pdftotext(&trail).contains("Locale"));
}

#[tokio::test]
async fn locales_are_checked_where_they_are_given() {
    use envelope_core::service::Reassign;
    let w = world().await;
    let list = |locale: Value| {
        json!({"signers": [
            {"name": "Zoë Client", "email": "client@example.com", "locale": locale},
            {"name": "Paul Provider", "email": "provider@example.com"}
        ], "data": {"start_date": "2027-04-01"}})
    };
    for (locale, param) in [
        (json!("german!"), "signers.0.locale"),
        (json!("de_DE"), "signers.0.locale"),
        (json!(""), "signers.0.locale"),
        (json!(7), "signers.0.locale"),
    ] {
        let e = w.create(&w.test, list(locale.clone())).await.unwrap_err();
        assert_eq!(e.code(), "parameter_invalid", "{locale}");
        assert_eq!(e.param().as_deref(), Some(param), "{locale}");
    }
    let by_role = json!({"signers": {
        "Client": {"name": "Zoë Client", "email": "client@example.com", "locale": "pt_BR"},
        "Provider": {"name": "Paul Provider", "email": "provider@example.com", "locale": "pt-BR"}
    }, "data": {"start_date": "2027-04-01"}});
    let e = w.create(&w.test, by_role.clone()).await.unwrap_err();
    assert_eq!(e.param().as_deref(), Some("signers.Client.locale"));

    let mut ok = by_role;
    ok["signers"]["Client"]["locale"] = json!("fr-CA");
    let env = w.create_ok(ok).await;
    let by_role: Vec<(&str, Option<&str>)> = env
        .signers
        .iter()
        .map(|s| (s.role.as_str(), s.locale.as_ref().map(|l| l.as_str())))
        .collect();
    assert!(by_role.contains(&("Client", Some("fr-CA"))), "{by_role:?}");
    assert!(
        by_role.contains(&("Provider", Some("pt-BR"))),
        "{by_role:?}"
    );

    // Reassigning: the new person's locale, or none.
    let reassign = |locale: Option<&str>| {
        let mut p = json!({"name": "Nora New", "email": "nora@example.net"});
        if let Some(l) = locale {
            p["locale"] = json!(l);
        }
        Reassign::parse(Params::json(p).unwrap())
    };
    let e = reassign(Some("no tag")).unwrap_err();
    assert_eq!(
        (e.code(), e.param().as_deref()),
        ("parameter_invalid", Some("locale"))
    );
    let client = env.signers.iter().find(|s| s.role == "Client").unwrap();
    let after = w
        .svc
        .reassign_signer(&w.test, &env.id, &client.id, &reassign(Some("nl")).unwrap())
        .await
        .unwrap();
    let locale_of = |e: &envelope_core::model::Envelope| {
        let s = e.signers.iter().find(|s| s.id == client.id).unwrap();
        s.locale.as_ref().map(|l| l.to_string())
    };
    assert_eq!(locale_of(&after).as_deref(), Some("nl"));
    let request = w.emails(EmailKind::SigningRequest).await;
    let nora = request
        .iter()
        .rev()
        .find(|e| e.to.email == "nora@example.net")
        .expect("a signing request to the new person");
    assert!(
        nora.subject.starts_with("[Test] Ter ondertekening: "),
        "{}",
        nora.subject
    );
    w.clock.advance(Duration::seconds(1));
    let after = w
        .svc
        .reassign_signer(&w.test, &env.id, &client.id, &reassign(None).unwrap())
        .await
        .unwrap();
    assert_eq!(
        locale_of(&after),
        None,
        "not carried over to another person"
    );
}

#[tokio::test]
async fn an_envelope_from_a_template_takes_its_signers_locales() {
    let w = world().await;
    let limits = w.svc.settings().limits.clone();
    let p = CreateTemplateParams::parse(
        Params::json(json!({"name": "MSA", "roles": ["Provider", "Client"]})).unwrap(),
        Some(upload()),
        &limits,
    )
    .unwrap();
    let t = w.svc.create_template(&w.test, p).await.unwrap();
    let body = json!({
        "template": t.id,
        "signers": {
            "Client": {"name": "Chiara", "email": "c@example.com", "locale": "it-IT"},
            "Provider": {"name": "P", "email": "p@example.com"}
        },
        "data": {"start_date": "2027-05-01"}
    });
    let p = CreateEnvelopeParams::parse(Params::json(body).unwrap(), None, &limits).unwrap();
    let env = w.svc.create_envelope(&w.test, p).await.unwrap();
    let client = env.signers.iter().find(|s| s.role == "Client").unwrap();
    assert_eq!(client.locale.as_ref().map(|l| l.as_str()), Some("it-IT"));
    let requests = w.emails(EmailKind::SigningRequest).await;
    let chiara = requests
        .iter()
        .find(|e| e.to.email == "c@example.com")
        .expect("a request to the Client");
    assert_eq!(chiara.subject, "[Test] Documento da firmare: MSA");
    assert!(
        chiara.text.starts_with("Gentile Chiara,"),
        "{}",
        chiara.text
    );
    let p = requests
        .iter()
        .find(|e| e.to.email == "p@example.com")
        .unwrap();
    assert_eq!(p.subject, "[Test] Please sign: MSA");
}

/// `get_envelope_json` answers the bytes of `get_envelope`'s view through every change: its own
/// writes, another service's writes on the same store (another process), an expiry that came due
/// while the view was kept, and never for another account or mode.
#[tokio::test]
async fn the_json_of_an_envelope_follows_every_change() {
    let store: Arc<dyn envelope_core::store::Store> =
        Arc::new(envelope_core::store::MemoryStore::new());
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
    ));
    let service = || {
        SigningService::builder()
            .store(store.clone())
            .mailer(Arc::new(MemoryMailer::new()))
            .clock(clock.clone())
            .build()
    };
    let (svc, other) = (service(), service());
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let test = svc.authenticate(&acct.test_key.secret).await.unwrap();
    let live = svc.authenticate(&acct.live_key.secret).await.unwrap();
    let json_of = |v: &envelope_core::model::Envelope| serde_json::to_vec(v).unwrap();
    let create = async |days: u32| {
        let limits = svc.settings().limits.clone();
        let body =
            json!({"signers": signers2(), "data": {"start_date": "x"}, "expires_in_days": days});
        let p = CreateEnvelopeParams::parse(Params::json(body).unwrap(), Some(upload()), &limits)
            .unwrap();
        svc.create_envelope(&test, p).await.unwrap()
    };

    let env = create(2).await;
    let first = svc.get_envelope_json(&test, &env.id).await.unwrap();
    assert_eq!(&first[..], json_of(&env));
    assert_eq!(svc.get_envelope_json(&test, &env.id).await.unwrap(), first);

    // This service's own write.
    clock.advance(Duration::hours(2));
    svc.remind(&test, &env.id).await.unwrap();
    let reminded = svc.get_envelope(&test, &env.id).await.unwrap();
    assert_ne!(json_of(&reminded), json_of(&env));
    let got = svc.get_envelope_json(&test, &env.id).await.unwrap();
    assert_eq!(&got[..], json_of(&reminded));

    // Another service on the same store writes: this one's kept view is not given again.
    let other_ctx = other.authenticate(&acct.test_key.secret).await.unwrap();
    let voided = other
        .void_envelope(&other_ctx, &env.id, Some("replaced"))
        .await
        .unwrap();
    let got = svc.get_envelope_json(&test, &env.id).await.unwrap();
    assert_eq!(&got[..], json_of(&voided));
    let shown: Value = serde_json::from_slice(&got).unwrap();
    assert_eq!(shown["status"], "voided");

    // An expiry that comes due while the view is kept.
    let env = create(1).await;
    let sent: Value =
        serde_json::from_slice(&svc.get_envelope_json(&test, &env.id).await.unwrap()).unwrap();
    assert_eq!(sent["status"], "sent");
    clock.advance(Duration::days(1));
    let expired = svc.get_envelope_json(&test, &env.id).await.unwrap();
    let shown: Value = serde_json::from_slice(&expired).unwrap();
    assert_eq!(shown["status"], "voided");
    assert_eq!(shown["void_reason"], "expired");
    assert_eq!(
        &expired[..],
        json_of(&svc.get_envelope(&test, &env.id).await.unwrap())
    );

    // Another mode or account: missing, as for `get_envelope`.
    let e = svc.get_envelope_json(&live, &env.id).await.unwrap_err();
    assert_eq!(e.code(), "resource_missing", "{e:?}");
    let stranger = svc.admin().create_account("Other").await.unwrap();
    let stranger = svc.authenticate(&stranger.test_key.secret).await.unwrap();
    let e = svc.get_envelope_json(&stranger, &env.id).await.unwrap_err();
    assert_eq!(e.code(), "resource_missing", "{e:?}");
}
