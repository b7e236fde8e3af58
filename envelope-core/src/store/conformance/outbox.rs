//! Clauses for the webhook outbox as the delivery worker uses it: leased claims, per-endpoint
//! caps, attempts, retries, resends.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::fixtures::*;
use crate::ids::{DeliveryId, EventId, WebhookEndpointId};
use crate::model::{
    DeliveryAttempt, DeliveryNext, DeliveryStatus, EndpointStatus, EventType, Scope,
    WebhookDelivery,
};
use crate::store::{BlobStore, ClaimLimits, Store};

/// Makes an endpoint and `n` envelopes whose `envelope.created` events it wants; returns the
/// endpoint ID and the event IDs.
async fn fan_out(store: &dyn Store, s: &Scope, n: usize) -> (WebhookEndpointId, Vec<EventId>) {
    let ep = endpoint(s, &["envelope.created"], EndpointStatus::Enabled);
    store.insert_webhook_endpoint(&ep).await.unwrap();
    let mut events = Vec::new();
    for _ in 0..n {
        let env = envelope(s);
        let ev = event(&env, EventType::Created);
        store
            .create_envelope(&env, std::slice::from_ref(&ev), None)
            .await
            .unwrap();
        events.push(ev.event.id.clone());
    }
    (ep.id.clone(), events)
}

/// Limits without a per-account cap.
fn limits(
    limit: usize,
    per_endpoint: usize,
    busy_endpoints: &[WebhookEndpointId],
) -> ClaimLimits<'_> {
    ClaimLimits {
        limit,
        per_endpoint,
        busy_endpoints,
        per_account: usize::MAX,
        busy_accounts: &[],
    }
}

fn mine(d: &[crate::model::DueDelivery], s: &Scope) -> Vec<DeliveryId> {
    d.iter()
        .filter(|d| d.delivery.account == s.account)
        .map(|d| d.delivery.id.clone())
        .collect()
}

/// Claims lease deliveries, respect per-endpoint caps and exclusions, skip disabled endpoints;
/// attempts move deliveries on; resends add claimable rows.
pub async fn webhook_outbox(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 10).await;
    let (ep, events) = fan_out(&*store, &s, 3).await;
    let now = t(1_000_000);
    let lease = t(1_060_000);

    // Per-endpoint cap and exclusion.
    let first = store
        .claim_deliveries(now, lease, &limits(100, 1, &[]))
        .await
        .unwrap();
    assert_eq!(mine(&first, &s).len(), 1, "at most one per endpoint");
    let d = first
        .iter()
        .find(|d| d.delivery.account == s.account)
        .unwrap();
    assert_eq!(d.url, "https://example.com/hook");
    assert_eq!(d.secrets.len(), 1);
    assert!(d.secrets[0].starts_with("whsec_"));
    assert_eq!(d.event.kind, EventType::Created);
    assert_eq!(d.delivery.endpoint, ep);
    let excluded = store
        .claim_deliveries(now, lease, &limits(100, 10, std::slice::from_ref(&ep)))
        .await
        .unwrap();
    assert!(
        mine(&excluded, &s).is_empty(),
        "excluded endpoints are skipped"
    );

    // The rest; then nothing until the leases run out.
    let rest = store
        .claim_deliveries(now, lease, &limits(100, 10, &[]))
        .await
        .unwrap();
    assert_eq!(mine(&rest, &s).len(), 2);
    let all: BTreeSet<DeliveryId> = mine(&first, &s)
        .into_iter()
        .chain(mine(&rest, &s))
        .collect();
    assert_eq!(all.len(), 3, "no delivery is claimed twice");
    assert!(
        mine(
            &store
                .claim_deliveries(now, lease, &limits(100, 10, &[]))
                .await
                .unwrap(),
            &s
        )
        .is_empty()
    );

    // An attempt that failed: retried at the given time, not before.
    let id = &d.delivery.id;
    let attempt = |number: u32, status: Option<u16>| DeliveryAttempt {
        delivery: id.clone(),
        event: d.event.id.clone(),
        endpoint: ep.clone(),
        number,
        at: now,
        status,
        error: status.is_none().then(|| "connection refused".to_string()),
        duration_ms: 12,
    };
    store
        .record_attempts(&[(attempt(1, None), DeliveryNext::Retry(t(1_005_000)))])
        .await
        .unwrap();
    assert!(
        mine(
            &store
                .claim_deliveries(t(1_004_999), t(1_070_000), &limits(100, 10, &[]))
                .await
                .unwrap(),
            &s
        )
        .is_empty()
    );
    let again = store
        .claim_deliveries(t(1_005_000), t(1_070_000), &limits(100, 10, &[]))
        .await
        .unwrap();
    assert_eq!(mine(&again, &s), vec![id.clone()]);
    assert_eq!(
        again
            .iter()
            .find(|x| x.delivery.id == id)
            .unwrap()
            .delivery
            .attempts,
        1
    );
    store
        .record_attempts(&[(attempt(2, Some(200)), DeliveryNext::Delivered)])
        .await
        .unwrap();
    let ds = store.deliveries_for_event(&s, &d.event.id).await.unwrap();
    assert_eq!(
        (ds[0].status, ds[0].attempts, ds[0].next_attempt_at),
        (DeliveryStatus::Delivered, 2, None)
    );
    let attempts = store.delivery_attempts(&s, &d.event.id).await.unwrap();
    assert_eq!(
        attempts.iter().map(|a| a.status).collect::<Vec<_>>(),
        [None, Some(200)]
    );
    let other = Scope {
        account: s.account.clone(),
        mode: other_mode(s.mode),
    };
    assert!(
        store
            .delivery_attempts(&other, &d.event.id)
            .await
            .unwrap()
            .is_empty(),
        "attempts are scoped"
    );
    // Long after every lease: delivered ones never come back.
    let late = store
        .claim_deliveries(t(9_000_000), t(9_060_000), &limits(100, 10, &[]))
        .await
        .unwrap();
    assert_eq!(
        mine(&late, &s).len(),
        2,
        "the two never-attempted ones are due again once their lease ran out"
    );
    for x in late.iter().filter(|x| x.delivery.account == s.account) {
        let a = DeliveryAttempt {
            delivery: x.delivery.id.clone(),
            number: 1,
            ..attempt(1, Some(500))
        };
        store
            .record_attempts(&[(a, DeliveryNext::Failed)])
            .await
            .unwrap();
    }
    assert!(
        mine(
            &store
                .claim_deliveries(t(9_900_000), t(9_960_000), &limits(100, 10, &[]))
                .await
                .unwrap(),
            &s
        )
        .is_empty()
    );

    // Resend: a new row, claimable at once.
    let row = WebhookDelivery::pending(&s.account, s.mode, &events[0], &ep, t(9_950_000));
    store
        .insert_deliveries(std::slice::from_ref(&row))
        .await
        .unwrap();
    let resent = store
        .claim_deliveries(t(9_950_000), t(9_990_000), &limits(100, 10, &[]))
        .await
        .unwrap();
    assert_eq!(mine(&resent, &s), vec![row.id.clone()]);
    assert_eq!(
        store
            .deliveries_for_event(&s, &events[0])
            .await
            .unwrap()
            .len(),
        2
    );

    // Disabled endpoints are not claimed.
    let (ep2, _) = fan_out(&*store, &s, 1).await;
    let mut rec = store.get_webhook_endpoint(&s, &ep2).await.unwrap().unwrap();
    rec.status = EndpointStatus::Disabled;
    store.update_webhook_endpoint(&rec).await.unwrap();
    let none = store
        .claim_deliveries(t(9_999_000), t(9_999_999), &limits(100, 10, &[]))
        .await
        .unwrap();
    assert!(none.iter().all(|x| x.delivery.endpoint != ep2));
}

