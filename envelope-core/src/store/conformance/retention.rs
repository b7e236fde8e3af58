//! Clauses for retention and storage: held blobs and stored bytes, the quota of creates,
//! deleting stale records with what belongs to them, and the finished envelopes whose files
//! live retention deletes.
//!
//! Stale records here are dated in 2000 (other clauses date theirs in 2026), and every check
//! looks at this clause's own account, so clauses can share a store.

use super::*;
use crate::clock::Timestamp;
use crate::model::{DeliveryAttempt, DeliveryNext, StoredFile};
use crate::store::FileLink;

/// 2000-01-01 plus `ms` milliseconds.
fn y2k(ms: i64) -> Timestamp {
    Timestamp::from_millis(946_684_800_000 + ms).expect("valid timestamp")
}

fn own_file(name: &str, size: u64) -> StoredFile {
    StoredFile {
        blob: format!("blob_{}", crate::ids::random_base62(32)),
        file_name: name.into(),
        size,
        sha256: crate::ids::sha256_hex(name.as_bytes()),
        delta: None,
        sha256_state: None,
    }
}

/// An envelope made from `tpl`: it shares the template's file.
fn from_template(s: &Scope, tpl: &crate::model::TemplateRecord) -> EnvelopeRecord {
    let mut e = envelope(s);
    e.template = Some(tpl.id.clone());
    e.original = tpl.file.clone();
    e
}

/// `e` completed, with a signed copy and an audit trail of the given sizes.
fn completed(e: &EnvelopeRecord, signed: u64, trail: u64) -> EnvelopeRecord {
    let mut n = next(e);
    n.status = EnvelopeStatus::Completed;
    n.completed_at = Some(n.created_at);
    n.signed = Some(own_file("signed.pdf", signed));
    n.audit_trail = Some(own_file("audit.pdf", trail));
    n
}

fn link_to(blob: &str) -> FileLink {
    FileLink {
        blob: blob.into(),
        ..file_link()
    }
}

async fn used(store: &dyn Store, s: &Scope) -> u64 {
    store.storage_used(&s.account).await.unwrap()
}

