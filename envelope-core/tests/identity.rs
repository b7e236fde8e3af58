//! Verifying a signer's identity (extensions E2) through the SigningService, on the in-memory
//! seams with a manual clock: the `auth` parameter and its errors, what is stored, the code step
//! in front of every operation of a link, wrong codes and the lockout, emailed codes (once a
//! minute, valid 10 minutes, through the outbox), reassignment, the test helper and the audit
//! trail.

use envelope_core::store::EnvelopeStore;
use envelope_testkit::pdf as support;

use std::sync::Arc;

use chrono::Duration;
use envelope_core::mail::{Email, EmailKind};
use envelope_core::model::{AuthMethod, Envelope, Scope, SignerStatus, SignerValue};
use envelope_core::service::{
    AuthContext, ClientInfo, CreateEnvelopeParams, CreateTemplateParams, FileKind, LinkState,
    Params, Reassign, SignInput, SignerAuth, Upload,
};
use envelope_core::store::{BlobStore, MemoryBlobStore, MemoryStore};
use envelope_core::{Error, ManualClock, MemoryMailer, SigningService, Timestamp};
use serde_json::{Value, json};

const CONTRACT: &[u8] = include_bytes!("../../examples/contract.pdf");

struct World {
    svc: SigningService,
    store: Arc<MemoryStore>,
    blobs: Arc<MemoryBlobStore>,
    mail: Arc<MemoryMailer>,
    clock: Arc<ManualClock>,
    test: AuthContext,
}

async fn world() -> World {
    let mail = Arc::new(MemoryMailer::new());
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
    ));
    let store = Arc::new(MemoryStore::new());
    let blobs = Arc::new(MemoryBlobStore::new());
    let svc = SigningService::builder()
        .store(store.clone())
        .blobs(blobs.clone())
        .mailer(mail.clone())
        .clock(clock.clone())
        .build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let test = svc.authenticate(&acct.test_key.secret).await.unwrap();
    World {
        svc,
        store,
        blobs,
        mail,
        clock,
        test,
    }
}

fn client() -> ClientInfo {
    ClientInfo {
        ip_address: Some("203.0.113.9".into()),
        user_agent: Some("Identity/1.0".into()),
    }
}

impl World {
    async fn create(&self, body: Value) -> envelope_core::Result<Envelope> {
        let limits = self.svc.settings().limits.clone();
        let upload = Upload {
            file_name: "contract.pdf".into(),
            bytes: CONTRACT.to_vec().into(),
        };
        let p = CreateEnvelopeParams::parse(Params::json(body)?, Some(upload), &limits)?;
        self.svc.create_envelope(&self.test, p).await
    }

    /// An envelope of two signers (Client, Provider) with the given `auth` on the client.
    async fn with_client_auth(&self, auth: Value, delivery: &str) -> Envelope {
        self.create(json!({
            "signers": [
                {"name": "Zoë Client", "email": "client@example.com", "auth": auth},
                {"name": "Paul Provider", "email": "provider@example.com"}
            ],
            "data": {"start_date": "2027-04-01"},
            "delivery": delivery,
        }))
        .await
        .unwrap()
    }

    async fn link(&self, env: &Envelope, role: &str) -> String {
        let url = self
            .svc
            .signing_url(&self.test, &env.id, Some(role))
            .await
            .unwrap()
            .url;
        url.rsplit('/').next().unwrap().to_string()
    }

    async fn stored_json(&self, id: &str) -> String {
        let scope = Scope {
            account: self.test.account.id.clone(),
            mode: self.test.mode(),
        };
        let id: envelope_core::EnvelopeId = id.parse().unwrap();
        let rec = self.store.get_envelope(&scope, &id).await.unwrap().unwrap();
        format!("{} {:?}", serde_json::to_string(&rec).unwrap(), rec)
    }

    async fn codes(&self) -> Vec<Email> {
        self.svc.settle_emails().await;
        self.mail
            .sent()
            .into_iter()
            .filter(|e| e.kind == EmailKind::Code)
            .collect()
    }

