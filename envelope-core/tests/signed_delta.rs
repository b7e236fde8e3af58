//! Signed copies stored as deltas (docs/STORAGE.md, "Signed copies"): the blob of a signed copy
//! holds only the update appended to the original; every read (download link, the signer's
//! document, the completed email's attachment) gives `original ++ update`, the bytes whose size
//! and SHA-256 the record shows; the account is charged for the update alone.

use envelope_core::store::EnvelopeStore;
use std::sync::Arc;

use envelope_core::clock::ManualClock;
use envelope_core::mail::MemoryMailer;
use envelope_core::service::{CreateEnvelopeParams, FileKind, Params, Upload};
use envelope_core::{BlobStore, MemoryBlobStore, MemoryStore, SigningService, Timestamp};
use serde_json::json;
use sha2::{Digest, Sha256};

const CONTRACT: &[u8] = include_bytes!("../../examples/contract.pdf");

#[tokio::test]
async fn a_signed_copy_is_stored_as_its_update_and_read_whole() {
    let store = Arc::new(MemoryStore::new());
    let blobs = Arc::new(MemoryBlobStore::new());
    let mail = Arc::new(MemoryMailer::new());
    let svc = SigningService::builder()
        .store(store.clone())
        .blobs(blobs.clone())
        .mailer(mail.clone())
        .clock(Arc::new(ManualClock::new(
            Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
        )))
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
            "data": {"start_date": "2027-04-01"},
            "cc": [{"name": "Carla Copy", "email": "copy@example.com"}]
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
    svc.test_complete(&ctx, &env.id).await.unwrap();

    let rec = store
        .get_envelope(&ctx.scope(), &env.id)
        .await
        .unwrap()
        .unwrap();
    let signed = rec.signed.as_ref().expect("a signed copy");
    let delta = signed.delta.as_ref().expect("stored as a delta");
    assert_eq!(
        delta.base, rec.original.blob,
        "the update follows the original"
    );
    let update = blobs.get(&signed.blob).await.unwrap().expect("the update");
    assert_eq!(update.len() as u64, delta.stored);
    assert_eq!(
        update.len() as u64,
        signed.size - CONTRACT.len() as u64,
        "the blob holds the update alone"
    );
    assert!(
        !update.starts_with(b"%PDF"),
        "the blob repeats the original"
    );

    // A download link gives the whole file, as the record describes it.
    let link = svc
        .envelope_file_link(&ctx, &env.id, FileKind::Signed)
        .await
        .unwrap();
    let token = link.url.rsplit('/').next().unwrap();
    let (_, whole) = svc.open_file_link(token).await.unwrap();
    assert_eq!(&whole[..CONTRACT.len()], CONTRACT);
    assert_eq!(&whole[CONTRACT.len()..], &update[..]);
    assert_eq!(whole.len() as u64, signed.size);
    assert_eq!(hex(&Sha256::digest(&whole)), signed.sha256);

    // The carbon copy's completed email carries the same whole file.
    svc.settle_emails().await;
    let attached = mail
        .sent()
        .into_iter()
        .flat_map(|e| e.attachments)
        .find(|a| a.file_name == signed.file_name)
        .expect("the signed copy attached");
    assert_eq!(attached.bytes, whole.to_vec());

    // The account is charged for the update, not for a second copy of the original.
    let audit = rec.audit_trail.as_ref().unwrap();
    assert_eq!(
        svc.admin().storage_used(&acct.account.id).await.unwrap(),
        CONTRACT.len() as u64 + delta.stored + audit.size
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