/// Stored bytes count each held blob once (an envelope made from a template shares its file),
/// grow with completions and shrink when files are released; creates stay within the quota
/// (refused whole, also when they add nothing to an account above it), updates never are; a
/// released blob is unheld and loses its download links.
pub async fn storage_accounting(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let other = new_scope(&*store, 0).await;
    assert_eq!(used(&*store, &s).await, 0);
    let mut tpl = template(&s);
    tpl.file.size = 1000;
    store.insert_template(&tpl).await.unwrap();
    assert_eq!(used(&*store, &s).await, 1000);

    let shared = from_template(&s, &tpl);
    store.create_envelope(&shared, &[], None).await.unwrap();
    assert_eq!(used(&*store, &s).await, 1000, "a shared file counts once");
    let mut own = envelope(&s);
    own.original.size = 300;
    store.create_envelope(&own, &[], None).await.unwrap();
    assert_eq!(used(&*store, &s).await, 1300);
    let done = completed(&own, 200, 100);
    store.update_envelope(&done, &[], None).await.unwrap();
    assert_eq!(used(&*store, &s).await, 1600, "a completion adds its files");
    let mut renamed = next(&done);
    renamed.name = "Renamed".into();
    store.update_envelope(&renamed, &[], None).await.unwrap();
    assert_eq!(
        used(&*store, &s).await,
        1600,
        "an update of no file adds nothing"
    );
    assert_eq!(used(&*store, &other).await, 0, "accounts are apart");

    // Several documents (extensions E5): every document's original and signed copy is held,
    // and all are let go together.
    let mut several = envelope(&s);
    several.original.size = 40;
    several.more_documents = [10, 20]
        .into_iter()
        .map(|size| crate::model::MoreDocument {
            original: own_file("annex.pdf", size),
            page_count: 1,
            signed: None,
        })
        .collect();
    store.create_envelope(&several, &[], None).await.unwrap();
    assert_eq!(used(&*store, &s).await, 1670, "every document counts");
    let mut signed = completed(&several, 5, 8);
    for (d, size) in signed.more_documents.iter_mut().zip([6, 7]) {
        d.signed = Some(own_file("annex-signed.pdf", size));
    }
    store.update_envelope(&signed, &[], None).await.unwrap();
    assert_eq!(used(&*store, &s).await, 1696, "every signed copy counts");
    let read = store.get_envelope(&s, &signed.id).await.unwrap().unwrap();
    assert_eq!(
        read.more_documents, signed.more_documents,
        "kept as written"
    );
    let blobs: Vec<String> = signed.held_files().iter().map(|f| f.blob.clone()).collect();
    assert_eq!(blobs.len(), 7);
    assert!(store.unheld_blobs(&blobs).await.unwrap().is_empty());
    let mut deleted = next(&signed);
    deleted.files_deleted_at = Some(deleted.created_at);
    store.update_envelope(&deleted, &[], None).await.unwrap();
    assert_eq!(used(&*store, &s).await, 1600, "all let go together");
    assert_eq!(store.unheld_blobs(&blobs).await.unwrap().len(), 7);

    // The quota.
    assert!(
        store
            .set_storage_quota(&s.account, Some(1700))
            .await
            .unwrap()
    );
    assert!(
        !store
            .set_storage_quota(&AccountId::trusted("acct_missing"), Some(1))
            .await
            .unwrap()
    );
    let account = store.get_account(&s.account).await.unwrap().unwrap();
    assert_eq!(account.storage_quota, Some(1700));
    let key = api_key(&s.account, Mode::Test);
    store.insert_api_key(&key).await.unwrap();
    let (_, joined) = store
        .api_key_with_account(&key.hash)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(joined.storage_quota, Some(1700));
    let mut big = envelope(&s);
    big.original.size = 101;
    let ev = event(&big, EventType::Created);
    assert!(matches!(
        store
            .create_envelope(&big, std::slice::from_ref(&ev), None)
            .await,
        Err(StoreError::QuotaExceeded)
    ));
    assert_eq!(store.get_envelope(&s, &big.id).await.unwrap(), None);
    assert_eq!(store.get_event(&s, ev.id()).await.unwrap(), None);
    assert_eq!(
        used(&*store, &s).await,
        1600,
        "a refused create holds nothing"
    );
    assert!(
        store
            .unheld_blobs(&[big.original.blob.clone()])
            .await
            .unwrap()
            .len()
            == 1
    );
    big.original.size = 100;
    store.create_envelope(&big, &[], None).await.unwrap();
    assert_eq!(used(&*store, &s).await, 1700, "up to the quota exactly");
    let mut tpl2 = template(&s);
    tpl2.file.size = 1;
    assert!(matches!(
        store.insert_template(&tpl2).await,
        Err(StoreError::QuotaExceeded)
    ));
    assert_eq!(store.get_template(&s, &tpl2.id).await.unwrap(), None);
    // At the quota, an envelope that adds no bytes is still made...
    store
        .create_envelope(&from_template(&s, &tpl), &[], None)
        .await
        .unwrap();
    // ...but not above it, and updates go on regardless.
    assert!(
        store
            .set_storage_quota(&s.account, Some(1000))
            .await
            .unwrap()
    );
    assert!(matches!(
        store
            .create_envelope(&from_template(&s, &tpl), &[], None)
            .await,
        Err(StoreError::QuotaExceeded)
    ));
    let big_done = completed(&big, 50, 50);
    store.update_envelope(&big_done, &[], None).await.unwrap();
    assert_eq!(
        used(&*store, &s).await,
        1800,
        "a completion passes the quota"
    );

    // Releasing files gives their bytes back, unholds their blobs and deletes their links;
    // the template's file stays held by the template.
    let own_link = link_to(&own.original.blob);
    let tpl_link = link_to(&tpl.file.blob);
    store.insert_file_link(&own_link).await.unwrap();
    store.insert_file_link(&tpl_link).await.unwrap();
    let mut dropped = next(&renamed);
    dropped.files_deleted_at = Some(t(60));
    store.update_envelope(&dropped, &[], None).await.unwrap();
    assert_eq!(used(&*store, &s).await, 1200);
    let keys: Vec<String> = done
        .held_files()
        .iter()
        .map(|f| f.blob.clone())
        .chain([tpl.file.blob.clone()])
        .collect();
    assert_eq!(store.unheld_blobs(&keys).await.unwrap(), keys[..3].to_vec());
    assert_eq!(store.file_link(&own_link.token_hash).await.unwrap(), None);
    assert!(
        store
            .file_link(&tpl_link.token_hash)
            .await
            .unwrap()
            .is_some()
    );
    let mut shared_dropped = completed(&shared, 10, 10);
    store
        .update_envelope(&shared_dropped, &[], None)
        .await
        .unwrap();
    shared_dropped = next(&shared_dropped);
    shared_dropped.files_deleted_at = Some(t(70));
    store
        .update_envelope(&shared_dropped, &[], None)
        .await
        .unwrap();
    assert_eq!(used(&*store, &s).await, 1200);
    assert!(
        store
            .unheld_blobs(&[tpl.file.blob.clone()])
            .await
            .unwrap()
            .is_empty(),
        "the template still holds its file"
    );
    assert!(store.set_storage_quota(&s.account, None).await.unwrap());
    store
        .create_envelope(&from_template(&s, &tpl), &[], None)
        .await
        .unwrap();
}

