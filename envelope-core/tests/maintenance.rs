//! `SigningService::maintenance`: the one background task an embedder starts. It voids an
//! envelope past its expiry without anyone reading it, applies retention, and stops when told,
//! with the emails it started recorded.

use envelope_core::store::EnvelopeStore;
use std::sync::Arc;
use std::time::Duration;

use envelope_core::clock::ManualClock;
use envelope_core::model::EnvelopeStatus;
use envelope_core::service::{CreateEnvelopeParams, Params, Upload};
use envelope_core::{MemoryStore, SigningService, Timestamp};
use serde_json::json;

const CONTRACT: &[u8] = include_bytes!("../../examples/contract.pdf");

#[tokio::test]
async fn maintenance_voids_expired_envelopes_and_stops_when_told() {
    let store = Arc::new(MemoryStore::new());
    let clock = Arc::new(ManualClock::new(
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
    ));
    let svc = SigningService::builder()
        .store(store.clone())
        .clock(clock.clone())
        .build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
    let limits = svc.settings().limits.clone();
    let params = CreateEnvelopeParams::parse(
        Params::json(json!({
            "signers": [
                {"name": "Zoë Client", "email": "client@example.com"},
                {"name": "Paul Provider", "email": "provider@example.com"}
            ],
            "data": {"start_date": "x"},
            "expires_in_days": 1
        }))
        .unwrap(),
        Some(Upload {
            file_name: "contract.pdf".into(),
            bytes: CONTRACT.to_vec().into(),
        }),
        &limits,
    )
    .unwrap();
    let env = svc.create_envelope(&ctx, params).await.unwrap();
    clock.advance(chrono::Duration::days(1));

    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let background = tokio::spawn(
        svc.maintenance()
            .expiry_interval(Duration::from_millis(10))
            .run(async move {
                let _ = stopped.await;
            }),
    );
    // Nobody reads the envelope: only the maintenance task can void it. Reading the store
    // directly does not settle expiry the way the API's reads do.
    let mut status = None;
    for _ in 0..500 {
        let rec = store
            .get_envelope(&ctx.scope(), &env.id)
            .await
            .unwrap()
            .unwrap();
        status = Some(rec.status);
        if rec.status == EnvelopeStatus::Voided {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(status, Some(EnvelopeStatus::Voided));

    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(30), background)
        .await
        .expect("maintenance did not stop when told")
        .unwrap();
}
