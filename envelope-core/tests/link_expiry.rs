//! Links keep their expiry after an envelope completes: a signing link of a completed envelope
//! serves the signed copy until it expires, then says it expired and serves nothing; a download
//! link answers `resource_missing` once its five minutes are over.

use envelope_testkit::pdf as support;

use std::sync::Arc;

use chrono::Duration;
use envelope_core::error::ErrorKind;
use envelope_core::model::EnvelopeStatus;
use envelope_core::service::{
    ClientInfo, CreateEnvelopeParams, FileKind, LinkState, Params, Upload,
};
use envelope_core::{ManualClock, SigningService, Timestamp};
use serde_json::json;
use support::simple_pdf;

#[tokio::test]
async fn links_of_a_completed_envelope_stop_at_their_expiry() {
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
    ));
    let svc = SigningService::builder().clock(clock.clone()).build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
    let body = json!({
        "delivery": "embedded",
        "expires_in_days": 3,
        "signers": [{"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"}]
    });
    let up = Upload {
        file_name: "contract.pdf".into(),
        bytes: simple_pdf(&["Signature: {{signature:Client}}"]).into(),
    };
    let limits = svc.settings().limits.clone();
    let p = CreateEnvelopeParams::parse(Params::json(body).unwrap(), Some(up), &limits).unwrap();
    let env = svc.create_envelope(&ctx, p).await.unwrap();
    let link = svc.signing_url(&ctx, &env.id, None).await.unwrap();
    let token = link.url.rsplit('/').next().unwrap().to_string();
    let done = svc.test_complete(&ctx, &env.id).await.unwrap();
    assert_eq!(done.status, EnvelopeStatus::Completed);
    let file = svc
        .envelope_file_link(&ctx, &env.id, FileKind::Signed)
        .await
        .unwrap();
    let file_token = file.url.rsplit('/').next().unwrap().to_string();
    let client = ClientInfo::default();

    // Before expiry: the signer's link shows the completed envelope and its signed copy.
    let session = svc.open_signing_link(&token, None, &client).await.unwrap();
    assert_eq!(session.state, LinkState::Completed);
    let (_, signed) = svc.signing_document(&token, None).await.unwrap();
    assert!(signed.starts_with(b"%PDF-"));
    svc.open_file_link(&file_token).await.unwrap();

    // The download link lasts five minutes.
    clock.advance(Duration::minutes(5));
    let e = svc.open_file_link(&file_token).await.unwrap_err();
    assert_eq!(
        (e.kind(), e.code()),
        (ErrorKind::NotFound, "resource_missing")
    );

    // The signing link lasts until the envelope's expiry (three days), completed or not.
    clock.advance(Duration::days(3));
    assert!(link.expires_at <= clock_now(&clock));
    let session = svc.open_signing_link(&token, None, &client).await.unwrap();
    assert_eq!(session.state, LinkState::Expired);
    let e = svc.signing_document(&token, None).await.unwrap_err();
    assert_eq!(
        (e.kind(), e.code()),
        (ErrorKind::NotFound, "resource_missing")
    );
    // The envelope itself stays completed; its owner still downloads through new links.
    let file = svc
        .envelope_file_link(&ctx, &env.id, FileKind::Signed)
        .await
        .unwrap();
    let fresh = file.url.rsplit('/').next().unwrap();
    assert!(svc.open_file_link(fresh).await.is_ok());
}

fn clock_now(clock: &ManualClock) -> Timestamp {
    envelope_core::Clock::now(clock)
}