/// Stale envelopes of one mode go in batches with their events, deliveries, attempts, signing
/// links and the links of the blobs they released; newer ones, ones of the other mode and
/// ones changed since stay. Stale templates go too, releasing their file once no envelope
/// holds it; an envelope can no longer name a deleted template; attempts of deleted
/// deliveries are skipped.
pub async fn retention_deletes(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 100).await;
    let live = Scope {
        account: s.account.clone(),
        mode: Mode::Live,
    };
    let cutoff = y2k(10_000);
    let ep = endpoint(&s, &["*"], EndpointStatus::Enabled);
    store.insert_webhook_endpoint(&ep).await.unwrap();
    let mut tpl = template(&s);
    (tpl.created_at, tpl.updated_at) = (y2k(0), y2k(0));
    store.insert_template(&tpl).await.unwrap();
    let mut live_tpl = template(&live);
    (live_tpl.created_at, live_tpl.updated_at) = (y2k(0), y2k(0));
    store.insert_template(&live_tpl).await.unwrap();

    // Stale: one made from the template, one with its own files, links and a webhook attempt.
    let mut shared = from_template(&s, &tpl);
    shared.created_at = y2k(1000);
    let mut own = envelope(&s);
    own.created_at = y2k(2000);
    let own = {
        let ev = event(&own, EventType::Created);
        store
            .create_envelope(&own, std::slice::from_ref(&ev), None)
            .await
            .unwrap();
        let done = completed(&own, 10, 10);
        store
            .update_envelope(&done, &[event(&done, EventType::Completed)], None)
            .await
            .unwrap();
        done
    };
    store.create_envelope(&shared, &[], None).await.unwrap();
    let own_events = ids(
        store.list_events(&s, None, &page(100, None)).await.unwrap(),
        |e| e.id(),
    )
    .0
    .into_iter()
    .map(EventId::trusted)
    .collect::<Vec<_>>();
    assert_eq!(own_events.len(), 2);
    let delivery = store
        .deliveries_for_event(&s, &own_events[0])
        .await
        .unwrap()
        .remove(0);
    let attempt = |delivery: &DeliveryId, event: &EventId| DeliveryAttempt {
        delivery: delivery.clone(),
        event: event.clone(),
        endpoint: ep.id.clone(),
        number: 1,
        at: y2k(3000),
        status: Some(500),
        error: None,
        duration_ms: 1,
    };
    store
        .record_attempts(&[(
            attempt(&delivery.id, &own_events[0]),
            DeliveryNext::Retry(y2k(4000)),
        )])
        .await
        .unwrap();
    let token = signing_token(&own);
    store.insert_signing_token(&token).await.unwrap();
    let builder = builder_token(&own);
    store.insert_builder_token(&builder).await.unwrap();
    let own_link = link_to(&own.original.blob);
    let tpl_link = link_to(&tpl.file.blob);
    store.insert_file_link(&own_link).await.unwrap();
    store.insert_file_link(&tpl_link).await.unwrap();

    // Kept: changed at the cutoff, changed since (a signer opened it), and live.
    let mut recent = envelope(&s);
    recent.created_at = cutoff;
    let recent_ev = event(&recent, EventType::Created);
    store
        .create_envelope(&recent, std::slice::from_ref(&recent_ev), None)
        .await
        .unwrap();
    let mut viewed = envelope(&s);
    viewed.created_at = y2k(0);
    viewed.signers[0].signer.viewed_at = Some(y2k(10_001));
    store.create_envelope(&viewed, &[], None).await.unwrap();
    let mut live_env = envelope(&live);
    live_env.created_at = y2k(0);
    store.create_envelope(&live_env, &[], None).await.unwrap();
    let before = used(&*store, &s).await;

    // Batches: at most `limit` each, until none is left.
    let first = store
        .delete_stale_envelopes(Mode::Test, cutoff, 1)
        .await
        .unwrap();
    assert_eq!(first.records, 1);
    let mut freed = first.blobs;
    loop {
        let r = store
            .delete_stale_envelopes(Mode::Test, cutoff, 10)
            .await
            .unwrap();
        freed.extend(r.blobs);
        if r.records == 0 {
            break;
        }
    }
    let own_blobs: BTreeSet<String> = own.held_files().iter().map(|f| f.blob.clone()).collect();
    let freed: BTreeSet<String> = freed
        .into_iter()
        .filter(|b| own_blobs.contains(b) || *b == tpl.file.blob)
        .collect();
    assert_eq!(freed, own_blobs, "the template's file is still held");
    for gone in [&own.id, &shared.id] {
        assert_eq!(store.get_envelope(&s, gone).await.unwrap(), None);
    }
    for ev in &own_events {
        assert_eq!(store.get_event(&s, ev).await.unwrap(), None);
        assert_eq!(store.find_event(ev).await.unwrap(), None);
        assert!(store.deliveries_for_event(&s, ev).await.unwrap().is_empty());
        assert!(store.delivery_attempts(&s, ev).await.unwrap().is_empty());
    }
    assert_eq!(store.signing_token(&token.token_hash).await.unwrap(), None);
    assert_eq!(
        store.builder_token(&builder.token_hash).await.unwrap(),
        None,
        "a builder link goes with its envelope"
    );
    assert_eq!(store.file_link(&own_link.token_hash).await.unwrap(), None);
    assert!(
        store
            .file_link(&tpl_link.token_hash)
            .await
            .unwrap()
            .is_some()
    );
    for kept in [&recent.id, &viewed.id] {
        assert!(store.get_envelope(&s, kept).await.unwrap().is_some());
    }
    assert!(
        store
            .get_envelope(&live, &live_env.id)
            .await
            .unwrap()
            .is_some()
    );
    assert!(store.get_event(&s, recent_ev.id()).await.unwrap().is_some());
    assert_eq!(
        used(&*store, &s).await,
        before - 1254,
        "own files given back"
    );
    assert_eq!(
        store
            .unheld_blobs(&own_blobs.iter().cloned().collect::<Vec<_>>())
            .await
            .unwrap()
            .len(),
        3
    );

    // A worker that attempted a delivery of a deleted envelope records the rest of its batch.
    let recent_delivery = store
        .deliveries_for_event(&s, recent_ev.id())
        .await
        .unwrap()
        .remove(0);
    store
        .record_attempts(&[
            (
                attempt(&delivery.id, &own_events[0]),
                DeliveryNext::Delivered,
            ),
            (
                attempt(&recent_delivery.id, recent_ev.id()),
                DeliveryNext::Delivered,
            ),
        ])
        .await
        .unwrap();
    assert_eq!(
        store
            .delivery_attempts(&s, recent_ev.id())
            .await
            .unwrap()
            .len(),
        1
    );

    // Templates.
    loop {
        let r = store
            .delete_stale_templates(Mode::Test, cutoff, 10)
            .await
            .unwrap();
        if r.records == 0 {
            break;
        }
        if r.blobs.contains(&tpl.file.blob) {
            assert_eq!(store.get_template(&s, &tpl.id).await.unwrap(), None);
        }
    }
    assert_eq!(store.get_template(&s, &tpl.id).await.unwrap(), None);
    assert!(
        store
            .get_template(&live, &live_tpl.id)
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        store.unheld_blobs(&[tpl.file.blob.clone()]).await.unwrap(),
        [tpl.file.blob.clone()]
    );
    assert_eq!(store.file_link(&tpl_link.token_hash).await.unwrap(), None);
    assert_eq!(used(&*store, &s).await, before - 1254 - 1234);
    assert!(matches!(
        store
            .create_envelope(&from_template(&s, &tpl), &[], None)
            .await,
        Err(StoreError::Conflict)
    ));
}

