//! Clauses: bulk sends (extensions E12): the record with its rows, the reserved allowance, the
//! lease, optimistic progress writes with their events and refunds.

use super::*;
use crate::model::{
    BulkFailure, BulkRow, BulkSendRecord, BulkSendStatus, Delivery, Event, EventData, EventObject,
    EventRecord,
};
use serde_json::json;

const PERIOD: &str = "2027-03";

/// A version 1 processing bulk send of `scope` with `total` rows, made at `t(at)`. Not inserted.
fn bulk(scope: &Scope, total: u32, at: i64) -> BulkSendRecord {
    BulkSendRecord {
        id: BulkSendId::new(),
        account: scope.account.clone(),
        mode: scope.mode,
        version: 1,
        status: BulkSendStatus::Processing,
        template: TemplateId::new(),
        total,
        created: 0,
        failed: 0,
        next_row: 0,
        failures: Vec::new(),
        created_at: t(at),
        completed_at: None,
        lease_until: None,
        period: Some(PERIOD.into()),
        delivery: Delivery::Email,
        subject: Some("Welcome".into()),
        message: None,
        expires_in_days: Some(14),
    }
}

/// `n` rows, each with the fixture envelope's signer under its own email.
fn rows(scope: &Scope, n: u32) -> Vec<BulkRow> {
    (0..n)
        .map(|i| {
            let mut signers = envelope(scope).signers;
            signers[0].signer.email = format!("row{i}@example.com");
            BulkRow {
                signers,
                data: vec![("start".into(), json!("2027-01-01"))],
                metadata: [("row".to_string(), i.to_string())].into(),
                cc: Vec::new(),
            }
        })
        .collect()
}

fn completed_event(b: &BulkSendRecord) -> EventRecord {
    EventRecord {
        account: b.account.clone(),
        mode: b.mode,
        event: Event {
            id: EventId::new(),
            object: "event".into(),
            kind: EventType::BulkSendCompleted,
            livemode: b.mode.is_live(),
            created_at: t(500),
            data: EventData {
                object: EventObject::BulkSend(b.view()),
                signer: None,
                previous: None,
                changes: None,
                cc: None,
                email: None,
                until: None,
            },
        },
    }
}