/// Concurrent claims never return the same delivery.
pub async fn webhook_outbox_raced(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 10).await;
    let (_, _) = fan_out(&*store, &s, 12).await;
    let now = t(2_000_000);
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store
                .claim_deliveries(now, t(2_060_000), &limits(5, 100, &[]))
                .await
                .unwrap()
        }));
    }
    let mut seen = Vec::new();
    for task in tasks {
        seen.extend(mine(&task.await.unwrap(), &s));
    }
    let unique: BTreeSet<&DeliveryId> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "a delivery was claimed twice");
    assert_eq!(seen.len(), 12, "every due delivery was claimed once");
}

/// Per-account caps: an account at its cap is skipped, however large its backlog, so that
/// another account's due delivery is claimed even when the first one's rows are older and more
/// numerous than the claim's candidate window; one below its cap gets only the room left.
pub async fn webhook_outbox_fairness(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    // Due at t(5), before every other clause's rows (t(30) and later), so only these count.
    let due = t(5);
    let lease = t(60_000);
    let a = new_scope(&*store, 10).await;
    let (ep_a, ev_a) = fan_out(&*store, &a, 1).await;
    let backlog: Vec<_> = (0..10)
        .map(|_| WebhookDelivery::pending(&a.account, a.mode, &ev_a[0], &ep_a, due))
        .collect();
    store.insert_deliveries(&backlog).await.unwrap();
    let b = new_scope(&*store, 10).await;
    let (ep_b, ev_b) = fan_out(&*store, &b, 1).await;
    let late = WebhookDelivery::pending(&b.account, b.mode, &ev_b[0], &ep_b, due);
    store
        .insert_deliveries(std::slice::from_ref(&late))
        .await
        .unwrap();

    let claim = |limit, per_endpoint, per_account, busy_accounts| ClaimLimits {
        limit,
        per_endpoint,
        busy_endpoints: &[],
        per_account,
        busy_accounts,
    };
    let busy = [(a.account.clone(), 2)];
    let got = store
        .claim_deliveries(due, lease, &claim(1, 100, 2, &busy))
        .await
        .unwrap();
    assert!(
        mine(&got, &a).is_empty(),
        "an account at its cap is skipped"
    );
    assert_eq!(
        mine(&got, &b),
        vec![late.id.clone()],
        "the older backlog of a capped account hides nobody"
    );

    let busy = [(a.account.clone(), 1)];
    let got = store
        .claim_deliveries(due, lease, &claim(100, 100, 3, &busy))
        .await
        .unwrap();
    assert_eq!(mine(&got, &a).len(), 2, "only the room left under the cap");
    let got = store
        .claim_deliveries(due, lease, &claim(100, 100, 3, &[]))
        .await
        .unwrap();
    assert_eq!(mine(&got, &a).len(), 3);
    let got = store
        .claim_deliveries(due, lease, &claim(100, 2, 100, &[]))
        .await
        .unwrap();
    assert_eq!(mine(&got, &a).len(), 2, "the endpoint cap still holds");
}