/// The finished envelopes of one mode that still hold their files and last changed before the
/// cutoff, oldest first, at most `limit`.
pub async fn envelopes_with_files(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let test = new_scope(&*store, 100).await;
    let s = Scope {
        account: test.account.clone(),
        mode: Mode::Live,
    };
    let cutoff = y2k(10_000);
    let make = |scope: &Scope, at: i64, status: EnvelopeStatus| {
        let mut e = envelope(scope);
        e.created_at = y2k(at);
        e.status = status;
        match status {
            EnvelopeStatus::Completed => e.completed_at = Some(y2k(at + 1)),
            EnvelopeStatus::Voided => e.voided_at = Some(y2k(at + 1)),
            _ => e.sent_at = Some(y2k(at + 1)),
        }
        e
    };
    let voided = make(&s, 100, EnvelopeStatus::Voided);
    let done = make(&s, 200, EnvelopeStatus::Completed);
    let mut dropped = make(&s, 50, EnvelopeStatus::Completed);
    dropped.files_deleted_at = Some(y2k(60));
    let sent = make(&s, 0, EnvelopeStatus::Sent);
    let recent = make(&s, 9_999, EnvelopeStatus::Completed);
    let test_mode = make(&test, 0, EnvelopeStatus::Completed);
    for e in [&voided, &done, &dropped, &sent, &recent, &test_mode] {
        store.create_envelope(e, &[], None).await.unwrap();
    }
    let mine = |list: Vec<EnvelopeRecord>| -> Vec<String> {
        list.into_iter()
            .filter(|e| e.account == s.account)
            .map(|e| e.id.into_string())
            .collect()
    };
    let all = store
        .envelopes_with_files(Mode::Live, cutoff, 1000)
        .await
        .unwrap();
    assert!(all.iter().all(|e| e.mode == Mode::Live));
    assert_eq!(mine(all), [voided.id.clone(), done.id.clone()]);
    let one = store
        .envelopes_with_files(Mode::Live, cutoff, 1)
        .await
        .unwrap();
    assert_eq!(one.len(), 1);
    // Once their files are gone they are no longer due.
    let mut gone = next(&voided);
    gone.files_deleted_at = Some(y2k(20_000));
    store.update_envelope(&gone, &[], None).await.unwrap();
    let all = store
        .envelopes_with_files(Mode::Live, cutoff, 1000)
        .await
        .unwrap();
    assert_eq!(mine(all), std::slice::from_ref(&done.id));
    let tests = store
        .envelopes_with_files(Mode::Test, cutoff, 1000)
        .await
        .unwrap();
    assert!(tests.iter().all(|e| e.mode == Mode::Test));
    assert_eq!(
        mine(tests),
        std::slice::from_ref(&test_mode.id),
        "the other mode"
    );
}