    async fn audit_trail(&self, id: &envelope_core::ids::EnvelopeId) -> String {
        let link = self
            .svc
            .envelope_file_link(&self.test, id, FileKind::AuditTrail)
            .await
            .unwrap();
        let token = link.url.rsplit('/').next().unwrap().to_string();
        let (_, trail) = self.svc.open_file_link(&token).await.unwrap();
        support::pdftotext(&trail)
    }
}

/// The 6-digit code of a code email.
fn code_of(email: &Email) -> String {
    let code = email
        .text
        .split_whitespace()
        .find(|w| w.len() == 6 && w.bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or_else(|| panic!("no code in {}", email.text));
    assert!(email.html.as_deref().unwrap().contains(code));
    assert!(!email.subject.contains(code), "codes stay out of subjects");
    code.to_string()
}

fn input() -> SignInput {
    SignInput {
        values: [
            (
                "company".to_string(),
                SignerValue::Text("Zoë's Bakery".into()),
            ),
            (
                "Client_signature".to_string(),
                SignerValue::Typed("Zoë Client".into()),
            ),
        ]
        .into(),
        signature: None,
        consent: true,
        attachments: Default::default(),
    }
}

#[tokio::test]
async fn auth_is_validated_shown_by_method_and_stored_hashed() {
    let w = world().await;
    let signer = |auth: Value| json!({"name": "Zoë", "email": "z@example.com", "auth": auth});
    let cases = [
        (json!("1234"), "parameter_invalid", "signers.0.auth"),
        (json!({}), "parameter_missing", "signers.0.auth.method"),
        (
            json!({"method": "sms"}),
            "parameter_invalid",
            "signers.0.auth.method",
        ),
        (
            json!({"method": "access_code"}),
            "parameter_missing",
            "signers.0.auth.access_code",
        ),
        (
            json!({"method": "access_code", "access_code": "123"}),
            "parameter_invalid",
            "signers.0.auth.access_code",
        ),
        (
            json!({"method": "access_code", "access_code": "x".repeat(33)}),
            "parameter_invalid",
            "signers.0.auth.access_code",
        ),
        (
            json!({"method": "access_code", "access_code": "12\n34"}),
            "parameter_invalid",
            "signers.0.auth.access_code",
        ),
        (
            json!({"method": "access_code", "access_code": 1234}),
            "parameter_invalid",
            "signers.0.auth.access_code",
        ),
        (
            json!({"method": "email_code", "access_code": "1234"}),
            "parameter_unknown",
            "signers.0.auth.access_code",
        ),
        (
            json!({"method": "email_code", "phone": "+1"}),
            "parameter_unknown",
            "signers.0.auth.phone",
        ),
    ];
    for (auth, code, param) in cases {
        let e = w
            .create(json!({"signers": [signer(auth.clone())], "signature_page": true}))
            .await
            .unwrap_err();
        assert_eq!(
            (e.code(), e.param().as_deref()),
            (code, Some(param)),
            "{auth}"
        );
    }
    // The role-keyed form names the role.
    let e = w
        .create(json!({
            "signers": {"Client": {"name": "Z", "email": "z@example.com",
                                   "auth": {"method": "access_code", "access_code": "1"}},
                        "Provider": {"name": "P", "email": "p@example.com"}},
            "data": {"start_date": "x"}
        }))
        .await
        .unwrap_err();
    assert_eq!(
        e.param().as_deref(),
        Some("signers.Client.auth.access_code")
    );

    let env = w
        .create(json!({
            "signers": {"Client": {"name": "Z", "email": "z@example.com",
                                   "auth": {"method": "access_code", "access_code": "Tulip-4821"}},
                        "Provider": {"name": "P", "email": "p@example.com",
                                     "auth": {"method": "email_code"}}},
            "data": {"start_date": "x"}
        }))
        .await
        .unwrap();
    let view = serde_json::to_value(&env).unwrap();
    assert_eq!(
        view["signers"][0]["auth"],
        json!({"method": "access_code"}),
        "{view}"
    );
    assert_eq!(view["signers"][1]["auth"], json!({"method": "email_code"}));
    assert!(!view.to_string().contains("Tulip-4821"));
    let stored = w.stored_json(&env.id).await;
    assert!(stored.contains("access_code_hash"), "{stored}");
    assert!(!stored.contains("Tulip-4821"), "only a digest is stored");
    // Events carry the same view.
    let events = w
        .svc
        .list_events(
            &w.test,
            &envelope_core::service::ListParams {
                limit: 10,
                starting_after: None,
            },
            None,
        )
        .await
        .unwrap();
    assert!(!serde_json::to_string(&events).unwrap().contains("Tulip"));

    // Built in Rust: the same check.
    let bad = SignerAuth::AccessCode("abc".into());
    assert_eq!(
        bad.validate("signers.0.auth")
            .unwrap_err()
            .param()
            .as_deref(),
        Some("signers.0.auth.access_code")
    );
    assert!(!format!("{:?}", SignerAuth::AccessCode("Tulip".into())).contains("Tulip"));

    // Without auth: `auth: null`, nothing else changes.
    let plain = w
        .create(json!({
            "signers": [{"name": "A", "email": "a@example.com"}, {"name": "B", "email": "b@example.com"}],
            "data": {"start_date": "x"}
        }))
        .await
        .unwrap();
    let view = serde_json::to_value(&plain).unwrap();
    assert_eq!(view["signers"][0]["auth"], Value::Null);
    assert!(view["signers"][0].as_object().unwrap().contains_key("auth"));
}

#[tokio::test]
async fn an_access_code_guards_every_operation_of_the_link() {
    let w = world().await;
    let env = w
        .with_client_auth(
            json!({"method": "access_code", "access_code": "Tulip-4821"}),
            "email",
        )
        .await;
    let token = w.link(&env, "Client").await;

    // Without the code: the code step, not viewed, nothing of the document.
    let s = w
        .svc
        .open_signing_link(&token, None, &client())
        .await
        .unwrap();
    assert_eq!(s.state, LinkState::VerificationRequired);
    assert!(s.fields.is_empty() && s.message.is_none());
    let v = s.verification.as_ref().unwrap();
    assert_eq!((v.method, v.attempts_left), (AuthMethod::AccessCode, 5));
    assert_eq!(s.envelope.signers[0].status, SignerStatus::Pending);
    let refused = |r: envelope_core::Result<()>| r.unwrap_err().code();
    assert_eq!(
        refused(w.svc.signing_document(&token, None).await.map(drop)),
        "verification_required"
    );
    assert_eq!(
        refused(w.svc.sign(&token, None, input(), &client()).await.map(drop)),
        "verification_required"
    );
    assert_eq!(
        refused(
            w.svc
                .decline(&token, None, Some("no"), &client())
                .await
                .map(drop)
        ),
        "verification_required"
    );
    assert_eq!(
        refused(
            w.svc
                .signing_document(&token, Some("forged"))
                .await
                .map(drop)
        ),
        "verification_required"
    );
    assert!(w.codes().await.is_empty(), "access codes are never emailed");

    // A wrong code names the attempts left; the right one gives a grant.
    let e = w
        .svc
        .verify_signer(&token, "tulip-4821", &client())
        .await
        .unwrap_err();
    assert!(
        matches!(e, Error::IncorrectCode { attempts_left: 4 }),
        "{e}"
    );
    assert_eq!(e.param().as_deref(), Some("code"));
    let grant = w
        .svc
        .verify_signer(&token, "Tulip-4821", &client())
        .await
        .unwrap();
    assert!(!format!("{grant:?}").contains(&grant.secret));
    assert_eq!(grant.expires_at, w.clock_now() + Duration::hours(12));
    assert!(!w.stored_json(&env.id).await.contains(&grant.secret));
    let g = Some(grant.secret.as_str());

    let s = w.svc.open_signing_link(&token, g, &client()).await.unwrap();
    assert_eq!(s.state, LinkState::Ready);
    assert_eq!(s.envelope.signers[0].status, SignerStatus::Viewed);
    assert!(!s.fields.is_empty());
    let (_, pdf) = w.svc.signing_document(&token, g).await.unwrap();
    assert!(pdf.starts_with(b"%PDF"));

    // The grant lasts 12 hours.
    w.clock.advance(Duration::hours(12));
    let s = w.svc.open_signing_link(&token, g, &client()).await.unwrap();
    assert_eq!(s.state, LinkState::VerificationRequired);
    let grant = w
        .svc
        .verify_signer(&token, "Tulip-4821", &client())
        .await
        .unwrap();
    let env = w
        .svc
        .sign(&token, Some(&grant.secret), input(), &client())
        .await
        .unwrap();
    assert_eq!(env.signers[0].status, SignerStatus::Completed);
    // A link that is done cannot be verified again.
    let e = w
        .svc
        .verify_signer(&token, "Tulip-4821", &client())
        .await
        .unwrap_err();
    assert_eq!(e.code(), "signer_not_actionable");
}

impl World {
    fn clock_now(&self) -> Timestamp {
        use envelope_core::Clock;
        self.clock.now()
    }
}

#[tokio::test]
async fn five_wrong_codes_lock_the_link_for_fifteen_minutes_in_every_process() {
    let w = world().await;
    let env = w
        .with_client_auth(
            json!({"method": "access_code", "access_code": "4821"}),
            "email",
        )
        .await;
    let token = w.link(&env, "Client").await;
    for left in (1..=4).rev() {
        let e = w
            .svc
            .verify_signer(&token, "0000", &client())
            .await
            .unwrap_err();
        assert!(matches!(e, Error::IncorrectCode { attempts_left } if attempts_left == left));
    }
    let e = w
        .svc
        .verify_signer(&token, "0000", &client())
        .await
        .unwrap_err();
    let until = w.clock_now() + Duration::minutes(15);
    assert!(
        matches!(e, Error::VerificationLocked { until: u } if u == Some(until)),
        "{e}"
    );
    assert_eq!(e.code(), "verification_locked");
    assert!(e.to_string().contains("locked until 12:15 UTC"), "{e}");

    // Another process on the same store sees the lock: it lives in the record.
    let other = SigningService::builder()
        .store(w.store.clone())
        .blobs(w.blobs.clone() as Arc<dyn BlobStore>)
        .clock(w.clock.clone())
        .build();
    let e = other
        .verify_signer(&token, "4821", &client())
        .await
        .unwrap_err();
    assert_eq!(e.code(), "verification_locked", "the right code waits too");
    let s = other
        .open_signing_link(&token, None, &client())
        .await
        .unwrap();
    let v = s.verification.unwrap();
    assert_eq!((v.attempts_left, v.locked_until), (0, Some(until)));

    w.clock.advance(Duration::minutes(14));
    assert!(
        w.svc
            .verify_signer(&token, "4821", &client())
            .await
            .is_err()
    );
    w.clock.advance(Duration::minutes(1));
    let e = w
        .svc
        .verify_signer(&token, "0000", &client())
        .await
        .unwrap_err();
    assert!(
        matches!(e, Error::IncorrectCode { attempts_left: 4 }),
        "the count starts again: {e}"
    );
    other
        .verify_signer(&token, "4821", &client())
        .await
        .unwrap();
}

#[tokio::test]
async fn emailed_codes_once_a_minute_valid_ten_minutes_embedded_too() {
    let w = world().await;
    let env = w
        .with_client_auth(json!({"method": "email_code"}), "embedded")
        .await;
    let token = w.link(&env, "Client").await;
    assert!(
        w.codes().await.is_empty(),
        "no code before the page is opened"
    );

    // Opening the page emails nothing (link scanners open links, extensions E8); the signer's
    // request emails a code, through the outbox, even with embedded delivery.
    let s = w
        .svc
        .open_signing_link(&token, None, &client())
        .await
        .unwrap();
    assert_eq!(s.state, LinkState::VerificationRequired);
    assert!(!s.verification.as_ref().unwrap().code_outstanding);
    assert!(w.codes().await.is_empty(), "opening sent a code");
    w.svc.send_signer_code(&token, &client()).await.unwrap();
    let codes = w.codes().await;
    assert_eq!(codes.len(), 1);
    assert_eq!(codes[0].to.email, "client@example.com");
    let first = code_of(&codes[0]);
    assert!(
        !w.stored_json(&env.id).await.contains(&first),
        "only a digest is stored"
    );
    let after = w.svc.get_envelope(&w.test, &env.id).await.unwrap();
    let last = after.signers[0].last_email.as_ref().unwrap();
    assert_eq!(
        serde_json::to_value(last.kind).unwrap(),
        json!("code"),
        "the code email is the signer's last_email"
    );

    // Reloading sends nothing more; asking within the minute is refused with the wait.
    w.clock.advance(Duration::seconds(20));
    w.svc
        .open_signing_link(&token, None, &client())
        .await
        .unwrap();
    let e = w.svc.send_signer_code(&token, &client()).await.unwrap_err();
    assert!(
        matches!(
            e,
            Error::CodeRecentlySent {
                retry_after_secs: 40
            }
        ),
        "{e}"
    );
    assert_eq!(w.codes().await.len(), 1);

    // After the minute a new code goes out; only the newest works.
    w.clock.advance(Duration::seconds(40));
    w.svc.send_signer_code(&token, &client()).await.unwrap();
    let codes = w.codes().await;
    assert_eq!(codes.len(), 2);
    let second = code_of(&codes[1]);
    if first != second {
        let e = w
            .svc
            .verify_signer(&token, &first, &client())
            .await
            .unwrap_err();
        assert_eq!(e.code(), "incorrect_code");
    }

    // Ten minutes after it was sent, the code has expired (and that does not count).
    w.clock.advance(Duration::minutes(10));
    let e = w
        .svc
        .verify_signer(&token, &second, &client())
        .await
        .unwrap_err();
    assert_eq!(e.code(), "code_expired");

    // Asking again sends a fresh code; it works within ten minutes, once.
    w.svc.send_signer_code(&token, &client()).await.unwrap();
    let codes = w.codes().await;
    assert_eq!(codes.len(), 3);
    let third = code_of(&codes[2]);
    w.clock.advance(Duration::minutes(9));
    let grant = w
        .svc
        .verify_signer(
            &token,
            &format!("{} {}", &third[..3], &third[3..]),
            &client(),
        )
        .await
        .unwrap();
    let e = w
        .svc
        .verify_signer(&token, &third, &client())
        .await
        .unwrap_err();
    assert_eq!(e.code(), "code_expired", "a code works once");
    let s = w
        .svc
        .open_signing_link(&token, Some(&grant.secret), &client())
        .await
        .unwrap();
    assert_eq!(s.state, LinkState::Ready);
    w.svc
        .sign(&token, Some(&grant.secret), input(), &client())
        .await
        .unwrap();
    // A signer who signed gets no more codes.
    assert_eq!(w.codes().await.len(), 3);
}

#[tokio::test]
async fn reassigning_sets_the_new_method_and_resets_verification() {
    let w = world().await;
    let env = w
        .with_client_auth(
            json!({"method": "access_code", "access_code": "4821"}),
            "email",
        )
        .await;
    let client_id = env.signers[0].id.clone();
    let token = w.link(&env, "Client").await;
    let grant = w
        .svc
        .verify_signer(&token, "4821", &client())
        .await
        .unwrap();
    w.clock.advance(Duration::seconds(1));

    let to = Reassign {
        name: "Nora New".into(),
        email: "nora@example.net".into(),
        auth: Some(SignerAuth::EmailCode),
        locale: None,
    };
    let after = w
        .svc
        .reassign_signer(&w.test, &env.id, &client_id, &to)
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&after.signers[0]).unwrap()["auth"],
        json!({"method": "email_code"})
    );
    let token = w.link(&after, "Client").await;
    let s = w
        .svc
        .open_signing_link(&token, Some(&grant.secret), &client())
        .await
        .unwrap();
    assert_eq!(
        s.state,
        LinkState::VerificationRequired,
        "the previous person's grant is no good"
    );
    assert!(w.codes().await.is_empty(), "opening sends no code");
    w.svc.send_signer_code(&token, &client()).await.unwrap();
    let codes = w.codes().await;
    assert_eq!(codes.len(), 1);
    assert_eq!(codes[0].to.email, "nora@example.net");

    // Bad auth on reassign names `auth.*`; without auth the new person has no check.
    let bad = Reassign {
        auth: Some(SignerAuth::AccessCode("12".into())),
        ..to.clone()
    };
    let e = w
        .svc
        .reassign_signer(&w.test, &env.id, &client_id, &bad)
        .await
        .unwrap_err();
    assert_eq!(e.param().as_deref(), Some("auth.access_code"));
    let plain = Reassign { auth: None, ..to };
    let after = w
        .svc
        .reassign_signer(&w.test, &env.id, &client_id, &plain)
        .await
        .unwrap();
    assert_eq!(after.signers[0].auth, None);
    let token = w.link(&after, "Client").await;
    let s = w
        .svc
        .open_signing_link(&token, None, &client())
        .await
        .unwrap();
    assert_eq!(s.state, LinkState::Ready);

    // From request parameters: `auth` is taken, unknown members still refused.
    let p = Params::json(json!({"name": "A", "email": "a@example.com",
                                "auth": {"method": "access_code", "access_code": "9999"}}))
    .unwrap();
    let r = Reassign::parse(p).unwrap();
    assert_eq!(r.auth, Some(SignerAuth::AccessCode("9999".into())));
    let p = Params::json(json!({"name": "A", "email": "a@example.com", "auth": {"method": "x"}}))
        .unwrap();
    assert_eq!(
        Reassign::parse(p).unwrap_err().param().as_deref(),
        Some("auth.method")
    );
}