/// An event's deliveries read a page at a time, oldest first, each with its own attempts in
/// order; the cursor is a delivery of that event in that scope, anything else is unknown.
pub async fn webhook_delivery_pages(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    use crate::store::{Listed, PageRequest};
    let s = new_scope(&*store, 10).await;
    let (ep, events) = fan_out(&*store, &s, 2).await;
    let event = &events[0];
    // The envelope's own delivery, then four resends.
    for i in 0..4 {
        let row = WebhookDelivery::pending(&s.account, s.mode, event, &ep, t(i));
        store
            .insert_deliveries(std::slice::from_ref(&row))
            .await
            .unwrap();
    }
    let all: Vec<DeliveryId> = store
        .deliveries_for_event(&s, event)
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.id)
        .collect();
    assert_eq!(all.len(), 5);
    // Two attempts of the first, one of the third.
    let attempt = |delivery: &DeliveryId, number: u32, status: u16| DeliveryAttempt {
        delivery: delivery.clone(),
        event: event.clone(),
        endpoint: ep.clone(),
        number,
        at: t(10 + i64::from(number)),
        status: Some(status),
        error: None,
        duration_ms: 3,
    };
    store
        .record_attempts(&[
            (attempt(&all[0], 1, 500), DeliveryNext::Retry(t(100))),
            (attempt(&all[2], 1, 503), DeliveryNext::Retry(t(100))),
        ])
        .await
        .unwrap();
    store
        .record_attempts(&[(attempt(&all[0], 2, 200), DeliveryNext::Delivered)])
        .await
        .unwrap();

    let page = |after: Option<&str>| PageRequest {
        limit: 2,
        starting_after: after.map(str::to_string),
    };
    let read = |listed: Listed<(crate::model::WebhookDelivery, Vec<DeliveryAttempt>)>| match listed
    {
        Listed::Page(items, more) => (
            items
                .iter()
                .map(|(d, a)| {
                    assert!(a.iter().all(|a| a.delivery == d.id), "its own attempts");
                    (
                        d.id.clone(),
                        a.iter().map(|a| (a.number, a.status)).collect::<Vec<_>>(),
                    )
                })
                .collect::<Vec<_>>(),
            more,
        ),
        Listed::UnknownCursor => panic!("unexpected UnknownCursor"),
    };
    let (first, more) = read(
        store
            .event_deliveries_page(&s, event, &page(None))
            .await
            .unwrap(),
    );
    assert_eq!(
        first,
        vec![
            (all[0].clone(), vec![(1, Some(500)), (2, Some(200))]),
            (all[1].clone(), vec![]),
        ]
    );
    assert!(more);
    let (second, more) = read(
        store
            .event_deliveries_page(&s, event, &page(Some(all[1].as_str())))
            .await
            .unwrap(),
    );
    assert_eq!(
        second,
        vec![
            (all[2].clone(), vec![(1, Some(503))]),
            (all[3].clone(), vec![])
        ]
    );
    assert!(more);
    let (last, more) = read(
        store
            .event_deliveries_page(&s, event, &page(Some(all[3].as_str())))
            .await
            .unwrap(),
    );
    assert_eq!(last, vec![(all[4].clone(), vec![])]);
    assert!(!more, "a full last page says no more");
    let (past, more) = read(
        store
            .event_deliveries_page(&s, event, &page(Some(all[4].as_str())))
            .await
            .unwrap(),
    );
    assert!(past.is_empty() && !more);

    // Unknown cursors: no such delivery, another event's, another scope's.
    let other_event = store.deliveries_for_event(&s, &events[1]).await.unwrap();
    let other = Scope {
        account: s.account.clone(),
        mode: other_mode(s.mode),
    };
    for (scope, cursor) in [
        (&s, "wd_nope"),
        (&s, other_event[0].id.as_str()),
        (&other, all[0].as_str()),
    ] {
        assert!(matches!(
            store
                .event_deliveries_page(scope, event, &page(Some(cursor)))
                .await
                .unwrap(),
            Listed::UnknownCursor
        ));
    }
    // Another scope sees none of them.
    let (none, more) = read(
        store
            .event_deliveries_page(&other, event, &page(None))
            .await
            .unwrap(),
    );
    assert!(none.is_empty() && !more);
}