/// A stale template deleted while an envelope is made from it: either the envelope is made
/// first and keeps the shared file held, or the template goes first and the create is refused
/// (`Conflict`); never an envelope whose file is released.
pub async fn retention_raced(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let mut outcomes = BTreeSet::new();
    for _ in 0..RACERS * 2 {
        let mut tpl = template(&s);
        (tpl.created_at, tpl.updated_at) = (y2k(0), y2k(0));
        store.insert_template(&tpl).await.unwrap();
        let env = from_template(&s, &tpl);
        let deleting = {
            let store = store.clone();
            tokio::spawn(async move {
                let mut freed = Vec::new();
                loop {
                    let r = store
                        .delete_stale_templates(Mode::Test, y2k(1), 100)
                        .await
                        .unwrap();
                    freed.extend(r.blobs);
                    if r.records == 0 {
                        return freed;
                    }
                }
            })
        };
        let creating = {
            let (store, env) = (store.clone(), env.clone());
            tokio::spawn(async move { store.create_envelope(&env, &[], None).await })
        };
        let freed = deleting.await.unwrap();
        let created = creating.await.unwrap();
        assert_eq!(store.get_template(&s, &tpl.id).await.unwrap(), None);
        let held = store
            .unheld_blobs(&[tpl.file.blob.clone()])
            .await
            .unwrap()
            .is_empty();
        match created {
            Ok(()) => {
                assert!(held, "an envelope's shared file is held");
                assert!(!freed.contains(&tpl.file.blob));
                outcomes.insert("created");
            }
            Err(StoreError::Conflict) => {
                assert!(!held);
                assert!(freed.contains(&tpl.file.blob));
                assert_eq!(store.get_envelope(&s, &env.id).await.unwrap(), None);
                outcomes.insert("refused");
            }
            Err(e) => panic!("{e:?}"),
        }
    }
    assert!(!outcomes.is_empty());
}

