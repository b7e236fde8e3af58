//! The typed embedding API: built parameters make the same envelopes as parsed ones and get the
//! same refusals, and a whole envelope runs through typed calls only (the signer's side through
//! a `SigningLink`, the signed PDF read in process).

use envelope_testkit::pdf as support;

use std::sync::Arc;

use envelope_core::field::FieldType;
use envelope_core::i18n::Locale;
use envelope_core::model::{EnvelopeStatus, SignerValue};
use envelope_core::service::{
    AuthContext, ClientInfo, CreateEnvelope, CreateEnvelopeParams, CreateTemplate,
    CreateTemplateParams, FieldSpec, FileKind, Params, SignInput, Signer, SignerAuth, Upload,
};
use envelope_core::{Error, ManualClock, SigningService, Timestamp};
use serde_json::{Value, json};

const CONTRACT: &[u8] = include_bytes!("../../examples/contract.pdf");

async fn world() -> (SigningService, AuthContext) {
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
    ));
    let svc = SigningService::builder().clock(clock).build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
    (svc, ctx)
}

fn contract() -> Upload {
    Upload::new("contract.pdf", CONTRACT.to_vec())
}

/// The view as JSON with every generated ID replaced, so that two envelopes made the same way
/// compare equal.
fn normalized(v: &impl serde::Serialize) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k == "id" {
                        *x = json!("<id>");
                    } else {
                        walk(x);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(v).unwrap();
    walk(&mut v);
    v
}

fn parsed(body: Value, file: Option<Upload>) -> CreateEnvelopeParams {
    CreateEnvelopeParams::parse(Params::json(body).unwrap(), file, &Default::default()).unwrap()
}