#[tokio::test]
async fn the_audit_trail_shows_verification_and_the_test_helper_skipping_it() {
    let w = world().await;
    let env = w
        .create(json!({
            "signers": [
                {"name": "Zoë Client", "email": "client@example.com",
                 "auth": {"method": "access_code", "access_code": "4821"}},
                {"name": "Paul Provider", "email": "provider@example.com",
                 "auth": {"method": "email_code"}}
            ],
            "data": {"start_date": "2027-04-01"},
        }))
        .await
        .unwrap();
    let token = w.link(&env, "Client").await;
    w.clock.advance(Duration::minutes(1));
    let grant = w
        .svc
        .verify_signer(&token, "4821", &client())
        .await
        .unwrap();
    w.svc
        .sign(&token, Some(&grant.secret), input(), &client())
        .await
        .unwrap();
    w.clock.advance(Duration::minutes(1));
    let done = w.svc.test_complete(&w.test, &env.id).await.unwrap();
    assert_eq!(done.status, envelope_core::model::EnvelopeStatus::Completed);
    let text = w.audit_trail(&env.id).await;
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("Identity verified"), "{text}");
    assert!(flat.contains("Method: access code"), "{text}");
    assert!(
        flat.contains("2027-03-10 12:01:00 UTC"),
        "the time of verification: {text}"
    );
    assert!(flat.contains("Identity not verified"), "{text}");
    assert!(
        flat.contains(
            "Method: code sent by email; skipped: the test helper completed the envelope"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn envelopes_from_templates_take_auth_too() {
    let w = world().await;
    let limits = w.svc.settings().limits.clone();
    let upload = Upload {
        file_name: "contract.pdf".into(),
        bytes: CONTRACT.to_vec().into(),
    };
    let p = CreateTemplateParams::parse(
        Params::json(json!({"name": "MSA"})).unwrap(),
        Some(upload),
        &limits,
    )
    .unwrap();
    let t = w.svc.create_template(&w.test, p).await.unwrap();
    let body = json!({
        "template": t.id,
        "signers": {
            "Client": {"name": "C", "email": "c@example.com",
                       "auth": {"method": "access_code", "access_code": "4821"}},
            "Provider": {"name": "P", "email": "p@example.com", "auth": {"method": "email_code"}}
        },
        "data": {"start_date": "2027-05-01"}
    });
    let p = CreateEnvelopeParams::parse(Params::json(body).unwrap(), None, &limits).unwrap();
    let env = w.svc.create_envelope(&w.test, p).await.unwrap();
    let methods: Vec<_> = env
        .signers
        .iter()
        .map(|s| (s.role.as_str(), s.auth.map(|a| a.method)))
        .collect();
    assert_eq!(
        methods,
        [
            ("Client", Some(AuthMethod::AccessCode)),
            ("Provider", Some(AuthMethod::EmailCode))
        ]
    );
    let token = w.link(&env, "Client").await;
    let s = w
        .svc
        .open_signing_link(&token, None, &client())
        .await
        .unwrap();
    assert_eq!(s.state, LinkState::VerificationRequired);
}