/// Creates racing for the last room under a quota: exactly as many succeed as fit, the others
/// are refused whole, and the stored bytes are exact.
pub async fn storage_quota_raced(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    assert!(
        store
            .set_storage_quota(&s.account, Some(3_000))
            .await
            .unwrap()
    );
    let tasks: Vec<_> = (0..RACERS)
        .map(|i| {
            let (store, s) = (store.clone(), s.clone());
            tokio::spawn(async move {
                if i % 2 == 0 {
                    let mut t = template(&s);
                    t.file.size = 1_000;
                    store.insert_template(&t).await
                } else {
                    let mut e = envelope(&s);
                    e.original.size = 1_000;
                    let ev = event(&e, EventType::Created);
                    store.create_envelope(&e, &[ev], None).await
                }
            })
        })
        .collect();
    let mut made = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(()) => made += 1,
            Err(StoreError::QuotaExceeded) => {}
            Err(e) => panic!("{e:?}"),
        }
    }
    assert_eq!(made, 3);
    assert_eq!(used(&*store, &s).await, 3_000);
    let events = store.list_events(&s, None, &page(100, None)).await.unwrap();
    let (listed, _) = ids(events, |e| e.id());
    let envelopes = store
        .list_envelopes(&s, &EnvelopeFilter::default(), &page(100, None))
        .await
        .unwrap();
    let (envs, _) = env_ids(envelopes);
    assert_eq!(listed.len(), envs.len(), "a refused create left no event");
}