#[tokio::test]
async fn a_built_envelope_equals_the_parsed_one() {
    let (svc, ctx) = world().await;
    let template = svc
        .create_template(
            &ctx,
            CreateTemplate::new("Services agreement", contract()).roles(["Client", "Provider"]),
        )
        .await
        .unwrap();
    let parsed_template = svc
        .create_template(
            &ctx,
            CreateTemplateParams::parse(
                Params::json(
                    json!({"name": "Services agreement", "roles": ["Client", "Provider"]}),
                )
                .unwrap(),
                Some(contract()),
                &Default::default(),
            )
            .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(normalized(&template), normalized(&parsed_template));

    // The object form (signers by role), with data, cc, metadata and the other options.
    let built = svc
        .create_envelope(
            &ctx,
            CreateEnvelope::from_template(&template.id)
                .signer("Provider", "Pat Provider", "pat@example.com")
                .signer("Client", "Zoë Client", "zoe@example.com")
                .data("start_date", "2027-01-01")
                .cc("Legal", "legal@example.com")
                .metadata("deal", "42")
                .name("MSA")
                .subject("Please sign")
                .message("Thanks")
                .signing_order(true)
                .expires_in_days(10),
        )
        .await
        .unwrap();
    let from_json = svc
        .create_envelope(
            &ctx,
            parsed(
                json!({
                    "template": template.id,
                    "signers": {
                        "Provider": {"name": "Pat Provider", "email": "pat@example.com"},
                        "Client": {"name": "Zoë Client", "email": "zoe@example.com"}
                    },
                    "data": {"start_date": "2027-01-01"},
                    "cc": [{"name": "Legal", "email": "legal@example.com"}],
                    "metadata": {"deal": "42"},
                    "name": "MSA", "subject": "Please sign", "message": "Thanks",
                    "signing_order": true, "expires_in_days": 10
                }),
                None,
            ),
        )
        .await
        .unwrap();
    assert_eq!(built.status, EnvelopeStatus::Sent);
    // The signing order follows the document's roles, not the order given.
    assert_eq!(built.signers[1].role, "Client");
    assert_eq!(built.signers[1].order, 1);
    assert_eq!(normalized(&built), normalized(&from_json));

    // The list form, from a PDF, with explicit fields, a locale, an identity check and a draft.
    let pdf = support::simple_pdf(&["Offer letter"]);
    let built = svc
        .create_envelope(
            &ctx,
            CreateEnvelope::from_pdf(Upload::new("offer.pdf", pdf.clone()))
                .add_signer(
                    Signer::new("Ada Lovelace", "ada@example.com")
                        .role("Candidate")
                        .order(2)
                        .locale(Locale::parse("fr-CA").unwrap())
                        .auth(SignerAuth::AccessCode("4711".into())),
                )
                .add_signer(Signer::new("Hiring Manager", "hm@example.com"))
                .field(
                    FieldSpec::for_role("Signer 2", FieldType::Signature)
                        .at(1, 300.0, 600.0)
                        .size(150.0, 30.0),
                )
                .field(
                    FieldSpec::for_role("Candidate", FieldType::Signature)
                        .at(1, 72.0, 600.0)
                        .size(200.0, 40.0),
                )
                .field(
                    FieldSpec::sender(FieldType::Checkbox)
                        .key("remote")
                        .at(1, 72.0, 100.0)
                        .size(12.0, 12.0),
                )
                .data("remote", true)
                .embedded()
                .draft(),
        )
        .await
        .unwrap();
    let from_json = svc
        .create_envelope(
            &ctx,
            parsed(
                json!({
                    "file_base64": base64_of(&pdf), "file_name": "offer.pdf",
                    "signers": [
                        {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Candidate",
                         "order": 2, "locale": "fr-CA",
                         "auth": {"method": "access_code", "access_code": "4711"}},
                        {"name": "Hiring Manager", "email": "hm@example.com"}
                    ],
                    "fields": [
                        {"type": "signature", "role": "Candidate", "page": 1, "x": 72.0,
                         "y": 600.0, "width": 200.0, "height": 40.0},
                        {"type": "signature", "role": "Signer 2", "page": 1, "x": 300,
                         "y": 600, "width": 150, "height": 30},
                        {"type": "checkbox", "filled_by": "sender", "key": "remote", "page": 1,
                         "x": 72.0, "y": 100.0, "width": 12.0, "height": 12.0}
                    ],
                    "data": {"remote": true},
                    "delivery": "embedded", "send": false
                }),
                None,
            ),
        )
        .await
        .unwrap();
    assert_eq!(built.status, EnvelopeStatus::Draft);
    assert_eq!(built.signers[0].order, 2);
    assert_eq!(built.signers[1].role, "Signer 2");
    assert_eq!(normalized(&built), normalized(&from_json));
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// `(code, param)` of a refusal.
fn refusal(e: Error) -> (String, Option<String>) {
    (e.code().to_string(), e.param())
}

#[tokio::test]
async fn built_parameters_are_refused_like_parsed_ones() {
    let (svc, ctx) = world().await;
    let refused = |b: CreateEnvelope| {
        let svc = svc.clone();
        let ctx = ctx.clone();
        async move { refusal(svc.create_envelope(&ctx, b).await.unwrap_err()) }
    };
    let base = || CreateEnvelope::from_pdf(contract()).data("start_date", "2027-01-01");
    let invalid = |p: &str| ("parameter_invalid".to_string(), Some(p.to_string()));

    // Each of these is refused with the parameter a request would name.
    assert_eq!(
        refused(base().signer("Client", "Zoë", "not-an-email")).await,
        invalid("signers.Client.email")
    );
    assert_eq!(
        refused(base().add_signer(Signer::new("Zoë", "zoe@example.com").order(1001))).await,
        invalid("signers.0.order")
    );
    assert_eq!(
        refused(base().add_signer(
            Signer::new("Zoë", "zoe@example.com").auth(SignerAuth::AccessCode("12".into()))
        ))
        .await,
        invalid("signers.0.auth.access_code")
    );
    assert_eq!(
        refused(
            base()
                .signer("Client", "Zoë", "zoe@example.com")
                .metadata("k".repeat(41), "v")
        )
        .await,
        invalid(&format!("metadata.{}", "k".repeat(41)))
    );
    assert_eq!(
        refused(
            CreateEnvelope::from_pdf(Upload::new("../contract.pdf", CONTRACT.to_vec())).signer(
                "Client",
                "Zoë",
                "zoe@example.com"
            )
        )
        .await,
        invalid("file_name")
    );
    assert_eq!(
        refused(
            base()
                .signer("Client", "Zoë", "zoe@example.com")
                .signer("Provider", "Pat", "pat@example.com")
                .field(
                    FieldSpec::for_role("Client", FieldType::Text)
                        .at(0, 1.0, 1.0)
                        .size(10.0, 10.0)
                )
        )
        .await,
        invalid("fields.0.page")
    );
    assert_eq!(
        refused(
            base()
                .signer("Client", "Zoë", "zoe@example.com")
                .signer("Provider", "Pat", "pat@example.com")
                .field(
                    FieldSpec::for_role("Client", FieldType::Text)
                        .at(1, 1.0, 1.0)
                        .size(f64::NAN, 10.0)
                )
        )
        .await,
        invalid("fields.0.width")
    );
    // A choice field's options are checked as a request's are (extensions E6).
    assert_eq!(
        refused(
            base()
                .signer("Client", "Zoë", "zoe@example.com")
                .signer("Provider", "Pat", "pat@example.com")
                .field(
                    FieldSpec::for_role("Client", FieldType::Radio)
                        .options(["Yes", "No", "Yes"])
                        .at(1, 1.0, 1.0)
                        .size(10.0, 10.0)
                )
        )
        .await,
        invalid("fields.0.options.2")
    );
    // As in a request, a field needs its place and size.
    assert_eq!(
        refused(
            base()
                .signer("Client", "Zoë", "zoe@example.com")
                .signer("Provider", "Pat", "pat@example.com")
                .field(FieldSpec::for_role("Client", FieldType::Text).size(10.0, 10.0))
        )
        .await,
        (
            "parameter_missing".to_string(),
            Some("fields.0.page".to_string())
        )
    );
    assert_eq!(
        refused(
            CreateEnvelope::from_pdf(contract())
                .signer("Client", "Zoë", "zoe@example.com")
                .signer("Provider", "Pat", "pat@example.com")
        )
        .await,
        ("missing_data".to_string(), Some("data".to_string()))
    );
    assert_eq!(
        refused(CreateEnvelope::from_pdf(contract())).await,
        invalid("signers")
    );

    // Templates: a role listed twice, a name too long.
    let e = svc
        .create_template(
            &ctx,
            CreateTemplate::new("T", contract()).roles(["Client", "Provider", "Client"]),
        )
        .await
        .unwrap_err();
    assert_eq!(refusal(e), invalid("roles.2"));
    let e = svc
        .create_template(&ctx, CreateTemplate::new("n".repeat(501), contract()))
        .await
        .unwrap_err();
    assert_eq!(refusal(e), invalid("name"));
    // Nothing was stored by any refusal.
    let list = svc
        .list_envelopes(&ctx, &Default::default(), None)
        .await
        .unwrap();
    assert!(list.data.is_empty());
}

#[tokio::test]
async fn a_whole_envelope_through_typed_calls() {
    let (svc, ctx) = world().await;
    let envelope = svc
        .create_envelope(
            &ctx,
            CreateEnvelope::from_pdf(contract())
                .signer("Client", "Zoë Client", "zoe@example.com")
                .signer("Provider", "Pat Provider", "pat@example.com")
                .data("start_date", "2027-01-01")
                .signing_order(true),
        )
        .await
        .unwrap();

    let mut current = envelope;
    for (role, name) in [("Client", "Zoë Client"), ("Provider", "Pat Provider")] {
        // Without a signer, the link is for the only one who can sign now.
        let link = svc.signing_link(&ctx, &current.id, None).await.unwrap();
        assert_eq!(link.role, role);
        assert!(link.url.ends_with(&format!("/sign/{}", link.token)));
        assert_eq!(link.view().url, link.url);
        assert!(!format!("{link:?}").contains(&link.token));

        let session = svc
            .open_signing_link(&link.token, None, &ClientInfo::default())
            .await
            .unwrap();
        let mut input = SignInput::new();
        for field in &session.fields {
            input = match field.kind {
                FieldType::Signature => input.value(&field.key, SignerValue::typed(name)),
                FieldType::Text => input.value(&field.key, "Acme Ltd"),
                _ => input,
            };
        }
        // Consent is required.
        let e = svc
            .sign(&link.token, None, input.clone(), &ClientInfo::default())
            .await
            .unwrap_err();
        assert_eq!(
            refusal(e),
            ("parameter_missing".into(), Some("consent".into()))
        );
        current = svc
            .sign(&link.token, None, input.consent(), &ClientInfo::default())
            .await
            .unwrap();
    }
    assert_eq!(current.status, EnvelopeStatus::Completed);

    let (name, signed) = svc
        .envelope_file(&ctx, &current.id, FileKind::Signed, None)
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert_eq!(name, "contract-signed.pdf");
    // The signed copy is the original with an update appended.
    assert!(signed.len() > CONTRACT.len() && signed.starts_with(CONTRACT));
    let (_, audit) = svc
        .envelope_file(&ctx, &current.id, FileKind::AuditTrail, None)
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert!(audit.starts_with(b"%PDF-"));
    let text = support::pdftotext(&signed);
    assert!(text.contains("Acme Ltd"), "{text}");

    // The same refusals as the download link's.
    let draft = svc
        .create_envelope(
            &ctx,
            CreateEnvelope::from_pdf(contract())
                .signer("Client", "Zoë Client", "zoe@example.com")
                .signer("Provider", "Pat Provider", "pat@example.com")
                .data("start_date", "2027-01-01")
                .draft(),
        )
        .await
        .unwrap();
    let e = svc
        .envelope_file(&ctx, &draft.id, FileKind::Signed, None)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "file_not_ready");
    let (_, original) = svc
        .envelope_file(&ctx, &draft.id, FileKind::Original, None)
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert_eq!(&original[..], CONTRACT);
    let e = svc
        .envelope_file(
            &ctx,
            &"env_missing".parse().unwrap(),
            FileKind::Original,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(e.code(), "resource_missing");
}

/// `roles` is stranger input as long as a request's JSON allows: it is checked in one pass, and
/// the answer is the first bad entry, else the count.
#[test]
fn template_roles_are_checked_in_one_pass() {
    let parse = |roles: Vec<Value>| {
        let body = json!({"name": "T", "roles": roles});
        CreateTemplateParams::parse(
            Params::json(body).unwrap(),
            Some(contract()),
            &Default::default(),
        )
        .map(|p| p.roles.unwrap().len())
        .map_err(refusal)
    };
    let invalid = |p: &str| ("parameter_invalid".to_string(), Some(p.to_string()));
    let mut many: Vec<Value> = (0..99_000).map(|i| json!(format!("Role {i}"))).collect();
    many.push(json!("Role 17"));
    let started = std::time::Instant::now();
    assert_eq!(parse(many.clone()), Err(invalid("roles.99000")));
    many.pop();
    assert_eq!(parse(many.clone()), Err(invalid("roles")));
    many[3] = json!(5);
    assert_eq!(parse(many), Err(invalid("roles.3")));
    // A quadratic check of 99,000 entries takes minutes; one pass takes milliseconds.
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(parse(vec![json!("Client"), json!("Provider")]), Ok(2));
}

#[tokio::test]
async fn several_documents_through_typed_calls() {
    let (svc, ctx) = world().await;
    let two = || {
        CreateEnvelope::from_pdf(contract())
            .document(Upload::new("annex.pdf", CONTRACT.to_vec()))
            .signer("Client", "Zoë Client", "zoe@example.com")
            .signer("Provider", "Pat Provider", "pat@example.com")
            .data("start_date", "2027-01-01")
            .data("start_date_2", "2027-02-01")
    };
    let env = svc
        .create_envelope(
            &ctx,
            two().field(
                FieldSpec::for_role("Client", FieldType::Select)
                    .key("plan")
                    .options(["basic", "pro"])
                    .document(2)
                    .at(1, 72.0, 72.0)
                    .size(120.0, 20.0),
            ),
        )
        .await
        .unwrap();
    let names: Vec<_> = env.documents.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["contract.pdf", "annex.pdf"]);
    // The Client's fields, as their signing link shows them: the select on the annex, and
    // each document's tags (the annex's keys numbered on).
    let client = env.signers.iter().find(|s| s.role == "Client").unwrap();
    let link = svc
        .signing_link(&ctx, &env.id, Some(&client.id))
        .await
        .unwrap();
    let session = svc
        .open_signing_link(&link.token, None, &ClientInfo::default())
        .await
        .unwrap();
    let plan = session.fields.iter().find(|f| f.key == "plan").unwrap();
    assert_eq!(plan.document, 2);
    assert!(
        session
            .fields
            .iter()
            .any(|f| f.document == 2 && f.key.ends_with("_2")),
        "{:?}",
        session.fields
    );
    let (name, annex) = svc
        .envelope_file(&ctx, &env.id, FileKind::Original, Some(2))
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert_eq!((name.as_str(), &annex[..]), ("annex.pdf", CONTRACT));

    // A field on a document the envelope does not have is refused as a request's would be.
    let e = svc
        .create_envelope(
            &ctx,
            two().field(
                FieldSpec::for_role("Client", FieldType::Text)
                    .document(3)
                    .at(1, 72.0, 72.0)
                    .size(120.0, 20.0),
            ),
        )
        .await
        .unwrap_err();
    assert_eq!(
        refusal(e),
        (
            "parameter_invalid".to_string(),
            Some("fields.0.document".to_string())
        )
    );
}

/// `examples/embed.rs` itself, so that the test runs the flow the example shows.
#[allow(dead_code)]
#[path = "../../examples/embed.rs"]
mod embed_example;

/// `pdfsig`'s report (poppler; scripts/install-test-deps.sh installs it, a missing tool fails).
fn pdfsig(path: &std::path::Path) -> String {
    let out = std::process::Command::new("pdfsig")
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("could not run pdfsig ({e}): run scripts/install-test-deps.sh"));
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[tokio::test]
async fn the_embed_example_seals_what_it_writes() {
    let out = tempfile::tempdir().unwrap();
    let contract =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/contract.pdf");
    let written = embed_example::run(&contract, out.path()).await.unwrap();
    assert!(
        written.sealed_by.contains("Embedded example seal"),
        "{}",
        written.sealed_by
    );
    for path in [&written.signed, &written.audit_trail] {
        let report = pdfsig(path);
        // Valid and whole; the self-signed certificate is not one pdfsig trusts, as expected.
        for needle in [
            "Signature Validation: Signature is Valid.",
            "Total document signed",
            "Signer Certificate Common Name: Embedded example seal",
        ] {
            assert!(
                report.contains(needle),
                "{}: no {needle:?}:\n{report}",
                path.display()
            );
        }
        assert!(
            !report.contains("does not contain any signatures"),
            "{report}"
        );
    }
    // A live document: no test-mode mark.
    let text = std::process::Command::new("pdftotext")
        .arg(&written.signed)
        .arg("-")
        .output()
        .expect("pdftotext");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("Zoë Client") && !text.contains("TEST MODE"),
        "{text}"
    );
}