/// The record and rows, isolation, duplicates, lists; the reservation of `total` units all or
/// nothing; claims by lease, oldest first; progress writes by version, with refunds, and the
/// completing write's event and its delivery.
pub async fn bulk_sends(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 5).await;
    let elsewhere = new_scope(&*store, 5).await;
    let d = debit(&s, PERIOD, 5);
    let subscriber = endpoint(&s, &["bulk_send.completed"], EndpointStatus::Enabled);
    store.insert_webhook_endpoint(&subscriber).await.unwrap();

    // Three of five units: reserved with the record.
    let b1 = bulk(&s, 3, 10);
    let r1 = rows(&s, 3);
    store.create_bulk_send(&b1, &r1, Some(&d)).await.unwrap();
    assert_eq!(store.usage(&s.account, PERIOD).await.unwrap(), 3);
    // Three more do not fit: nothing written.
    let too_many = bulk(&s, 3, 11);
    assert!(matches!(
        store
            .create_bulk_send(&too_many, &rows(&s, 3), Some(&d))
            .await,
        Err(StoreError::InsufficientBalance)
    ));
    assert_eq!(store.usage(&s.account, PERIOD).await.unwrap(), 3);
    assert!(
        store
            .get_bulk_send(&s, &too_many.id)
            .await
            .unwrap()
            .is_none()
    );
    // Two fit exactly.
    let b2 = bulk(&s, 2, 12);
    store
        .create_bulk_send(&b2, &rows(&s, 2), Some(&d))
        .await
        .unwrap();
    assert_eq!(store.usage(&s.account, PERIOD).await.unwrap(), 5);
    assert!(matches!(
        store.create_bulk_send(&b2, &rows(&s, 2), None).await,
        Err(StoreError::Duplicate)
    ));

    assert_eq!(
        store.get_bulk_send(&s, &b1.id).await.unwrap(),
        Some(b1.clone())
    );
    assert!(
        store
            .get_bulk_send(&elsewhere, &b1.id)
            .await
            .unwrap()
            .is_none()
    );
    let (p, more) = ids(
        store.list_bulk_sends(&s, &page(1, None)).await.unwrap(),
        |b| &b.id,
    );
    assert_eq!((p, more), (vec![b2.id.to_string()], true));
    let (p, more) = ids(
        store
            .list_bulk_sends(&s, &page(5, Some(&b2.id)))
            .await
            .unwrap(),
        |b| &b.id,
    );
    assert_eq!((p, more), (vec![b1.id.to_string()], false));
    assert_eq!(
        count(
            &store
                .list_bulk_sends(&elsewhere, &page(5, Some(&b2.id)))
                .await
                .unwrap()
        ),
        None
    );

    // Claims: the oldest free one, with its rows; a leased one waits for its lease to end.
    let (c1, got_rows) = store
        .claim_bulk_send(t(100), t(130))
        .await
        .unwrap()
        .expect("b1 is claimable");
    assert_eq!((c1.id.clone(), c1.version), (b1.id.clone(), 2));
    assert_eq!(c1.lease_until, Some(t(130)));
    assert_eq!(got_rows, r1);
    let (c2, _) = store
        .claim_bulk_send(t(100), t(130))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(c2.id, b2.id);
    assert!(
        store
            .claim_bulk_send(t(129), t(160))
            .await
            .unwrap()
            .is_none()
    );
    let (again, _) = store
        .claim_bulk_send(t(130), t(160))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((again.id.clone(), again.version), (b1.id.clone(), 3));

    // The first holder lost its lease: its write is stale.
    let mut stale = c1.clone();
    stale.version += 1;
    stale.next_row = 3;
    assert!(matches!(
        store.update_bulk_send(&stale, &[], 0).await,
        Err(StoreError::Conflict)
    ));
    // Another owner is refused too.
    let mut moved = again.clone();
    moved.version += 1;
    moved.account = elsewhere.account.clone();
    assert!(matches!(
        store.update_bulk_send(&moved, &[], 0).await,
        Err(StoreError::Conflict)
    ));

    // Progress: one row made, lease renewed.
    let mut progress = again.clone();
    progress.version += 1;
    progress.next_row = 1;
    progress.created = 1;
    progress.lease_until = Some(t(190));
    store.update_bulk_send(&progress, &[], 0).await.unwrap();
    assert_eq!(
        store.get_bulk_send(&s, &b1.id).await.unwrap(),
        Some(progress.clone())
    );
    // Completion: one row failed (its unit given back), the event and its delivery.
    let mut done = progress.clone();
    done.version += 1;
    done.next_row = 3;
    done.created = 2;
    done.failed = 1;
    done.failures = vec![BulkFailure {
        row: 2,
        code: "resource_missing".into(),
        message: "No such template".into(),
    }];
    done.status = BulkSendStatus::Completed;
    done.completed_at = Some(t(500));
    done.lease_until = None;
    let ev = completed_event(&done);
    store
        .update_bulk_send(&done, std::slice::from_ref(&ev), 1)
        .await
        .unwrap();
    assert_eq!(store.usage(&s.account, PERIOD).await.unwrap(), 4);
    assert_eq!(
        store.get_bulk_send(&s, &b1.id).await.unwrap(),
        Some(done.clone())
    );
    let stored = store.get_event(&s, ev.id()).await.unwrap().unwrap();
    assert_eq!(stored, ev);
    assert_eq!(stored.event.data.object.id(), b1.id.as_str());
    let deliveries = store.deliveries_for_event(&s, ev.id()).await.unwrap();
    assert_eq!(deliveries.len(), 1);
    assert_eq!(deliveries[0].endpoint, subscriber.id);
    // Completed: never claimed again, whatever the time.
    let (last, _) = store
        .claim_bulk_send(t(10_000), t(10_030))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(last.id, b2.id);
    assert!(
        store
            .claim_bulk_send(t(10_000), t(10_030))
            .await
            .unwrap()
            .is_none()
    );
    // A refund never takes usage below zero.
    let mut b2_done = last.clone();
    b2_done.version += 1;
    b2_done.status = BulkSendStatus::Completed;
    b2_done.failed = 2;
    b2_done.next_row = 2;
    b2_done.lease_until = None;
    store.update_bulk_send(&b2_done, &[], 50).await.unwrap();
    assert_eq!(store.usage(&s.account, PERIOD).await.unwrap(), 0);
}

/// Claims raced by many callers (processes on one PostgreSQL): one bulk send goes to one of
/// them.
pub async fn bulk_send_claims_raced(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let mut b = bulk(&s, 1, 10);
    b.period = None;
    store
        .create_bulk_send(&b, &rows(&s, 1), None)
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for _ in 0..RACERS {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store.claim_bulk_send(t(100), t(130)).await
        }));
    }
    let mut won = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(Some((claimed, _))) => {
                assert_eq!(claimed.id, b.id);
                won += 1;
            }
            Ok(None) => {}
            // A racer may also lose to the database's own serialization (PostgreSQL).
            Err(StoreError::Conflict) => {}
            Err(e) => panic!("claim failed: {e}"),
        }
    }
    assert_eq!(won, 1, "exactly one racer holds the lease");
    let current = store.get_bulk_send(&s, &b.id).await.unwrap().unwrap();
    assert_eq!(current.version, 2);
}