/// Live retention's write
/// ([`EnvelopeStore::erase_envelope`](crate::store::EnvelopeStore::erase_envelope)): the erased
/// record is stored, its files released, and every stored event of that envelope (and of no
/// other) loses the personal data its snapshot carried, in one write; a stale version writes
/// nothing.
pub async fn erase_envelope(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    use crate::model::EmailKind;
    use crate::model::{EmailRecord, EmailStatus, SignerStatus};
    let test = new_scope(&*store, 100).await;
    let s = Scope {
        account: test.account.clone(),
        mode: Mode::Live,
    };
    let marker = format!("erase-me-{}", crate::ids::random_base62(12));
    let declined = |marker: &str| {
        let mut e = envelope(&s);
        e.created_at = y2k(0);
        e.status = EnvelopeStatus::Voided;
        e.voided_at = Some(y2k(5));
        let signer = &mut e.signers[0];
        signer.signer.status = SignerStatus::Declined;
        signer.signer.declined_at = Some(y2k(5));
        signer.signer.decline_reason = Some(marker.to_string());
        signer.user_agent = Some(format!("UA {marker}"));
        e.void_reason = Some(format!("declined by client: {marker}"));
        e.message = Some(format!("Dear Ada, {marker}"));
        e.emails.push(EmailRecord {
            id: crate::ids::EmailId::new(),
            kind: EmailKind::SigningRequest,
            recipient: e.signers[0].signer.id.to_string(),
            status: EmailStatus::Failed,
            attempts: 1,
            created_at: y2k(1),
            next_attempt_at: None,
            finished_at: Some(y2k(2)),
            last_error: Some(format!("550 no such user {marker}")),
            failure_reason: None,
            budget_taken: true,
        });
        e
    };
    let e = declined(&marker);
    let other_marker = format!("keep-me-{}", crate::ids::random_base62(12));
    let other = declined(&other_marker);
    for env in [&e, &other] {
        let mut ev = event(env, EventType::SignerDeclined);
        ev.event.data.email = env.emails.first().map(EmailRecord::view);
        store.create_envelope(env, &[ev], None).await.unwrap();
    }
    let events_of = |id: String| {
        let store = store.clone();
        let s = s.clone();
        async move {
            let Listed::Page(all, _) = store.list_events(&s, None, &page(100, None)).await.unwrap()
            else {
                panic!("unknown cursor")
            };
            all.into_iter()
                .filter(|ev| ev.event.data.object.id() == id)
                .map(|ev| serde_json::to_string(&ev).unwrap())
                .collect::<Vec<_>>()
        }
    };
    assert!(events_of(e.id.to_string()).await[0].contains(&marker));

    let mut erased = next(&e);
    erased.files_deleted_at = Some(y2k(20_000));
    erased.erase_personal_data();
    // A stale version writes nothing, events included.
    let mut stale = erased.clone();
    stale.version += 1;
    assert!(matches!(
        store.erase_envelope(&stale).await,
        Err(StoreError::Conflict)
    ));
    assert!(events_of(e.id.to_string()).await[0].contains(&marker));

    store.erase_envelope(&erased).await.unwrap();
    let back = store.get_envelope(&s, &e.id).await.unwrap().unwrap();
    assert_eq!(back, erased);
    let json = serde_json::to_string(&back).unwrap();
    assert!(!json.contains(&marker), "{json}");
    assert!(back.signers[0].values.is_empty() && back.signers[0].ip_address.is_none());
    assert_eq!(back.void_reason.as_deref(), Some("declined by client"));
    let events = events_of(e.id.to_string()).await;
    assert_eq!(events.len(), 1);
    assert!(!events[0].contains(&marker), "{}", events[0]);
    // Read by ID too (the webhook worker and `GET /events/{id}` read that way).
    let id: String = serde_json::from_str::<serde_json::Value>(&events[0]).unwrap()["event"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let by_id = store
        .get_event(&s, &EventId::trusted(id))
        .await
        .unwrap()
        .unwrap();
    assert!(!serde_json::to_string(&by_id).unwrap().contains(&marker));
    assert_eq!(
        by_id.event.data.object.envelope().unwrap().signers[0].status,
        SignerStatus::Declined
    );
    // The files are released; another envelope's events keep what they had.
    let original = std::slice::from_ref(&e.original.blob);
    assert_eq!(store.unheld_blobs(original).await.unwrap(), original);
    assert!(events_of(other.id.to_string()).await[0].contains(&other_marker));
    let kept = store.get_envelope(&s, &other.id).await.unwrap().unwrap();
    assert_eq!(kept, other);
}