#[tokio::test]
async fn a_builder_told_nothing_seals_with_a_development_identity_and_test_mode_with_its_own() {
    let svc = SigningService::builder().build();
    let live = svc
        .signing_certificate_of(envelope_core::Mode::Live)
        .unwrap();
    let test = svc
        .signing_certificate_of(envelope_core::Mode::Test)
        .unwrap();
    assert!(
        live.development
            && live
                .subject
                .contains(envelope_core::service::DEVELOPMENT_SEAL)
    );
    assert!(test.development && test.subject.contains("test mode"));
    assert_ne!(live.sha256_fingerprint, test.sha256_fingerprint);
    let unsealed = SigningService::builder().unsealed().build();
    assert!(
        unsealed
            .signing_certificate_of(envelope_core::Mode::Live)
            .is_none()
    );
    assert!(
        unsealed
            .signing_certificate_of(envelope_core::Mode::Test)
            .is_none()
    );
}

#[tokio::test]
async fn test_mode_never_seals_with_the_live_identity() {
    use envelope_core::seal::{LocalSealer, SigningIdentity};
    let live = SigningIdentity::generate_development("Acme live seal").unwrap();
    let live_fingerprint = live.identity.info().sha256_fingerprint.clone();
    let svc = SigningService::builder()
        .sealer(Arc::new(LocalSealer::new(live.identity)))
        .build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
    // The test key's account shows the test identity, never the live one.
    let shown = svc
        .account(&ctx)
        .await
        .unwrap()
        .signing_certificate
        .unwrap();
    assert_ne!(shown.sha256_fingerprint, live_fingerprint);
    let env = svc
        .create_envelope(
            &ctx,
            CreateEnvelope::from_pdf(contract())
                .signer("Client", "Zoë Client", "zoe@example.com")
                .signer("Provider", "Pat Provider", "pat@example.com")
                .data("start_date", "2027-01-01"),
        )
        .await
        .unwrap();
    svc.test_complete(&ctx, &env.id).await.unwrap();
    let (_, bytes) = svc
        .envelope_file(&ctx, &env.id, FileKind::Signed, None)
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("signed.pdf");
    std::fs::write(&path, &bytes).unwrap();
    let report = pdfsig(&path);
    assert!(report.contains("Signature is Valid."), "{report}");
    let common_name = format!(
        "Signer Certificate Common Name: {}",
        envelope_core::service::TEST_MODE_SEAL
    );
    assert!(report.contains(&common_name), "{report}");
    assert!(!report.contains("Acme live seal"), "{report}");
}
