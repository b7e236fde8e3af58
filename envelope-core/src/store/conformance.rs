//! The store conformance suite: the [contract](super) as executable checks, written once and run
//! against every implementation ([`MemoryStore`](super::MemoryStore), SQLite, PostgreSQL).
//!
//! Each clause is a `pub async fn(Arc<dyn Store>, Arc<dyn BlobStore>)` that panics on a
//! violation; [`run_all`] runs them in turn on one store. Clauses make their own accounts with
//! random IDs, so they may share a store (and a database) with other clauses and other runs.
//! [`CLAUSES`] names them all, so that a runner can check it covers every one.
//!
//! ```
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use envelope_core::store::{conformance, MemoryBlobStore, MemoryStore};
//! conformance::run_all(Arc::new(MemoryStore::new()), Arc::new(MemoryBlobStore::new())).await;
//! # });
//! ```
//!
//! This module must never weaken a check to suit one implementation: fix the implementation.

pub mod fixtures;

use std::collections::BTreeSet;
use std::sync::Arc;

use bytes::Bytes;

use self::fixtures::*;
use super::{
    AllowanceDebit, BlobStore, EnvelopeFilter, IdempotencyBegin, Listed, PageRequest, Store,
    StoreError, StoredResponse,
};
use crate::model::{
    DeliveryStatus, EndpointStatus, EnvelopeRecord, EnvelopeStatus, EventType, Mode, Scope,
};

/// Every clause, by function name.
pub const CLAUSES: &[&str] = &[
    "accounts_and_keys",
    "scope_isolation",
    "templates",
    "envelope_writes_events_and_outbox",
    "optimistic_concurrency",
    "optimistic_concurrency_raced",
    "allowance",
    "allowance_raced",
    "list_pagination",
    "list_filters",
    "expired_envelopes",
    "webhook_endpoints",
    "links",
    "idempotency",
    "idempotency_raced",
    "blobs",
];

/// Runs every clause on one store.
pub async fn run_all(store: Arc<dyn Store>, blobs: Arc<dyn BlobStore>) {
    accounts_and_keys(store.clone(), blobs.clone()).await;
    scope_isolation(store.clone(), blobs.clone()).await;
    templates(store.clone(), blobs.clone()).await;
    envelope_writes_events_and_outbox(store.clone(), blobs.clone()).await;
    optimistic_concurrency(store.clone(), blobs.clone()).await;
    optimistic_concurrency_raced(store.clone(), blobs.clone()).await;
    allowance(store.clone(), blobs.clone()).await;
    allowance_raced(store.clone(), blobs.clone()).await;
    list_pagination(store.clone(), blobs.clone()).await;
    list_filters(store.clone(), blobs.clone()).await;
    expired_envelopes(store.clone(), blobs.clone()).await;
    webhook_endpoints(store.clone(), blobs.clone()).await;
    links(store.clone(), blobs.clone()).await;
    idempotency(store.clone(), blobs.clone()).await;
    idempotency_raced(store.clone(), blobs.clone()).await;
    self::blobs(store, blobs).await;
}

/// How many tasks race in the `*_raced` clauses.
const RACERS: usize = 8;

fn page(limit: usize, after: Option<&str>) -> PageRequest {
    PageRequest {
        limit,
        starting_after: after.map(str::to_string),
    }
}

/// The IDs of a page and its `has_more`; panics on `UnknownCursor`.
fn ids<T>(listed: Listed<T>, id: impl Fn(&T) -> &str) -> (Vec<String>, bool) {
    match listed {
        Listed::Page(items, more) => (items.iter().map(|i| id(i).to_string()).collect(), more),
        Listed::UnknownCursor => panic!("unexpected UnknownCursor"),
    }
}

fn env_ids(listed: Listed<EnvelopeRecord>) -> (Vec<String>, bool) {
    ids(listed, |e| &e.id)
}

fn is_empty_page<T>(listed: Listed<T>) -> bool {
    matches!(listed, Listed::Page(items, false) if items.is_empty())
}

fn debit(scope: &Scope, period: &str, allowance: u32) -> AllowanceDebit {
    AllowanceDebit {
        account: scope.account.clone(),
        period: period.into(),
        allowance,
    }
}

/// Accounts and API keys: lookup by hash, duplicates, revocation, allowance setting.
pub async fn accounts_and_keys(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let a = account(5);
    let (k1, k2) = (api_key(&a.id, Mode::Test), api_key(&a.id, Mode::Live));
    store
        .insert_account(&a, &[k1.clone(), k2.clone()])
        .await
        .unwrap();
    assert_eq!(store.get_account(&a.id).await.unwrap(), Some(a.clone()));
    assert_eq!(store.get_account("acct_missing").await.unwrap(), None);
    assert_eq!(
        store.api_key_by_hash(&k1.hash).await.unwrap(),
        Some(k1.clone())
    );
    assert_eq!(
        store.api_key_by_hash(&ids_hash("nope")).await.unwrap(),
        None
    );

    let b = account(1);
    store.insert_account(&b, &[]).await.unwrap();
    let listed: Vec<String> = store
        .list_accounts()
        .await
        .unwrap()
        .into_iter()
        .map(|x| x.id)
        .collect();
    let (pa, pb) = (pos(&listed, &a.id), pos(&listed, &b.id));
    assert!(pa < pb, "accounts are listed oldest first");

    // Duplicates: account ID, key ID, key hash. A failed insert_account writes nothing.
    assert!(matches!(
        store.insert_account(&a, &[]).await,
        Err(StoreError::Duplicate)
    ));
    let mut same_hash = api_key(&a.id, Mode::Test);
    same_hash.hash = k1.hash.clone();
    assert!(matches!(
        store.insert_api_key(&same_hash).await,
        Err(StoreError::Duplicate)
    ));
    let mut same_id = api_key(&a.id, Mode::Test);
    same_id.id = k1.id.clone();
    assert!(matches!(
        store.insert_api_key(&same_id).await,
        Err(StoreError::Duplicate)
    ));
    let c = account(1);
    let mut clash = api_key(&c.id, Mode::Test);
    clash.hash = k2.hash.clone();
    let fine = api_key(&c.id, Mode::Test);
    assert!(matches!(
        store.insert_account(&c, &[fine.clone(), clash]).await,
        Err(StoreError::Duplicate)
    ));
    assert_eq!(
        store.get_account(&c.id).await.unwrap(),
        None,
        "insert_account is atomic"
    );
    assert_eq!(store.api_key_by_hash(&fine.hash).await.unwrap(), None);

    let k3 = api_key(&a.id, Mode::Test);
    store.insert_api_key(&k3).await.unwrap();
    let keys: Vec<String> = store
        .list_api_keys(&a.id)
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.id)
        .collect();
    assert_eq!(keys, [k1.id.clone(), k2.id.clone(), k3.id.clone()]);
    assert!(store.list_api_keys(&b.id).await.unwrap().is_empty());

    // Revocation: once, by the owning account only; the key stays findable with its date.
    assert!(!store.revoke_api_key(&b.id, &k1.id, t(99)).await.unwrap());
    assert!(store.revoke_api_key(&a.id, &k1.id, t(99)).await.unwrap());
    assert!(!store.revoke_api_key(&a.id, &k1.id, t(100)).await.unwrap());
    let revoked = store.api_key_by_hash(&k1.hash).await.unwrap().unwrap();
    assert_eq!(revoked.revoked_at, Some(t(99)));
    let listed = store.list_api_keys(&a.id).await.unwrap();
    assert_eq!(listed[0].revoked_at, Some(t(99)));
    assert_eq!(listed[1].revoked_at, None);

    assert!(store.set_allowance(&a.id, 7).await.unwrap());
    assert_eq!(
        store
            .get_account(&a.id)
            .await
            .unwrap()
            .unwrap()
            .monthly_allowance,
        7
    );
    assert!(!store.set_allowance("acct_missing", 7).await.unwrap());
    assert_eq!(store.usage(&a.id, "2026-01").await.unwrap(), 0);
}

fn ids_hash(s: &str) -> String {
    crate::ids::digest(s)
}

fn pos(list: &[String], id: &str) -> usize {
    list.iter()
        .position(|x| x == id)
        .unwrap_or_else(|| panic!("{id} missing from list"))
}

/// Another account, or the other mode of the same account, sees every resource as missing.
pub async fn scope_isolation(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 10).await;
    let b = new_scope(&*store, 10).await;
    let others = [
        Scope {
            account: s.account.clone(),
            mode: other_mode(s.mode),
        },
        b.clone(),
        Scope {
            account: b.account.clone(),
            mode: other_mode(s.mode),
        },
    ];
    let tpl = template(&s);
    store.insert_template(&tpl).await.unwrap();
    let ep = endpoint(&s, &["*"], EndpointStatus::Enabled);
    store.insert_webhook_endpoint(&ep).await.unwrap();
    let env = envelope(&s);
    let ev = event(&env, EventType::Created);
    store
        .create_envelope(&env, std::slice::from_ref(&ev), None)
        .await
        .unwrap();
    assert_eq!(
        store.deliveries_for_event(&s, ev.id()).await.unwrap().len(),
        1
    );

    for o in &others {
        assert_eq!(store.get_template(o, &tpl.id).await.unwrap(), None);
        assert_eq!(store.get_envelope(o, &env.id).await.unwrap(), None);
        assert_eq!(store.get_event(o, ev.id()).await.unwrap(), None);
        assert_eq!(store.get_webhook_endpoint(o, &ep.id).await.unwrap(), None);
        assert!(
            store
                .deliveries_for_event(o, ev.id())
                .await
                .unwrap()
                .is_empty()
        );
        assert!(is_empty_page(
            store.list_templates(o, &page(10, None)).await.unwrap()
        ));
        let all = EnvelopeFilter::default();
        assert!(is_empty_page(
            store
                .list_envelopes(o, &all, &page(10, None))
                .await
                .unwrap()
        ));
        assert!(is_empty_page(
            store.list_events(o, None, &page(10, None)).await.unwrap()
        ));
        assert!(is_empty_page(
            store
                .list_webhook_endpoints(o, &page(10, None))
                .await
                .unwrap()
        ));
        // A cursor of another scope is unknown, exactly like a missing one.
        let after = |id: &str| page(10, Some(id));
        assert_eq!(
            count(&store.list_templates(o, &after(&tpl.id)).await.unwrap()),
            None
        );
        assert_eq!(
            count(
                &store
                    .list_envelopes(o, &all, &after(&env.id))
                    .await
                    .unwrap()
            ),
            None
        );
        assert_eq!(
            count(&store.list_events(o, None, &after(ev.id())).await.unwrap()),
            None
        );
        assert_eq!(
            count(
                &store
                    .list_webhook_endpoints(o, &after(&ep.id))
                    .await
                    .unwrap()
            ),
            None
        );
        assert!(!store.delete_webhook_endpoint(o, &ep.id).await.unwrap());
        // Idempotency keys are per scope.
        let begun = store
            .idempotency_begin(o, "k", "fp", t(0), t(-1))
            .await
            .unwrap();
        assert_eq!(begun, IdempotencyBegin::Started);
    }
    assert!(
        store
            .get_webhook_endpoint(&s, &ep.id)
            .await
            .unwrap()
            .is_some()
    );
    let begun = store
        .idempotency_begin(&s, "k", "other", t(0), t(-1))
        .await
        .unwrap();
    assert_eq!(begun, IdempotencyBegin::Started);
}

/// `None` for `UnknownCursor`, else the item count: lets tests compare outcomes briefly.
fn count<T>(listed: &Listed<T>) -> Option<usize> {
    match listed {
        Listed::Page(items, _) => Some(items.len()),
        Listed::UnknownCursor => None,
    }
}

/// Templates: insert, duplicate, versioned update, archived ones left out of lists.
pub async fn templates(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let tpl = template(&s);
    store.insert_template(&tpl).await.unwrap();
    assert_eq!(
        store.get_template(&s, &tpl.id).await.unwrap(),
        Some(tpl.clone())
    );
    assert!(matches!(
        store.insert_template(&tpl).await,
        Err(StoreError::Duplicate)
    ));
    assert_eq!(store.get_template(&s, "tmpl_missing").await.unwrap(), None);

    let mut v2 = tpl.clone();
    v2.version = 2;
    v2.name = "NDA v2".into();
    v2.updated_at = t(11);
    store.update_template(&v2).await.unwrap();
    assert_eq!(
        store.get_template(&s, &tpl.id).await.unwrap(),
        Some(v2.clone())
    );

    // Stale (from version 1 again), skipping a version, or unknown: conflict, nothing written.
    let mut stale = v2.clone();
    stale.name = "lost".into();
    assert!(matches!(
        store.update_template(&stale).await,
        Err(StoreError::Conflict)
    ));
    let mut skip = v2.clone();
    skip.version = 4;
    assert!(matches!(
        store.update_template(&skip).await,
        Err(StoreError::Conflict)
    ));
    let mut unknown = template(&s);
    unknown.version = 2;
    assert!(matches!(
        store.update_template(&unknown).await,
        Err(StoreError::Conflict)
    ));
    assert_eq!(
        store.get_template(&s, &tpl.id).await.unwrap(),
        Some(v2.clone())
    );

    let other = template(&s);
    store.insert_template(&other).await.unwrap();
    let (listed, more) = ids(
        store.list_templates(&s, &page(10, None)).await.unwrap(),
        |t| &t.id,
    );
    assert_eq!(
        (listed, more),
        (vec![other.id.clone(), tpl.id.clone()], false)
    );
    let mut archived = v2.clone();
    archived.version = 3;
    archived.archived = true;
    store.update_template(&archived).await.unwrap();
    let (listed, _) = ids(
        store.list_templates(&s, &page(10, None)).await.unwrap(),
        |t| &t.id,
    );
    assert_eq!(
        listed,
        vec![other.id.clone()],
        "archived templates are not listed"
    );
    assert_eq!(
        store.get_template(&s, &tpl.id).await.unwrap(),
        Some(archived)
    );
}

/// Envelope writes store their events and one pending delivery per subscribed, enabled endpoint
/// of the same scope.
pub async fn envelope_writes_events_and_outbox(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 10).await;
    let all = endpoint(&s, &["*"], EndpointStatus::Enabled);
    let sent_only = endpoint(&s, &["envelope.sent"], EndpointStatus::Enabled);
    let disabled = endpoint(&s, &["*"], EndpointStatus::Disabled);
    let other_mode_ep = endpoint(
        &Scope {
            account: s.account.clone(),
            mode: other_mode(s.mode),
        },
        &["*"],
        EndpointStatus::Enabled,
    );
    let other_account = new_scope(&*store, 0).await;
    let other_account_ep = endpoint(&other_account, &["*"], EndpointStatus::Enabled);
    for ep in [
        &all,
        &sent_only,
        &disabled,
        &other_mode_ep,
        &other_account_ep,
    ] {
        store.insert_webhook_endpoint(ep).await.unwrap();
    }

    let env = envelope(&s);
    let created = event(&env, EventType::Created);
    store
        .create_envelope(&env, std::slice::from_ref(&created), None)
        .await
        .unwrap();
    assert_eq!(
        store.get_envelope(&s, &env.id).await.unwrap(),
        Some(env.clone())
    );
    assert_eq!(
        store.get_event(&s, created.id()).await.unwrap(),
        Some(created.clone())
    );
    let d = store.deliveries_for_event(&s, created.id()).await.unwrap();
    assert_eq!(
        d.len(),
        1,
        "only the '*' endpoint wants envelope.created: {d:?}"
    );
    assert_eq!(d[0].endpoint, all.id);
    assert_eq!(d[0].event, created.event.id);
    assert_eq!(
        (d[0].account.as_str(), d[0].mode),
        (s.account.as_str(), s.mode)
    );
    assert_eq!((d[0].status, d[0].attempts), (DeliveryStatus::Pending, 0));

    // An update with two events: both stored (newest last), each fanned out.
    let mut sent = next(&env);
    sent.status = EnvelopeStatus::Sent;
    sent.sent_at = Some(t(50));
    let ev_sent = event(&sent, EventType::Sent);
    let ev_viewed = event(&sent, EventType::SignerViewed);
    store
        .update_envelope(&sent, &[ev_sent.clone(), ev_viewed.clone()], None)
        .await
        .unwrap();
    assert_eq!(
        store.get_envelope(&s, &env.id).await.unwrap(),
        Some(sent.clone())
    );
    let endpoints = |d: Vec<crate::model::WebhookDelivery>| {
        d.into_iter().map(|d| d.endpoint).collect::<BTreeSet<_>>()
    };
    assert_eq!(
        endpoints(store.deliveries_for_event(&s, ev_sent.id()).await.unwrap()),
        BTreeSet::from([all.id.clone(), sent_only.id.clone()])
    );
    assert_eq!(
        endpoints(
            store
                .deliveries_for_event(&s, ev_viewed.id())
                .await
                .unwrap()
        ),
        BTreeSet::from([all.id.clone()])
    );
    let (events, _) = ids(
        store.list_events(&s, None, &page(10, None)).await.unwrap(),
        |e| e.id(),
    );
    assert_eq!(events, [ev_viewed.id(), ev_sent.id(), created.id()]);

    // A duplicate create fails whole: its events are not written.
    let mut dup = envelope(&s);
    dup.id = env.id.clone();
    let dup_ev = event(&dup, EventType::Created);
    assert!(matches!(
        store
            .create_envelope(&dup, std::slice::from_ref(&dup_ev), None)
            .await,
        Err(StoreError::Duplicate)
    ));
    assert_eq!(store.get_event(&s, dup_ev.id()).await.unwrap(), None);
    assert!(
        store
            .deliveries_for_event(&s, dup_ev.id())
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.get_envelope(&s, &env.id).await.unwrap(), Some(sent));

    // A write without events is fine, and an endpoint created later only gets later events.
    let quiet = envelope(&s);
    store.create_envelope(&quiet, &[], None).await.unwrap();
    assert_eq!(
        store.get_envelope(&s, &quiet.id).await.unwrap(),
        Some(quiet)
    );
}

/// Two writers from the same version: the first wins, the second gets `Conflict` and writes
/// nothing (neither the envelope nor its events).
pub async fn optimistic_concurrency(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 10).await;
    let env = envelope(&s);
    store.create_envelope(&env, &[], None).await.unwrap();
    let mut a = next(&env);
    a.name = "A".into();
    let mut b = next(&env);
    b.name = "B".into();
    let ev_a = event(&a, EventType::Sent);
    let ev_b = event(&b, EventType::Sent);
    store
        .update_envelope(&a, std::slice::from_ref(&ev_a), None)
        .await
        .unwrap();
    assert!(matches!(
        store
            .update_envelope(&b, std::slice::from_ref(&ev_b), None)
            .await,
        Err(StoreError::Conflict)
    ));
    assert_eq!(
        store.get_envelope(&s, &env.id).await.unwrap(),
        Some(a.clone())
    );
    assert_eq!(store.get_event(&s, ev_b.id()).await.unwrap(), None);

    let mut skip = next(&a);
    skip.version += 1;
    assert!(matches!(
        store.update_envelope(&skip, &[], None).await,
        Err(StoreError::Conflict)
    ));
    let missing = next(&envelope(&s));
    assert!(matches!(
        store.update_envelope(&missing, &[], None).await,
        Err(StoreError::Conflict)
    ));
    // The owner of a record never changes: a write that names another scope is a conflict.
    let mut moved = next(&a);
    moved.account = new_scope(&*store, 0).await.account;
    assert!(matches!(
        store.update_envelope(&moved, &[], None).await,
        Err(StoreError::Conflict)
    ));
    assert_eq!(store.get_envelope(&s, &env.id).await.unwrap(), Some(a));
}

/// Many tasks update from the same version at once: exactly one wins.
pub async fn optimistic_concurrency_raced(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 10).await;
    let env = envelope(&s);
    store.create_envelope(&env, &[], None).await.unwrap();
    let tasks: Vec<_> = (0..RACERS)
        .map(|i| {
            let store = store.clone();
            let mut mine = next(&env);
            mine.name = format!("writer {i}");
            let ev = event(&mine, EventType::Sent);
            tokio::spawn(async move {
                let r = store
                    .update_envelope(&mine, std::slice::from_ref(&ev), None)
                    .await;
                (mine, ev, r)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for task in tasks {
        let (mine, ev, r) = task.await.expect("task");
        match r {
            Ok(()) => winners.push((mine, ev)),
            Err(StoreError::Conflict) => {
                assert_eq!(store.get_event(&s, ev.id()).await.unwrap(), None);
            }
            Err(e) => panic!("unexpected {e:?}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one writer wins");
    let (mine, ev) = winners.pop().unwrap();
    assert_eq!(store.get_envelope(&s, &env.id).await.unwrap(), Some(mine));
    assert!(store.get_event(&s, ev.id()).await.unwrap().is_some());
}

/// Debits succeed up to the allowance; the next is `InsufficientBalance` and writes nothing.
pub async fn allowance(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 2).await;
    let ep = endpoint(&s, &["*"], EndpointStatus::Enabled);
    store.insert_webhook_endpoint(&ep).await.unwrap();
    let period = "2026-03";
    let d = debit(&s, period, 2);

    let e1 = envelope(&s);
    store
        .create_envelope(&e1, &[event(&e1, EventType::Created)], Some(&d))
        .await
        .unwrap();
    assert_eq!(store.usage(&s.account, period).await.unwrap(), 1);
    let e2 = envelope(&s);
    store.create_envelope(&e2, &[], None).await.unwrap();
    let e2b = next(&e2);
    store
        .update_envelope(&e2b, &[event(&e2b, EventType::Sent)], Some(&d))
        .await
        .unwrap();
    assert_eq!(store.usage(&s.account, period).await.unwrap(), 2);

    // Spent: a create writes no envelope, no event, no delivery.
    let e3 = envelope(&s);
    let ev3 = event(&e3, EventType::Created);
    let r = store
        .create_envelope(&e3, std::slice::from_ref(&ev3), Some(&d))
        .await;
    assert!(matches!(r, Err(StoreError::InsufficientBalance)), "{r:?}");
    assert_eq!(store.get_envelope(&s, &e3.id).await.unwrap(), None);
    assert_eq!(store.get_event(&s, ev3.id()).await.unwrap(), None);
    assert!(
        store
            .deliveries_for_event(&s, ev3.id())
            .await
            .unwrap()
            .is_empty()
    );
    // ... and an update leaves the envelope at its old version.
    let mut e2c = next(&e2b);
    e2c.status = EnvelopeStatus::Sent;
    let ev2c = event(&e2c, EventType::Sent);
    let r = store
        .update_envelope(&e2c, std::slice::from_ref(&ev2c), Some(&d))
        .await;
    assert!(matches!(r, Err(StoreError::InsufficientBalance)), "{r:?}");
    assert_eq!(
        store.get_envelope(&s, &e2.id).await.unwrap(),
        Some(e2b.clone())
    );
    assert_eq!(store.get_event(&s, ev2c.id()).await.unwrap(), None);
    assert_eq!(store.usage(&s.account, period).await.unwrap(), 2);
    // The retry from the same version works once the allowance grows.
    store
        .update_envelope(&e2c, &[], Some(&debit(&s, period, 3)))
        .await
        .unwrap();
    assert_eq!(store.usage(&s.account, period).await.unwrap(), 3);

    // Periods are separate; an allowance of zero admits nothing.
    let e4 = envelope(&s);
    store
        .create_envelope(&e4, &[], Some(&debit(&s, "2026-04", 2)))
        .await
        .unwrap();
    assert_eq!(store.usage(&s.account, "2026-04").await.unwrap(), 1);
    let e5 = envelope(&s);
    let r = store
        .create_envelope(&e5, &[], Some(&debit(&s, "2026-05", 0)))
        .await;
    assert!(matches!(r, Err(StoreError::InsufficientBalance)), "{r:?}");
    assert_eq!(store.usage(&s.account, "2026-05").await.unwrap(), 0);
    assert_eq!(store.get_envelope(&s, &e5.id).await.unwrap(), None);
}

/// Concurrent debits never exceed the allowance.
pub async fn allowance_raced(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 3).await;
    let d = debit(&s, "2026-06", 3);
    let tasks: Vec<_> = (0..RACERS)
        .map(|_| {
            let (store, d, e) = (store.clone(), d.clone(), envelope(&s));
            tokio::spawn(async move {
                let r = store
                    .create_envelope(&e, &[event(&e, EventType::Created)], Some(&d))
                    .await;
                (e.id, r)
            })
        })
        .collect();
    let mut ok = 0;
    for task in tasks {
        let (id, r) = task.await.expect("task");
        match r {
            Ok(()) => ok += 1,
            Err(StoreError::InsufficientBalance) => {
                assert_eq!(store.get_envelope(&s, &id).await.unwrap(), None)
            }
            Err(e) => panic!("unexpected {e:?}"),
        }
    }
    assert_eq!(ok, 3);
    assert_eq!(store.usage(&s.account, "2026-06").await.unwrap(), 3);
    let (listed, _) = env_ids(
        store
            .list_envelopes(&s, &EnvelopeFilter::default(), &page(100, None))
            .await
            .unwrap(),
    );
    assert_eq!(listed.len(), 3);
}

/// Lists: newest first, `has_more`, pages that chain by cursor, `UnknownCursor`, and pages that
/// do not shift when items are inserted between two requests.
pub async fn list_pagination(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let all = EnvelopeFilter::default();
    let mut made = Vec::new();
    for _ in 0..5 {
        let e = envelope(&s);
        store
            .create_envelope(&e, &[event(&e, EventType::Created)], None)
            .await
            .unwrap();
        made.push(e.id);
    }
    let newest_first: Vec<String> = made.iter().rev().cloned().collect();
    let list = |limit, after: Option<&str>| {
        let (store, s, all, p) = (store.clone(), s.clone(), all.clone(), page(limit, after));
        async move { store.list_envelopes(&s, &all, &p).await.unwrap() }
    };
    assert_eq!(env_ids(list(10, None).await), (newest_first.clone(), false));
    assert_eq!(env_ids(list(5, None).await), (newest_first.clone(), false));
    assert_eq!(
        env_ids(list(4, None).await),
        (newest_first[..4].to_vec(), true)
    );

    // Walk in pages of 2, inserting a new envelope after the first page.
    let (p1, more) = env_ids(list(2, None).await);
    assert_eq!((p1.as_slice(), more), (&newest_first[..2], true));
    let late = envelope(&s);
    store.create_envelope(&late, &[], None).await.unwrap();
    let (p2, more) = env_ids(list(2, Some(&p1[1])).await);
    assert_eq!((p2.as_slice(), more), (&newest_first[2..4], true));
    let (p3, more) = env_ids(list(2, Some(&p2[1])).await);
    assert_eq!((p3.as_slice(), more), (&newest_first[4..], false));
    let (p4, more) = env_ids(list(2, Some(&p3[0])).await);
    assert!(p4.is_empty() && !more);
    assert_eq!(env_ids(list(1, None).await).0, vec![late.id.clone()]);
    assert_eq!(count(&list(2, Some("env_missing")).await), None);

    // The same rules for the other lists.
    let (events, more) = ids(
        store.list_events(&s, None, &page(2, None)).await.unwrap(),
        |e| e.id(),
    );
    assert!(more && events.len() == 2);
    let (rest, more) = ids(
        store
            .list_events(&s, None, &page(10, Some(&events[1])))
            .await
            .unwrap(),
        |e| e.id(),
    );
    assert_eq!((rest.len(), more), (3, false));
    assert!(!rest.iter().any(|e| events.contains(e)));
    assert_eq!(
        count(
            &store
                .list_events(&s, None, &page(2, Some("evt_missing")))
                .await
                .unwrap()
        ),
        None
    );

    let mut eps = Vec::new();
    for _ in 0..3 {
        let ep = endpoint(&s, &["*"], EndpointStatus::Enabled);
        store.insert_webhook_endpoint(&ep).await.unwrap();
        eps.push(ep.id);
    }
    let (p, more) = ids(
        store
            .list_webhook_endpoints(&s, &page(2, None))
            .await
            .unwrap(),
        |e| &e.id,
    );
    assert_eq!((p, more), (vec![eps[2].clone(), eps[1].clone()], true));
    let (p, more) = ids(
        store
            .list_webhook_endpoints(&s, &page(2, Some(&eps[1])))
            .await
            .unwrap(),
        |e| &e.id,
    );
    assert_eq!((p, more), (vec![eps[0].clone()], false));

    let mut tpls = Vec::new();
    for _ in 0..3 {
        let t = template(&s);
        store.insert_template(&t).await.unwrap();
        tpls.push(t.id);
    }
    let (p, more) = ids(
        store
            .list_templates(&s, &page(1, Some(&tpls[2])))
            .await
            .unwrap(),
        |t| &t.id,
    );
    assert_eq!((p, more), (vec![tpls[1].clone()], true));
    assert_eq!(
        count(
            &store
                .list_templates(&s, &page(1, Some("tmpl_missing")))
                .await
                .unwrap()
        ),
        None
    );
}

/// The envelope template filter and the event type filter, with pagination.
pub async fn list_filters(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let (ta, tb) = (template(&s), template(&s));
    let mut of_a = Vec::new();
    for i in 0..5 {
        let mut e = envelope(&s);
        e.template = Some(if i % 2 == 0 {
            ta.id.clone()
        } else {
            tb.id.clone()
        });
        let mut events = vec![event(&e, EventType::Created)];
        if i % 2 == 0 {
            of_a.push(e.id.clone());
            events.push(event(&e, EventType::Sent));
        }
        store.create_envelope(&e, &events, None).await.unwrap();
    }
    of_a.reverse();
    let by_a = EnvelopeFilter {
        template: Some(ta.id.clone()),
    };
    let (p1, more) = env_ids(
        store
            .list_envelopes(&s, &by_a, &page(2, None))
            .await
            .unwrap(),
    );
    assert_eq!((p1.as_slice(), more), (&of_a[..2], true));
    let (p2, more) = env_ids(
        store
            .list_envelopes(&s, &by_a, &page(2, Some(&p1[1])))
            .await
            .unwrap(),
    );
    assert_eq!((p2.as_slice(), more), (&of_a[2..], false));
    let none = EnvelopeFilter {
        template: Some("tmpl_none".into()),
    };
    assert!(is_empty_page(
        store
            .list_envelopes(&s, &none, &page(2, None))
            .await
            .unwrap()
    ));

    let sent = Some(EventType::Sent);
    let (p1, more) = ids(
        store.list_events(&s, sent, &page(2, None)).await.unwrap(),
        |e| e.id(),
    );
    assert!(more && p1.len() == 2);
    let (p2, more) = ids(
        store
            .list_events(&s, sent, &page(2, Some(&p1[1])))
            .await
            .unwrap(),
        |e| e.id(),
    );
    assert_eq!((p2.len(), more), (1, false));
    let Listed::Page(items, _) = store.list_events(&s, sent, &page(10, None)).await.unwrap() else {
        panic!("page expected");
    };
    assert!(items.iter().all(|e| e.event.kind == EventType::Sent));
    let voided = Some(EventType::Voided);
    assert!(is_empty_page(
        store
            .list_events(&s, voided, &page(10, None))
            .await
            .unwrap()
    ));
}

/// `expired_envelopes`: draft or sent, with `expires_at` at or before now, of any scope.
pub async fn expired_envelopes(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let live = Scope {
        account: s.account.clone(),
        mode: Mode::Live,
    };
    let make = |scope: &Scope, status: EnvelopeStatus, expires: Option<i64>| {
        let mut e = envelope(scope);
        e.status = status;
        e.expires_at = expires.map(t);
        e
    };
    let due = [
        make(&s, EnvelopeStatus::Draft, Some(-1000)),
        make(&s, EnvelopeStatus::Sent, Some(0)),
        make(&live, EnvelopeStatus::Sent, Some(-5)),
    ];
    let not_due = [
        make(&s, EnvelopeStatus::Sent, Some(1)),
        make(&s, EnvelopeStatus::Completed, Some(-1000)),
        make(&s, EnvelopeStatus::Voided, Some(-1000)),
        make(&s, EnvelopeStatus::Draft, None),
    ];
    for e in due.iter().chain(&not_due) {
        store.create_envelope(e, &[], None).await.unwrap();
    }
    let mine: BTreeSet<String> = due.iter().chain(&not_due).map(|e| e.id.clone()).collect();
    let found: BTreeSet<String> = store
        .expired_envelopes(t(0), 10_000)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .filter(|id| mine.contains(id))
        .collect();
    assert_eq!(found, due.iter().map(|e| e.id.clone()).collect());
    assert_eq!(store.expired_envelopes(t(0), 1).await.unwrap().len(), 1);
    // Once voided, it is no longer reported.
    let mut voided = next(&due[0]);
    voided.status = EnvelopeStatus::Voided;
    store.update_envelope(&voided, &[], None).await.unwrap();
    let ids: Vec<String> = store
        .expired_envelopes(t(0), 10_000)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert!(!ids.contains(&due[0].id));
    assert!(ids.contains(&due[1].id));
}

/// Webhook endpoints: insert, duplicate, get in scope, find by ID, update, delete.
pub async fn webhook_endpoints(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let ep = endpoint(&s, &["envelope.sent"], EndpointStatus::Enabled);
    store.insert_webhook_endpoint(&ep).await.unwrap();
    assert!(matches!(
        store.insert_webhook_endpoint(&ep).await,
        Err(StoreError::Duplicate)
    ));
    assert_eq!(
        store.get_webhook_endpoint(&s, &ep.id).await.unwrap(),
        Some(ep.clone())
    );
    assert_eq!(
        store.find_webhook_endpoint(&ep.id).await.unwrap(),
        Some(ep.clone())
    );
    assert_eq!(
        store.find_webhook_endpoint("we_missing").await.unwrap(),
        None
    );

    let mut changed = ep.clone();
    changed.status = EndpointStatus::Disabled;
    changed.events = vec!["*".into()];
    changed.description = Some("paused".into());
    store.update_webhook_endpoint(&changed).await.unwrap();
    assert_eq!(
        store.get_webhook_endpoint(&s, &ep.id).await.unwrap(),
        Some(changed.clone())
    );
    // A disabled endpoint gets no deliveries.
    let e = envelope(&s);
    let ev = event(&e, EventType::Created);
    store
        .create_envelope(&e, std::slice::from_ref(&ev), None)
        .await
        .unwrap();
    assert!(
        store
            .deliveries_for_event(&s, ev.id())
            .await
            .unwrap()
            .is_empty()
    );

    let missing = endpoint(&s, &["*"], EndpointStatus::Enabled);
    assert!(matches!(
        store.update_webhook_endpoint(&missing).await,
        Err(StoreError::Conflict)
    ));

    assert!(store.delete_webhook_endpoint(&s, &ep.id).await.unwrap());
    assert_eq!(store.get_webhook_endpoint(&s, &ep.id).await.unwrap(), None);
    assert_eq!(store.find_webhook_endpoint(&ep.id).await.unwrap(), None);
    assert!(!store.delete_webhook_endpoint(&s, &ep.id).await.unwrap());
    assert!(is_empty_page(
        store
            .list_webhook_endpoints(&s, &page(10, None))
            .await
            .unwrap()
    ));
}

/// Signing tokens and file links, by hash; duplicates refused.
pub async fn links(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let e = envelope(&s);
    store.create_envelope(&e, &[], None).await.unwrap();
    let tok = signing_token(&e);
    store.insert_signing_token(&tok).await.unwrap();
    assert_eq!(
        store.signing_token(&tok.token_hash).await.unwrap(),
        Some(tok.clone())
    );
    assert_eq!(
        store.signing_token(&ids_hash("unknown")).await.unwrap(),
        None
    );
    assert!(matches!(
        store.insert_signing_token(&tok).await,
        Err(StoreError::Duplicate)
    ));

    let link = file_link();
    store.insert_file_link(&link).await.unwrap();
    assert_eq!(
        store.file_link(&link.token_hash).await.unwrap(),
        Some(link.clone())
    );
    assert_eq!(store.file_link(&ids_hash("unknown")).await.unwrap(), None);
    assert!(matches!(
        store.insert_file_link(&link).await,
        Err(StoreError::Duplicate)
    ));
}

/// Idempotency: Started, InFlight, Mismatch, Replay, expiry, stale takeover, release.
pub async fn idempotency(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    use IdempotencyBegin::*;
    let s = new_scope(&*store, 0).await;
    let minute = 60_000;
    let begin = |key: &'static str, fp: &'static str, now: i64, stale_before: i64| {
        let (store, s) = (store.clone(), s.clone());
        async move {
            store
                .idempotency_begin(&s, key, fp, t(now), t(stale_before))
                .await
                .unwrap()
        }
    };
    let response = StoredResponse {
        status: 201,
        body: b"{\"id\":\"env_1\"}\x00\xff".to_vec(),
    };

    assert_eq!(begin("a", "fp1", 0, -minute).await, Started);
    assert_eq!(begin("a", "fp1", 1, -minute).await, InFlight);
    assert_eq!(begin("a", "fp2", 1, -minute).await, Mismatch);
    store
        .idempotency_finish(&s, "a", &response, t(10 * minute))
        .await
        .unwrap();
    assert_eq!(
        begin("a", "fp1", 2, -minute).await,
        Replay(response.clone())
    );
    assert_eq!(begin("a", "fp2", 2, -minute).await, Mismatch);
    // A finished key is not released, and finishing twice keeps the first response.
    store.idempotency_release(&s, "a").await.unwrap();
    let other = StoredResponse {
        status: 500,
        body: vec![],
    };
    store
        .idempotency_finish(&s, "a", &other, t(20 * minute))
        .await
        .unwrap();
    assert_eq!(
        begin("a", "fp1", 3, -minute).await,
        Replay(response.clone())
    );
    // After it expires, the key is free again (for any request).
    assert_eq!(begin("a", "fp2", 10 * minute, 9 * minute).await, Started);
    assert_eq!(
        begin("a", "fp2", 10 * minute + 1, 9 * minute).await,
        InFlight
    );

    // Release forgets a claim.
    assert_eq!(begin("b", "fp1", 0, -minute).await, Started);
    store.idempotency_release(&s, "b").await.unwrap();
    assert_eq!(begin("b", "fp1", 1, -minute).await, Started);

    // A claim older than `stale_before` was abandoned: the next request takes it over, and from
    // then on it is the new claim that is in flight.
    assert_eq!(begin("c", "fp1", 0, -minute).await, Started);
    assert_eq!(begin("c", "fp1", 4 * minute, 0).await, Started);
    assert_eq!(begin("c", "fp1", 4 * minute + 1, minute).await, InFlight);
    assert_eq!(begin("c", "fp9", 4 * minute + 2, minute).await, Mismatch);

    // Finishing or releasing an unknown key changes nothing.
    store
        .idempotency_finish(&s, "d", &response, t(minute))
        .await
        .unwrap();
    store.idempotency_release(&s, "d").await.unwrap();
    assert_eq!(begin("d", "fp1", 0, -minute).await, Started);
}

/// Many tasks begin the same key at once: exactly one is `Started`; the same for the takeover
/// of an abandoned claim.
pub async fn idempotency_raced(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let race = |key: &'static str, now: i64, stale_before: i64| {
        let tasks: Vec<_> = (0..RACERS)
            .map(|_| {
                let (store, s) = (store.clone(), s.clone());
                tokio::spawn(async move {
                    store
                        .idempotency_begin(&s, key, "fp", t(now), t(stale_before))
                        .await
                })
            })
            .collect();
        async move {
            let mut started = 0;
            for task in tasks {
                match task.await.expect("task").unwrap() {
                    IdempotencyBegin::Started => started += 1,
                    IdempotencyBegin::InFlight => {}
                    other => panic!("unexpected {other:?}"),
                }
            }
            started
        }
    };
    assert_eq!(race("fresh", 0, -1).await, 1, "exactly one request starts");
    assert_eq!(
        race("fresh", 100_000, 50_000).await,
        1,
        "exactly one takes over"
    );
}

/// Blobs: put and get, unknown keys, a 25 MB round trip.
pub async fn blobs(_: Arc<dyn Store>, blobs: Arc<dyn BlobStore>) {
    let key = format!("blob_{}", crate::ids::random_base62(32));
    assert_eq!(blobs.get(&key).await.unwrap(), None);
    blobs
        .put(&key, Bytes::from_static(b"%PDF-1.7\n"))
        .await
        .unwrap();
    assert_eq!(
        blobs.get(&key).await.unwrap(),
        Some(Bytes::from_static(b"%PDF-1.7\n"))
    );
    let empty = format!("blob_{}", crate::ids::random_base62(32));
    blobs.put(&empty, Bytes::new()).await.unwrap();
    assert_eq!(blobs.get(&empty).await.unwrap(), Some(Bytes::new()));

    // 25 MB of bytes that do not compress, every byte value included.
    let mut big = Vec::with_capacity(25 << 20);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    while big.len() < 25 << 20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        big.extend_from_slice(&x.to_le_bytes());
    }
    let big = Bytes::from(big);
    let big_key = format!("blob_{}", crate::ids::random_base62(32));
    blobs.put(&big_key, big.clone()).await.unwrap();
    let back = blobs.get(&big_key).await.unwrap().expect("big blob");
    assert_eq!(back.len(), big.len());
    assert!(back == big, "25 MB blob differs after the round trip");
}
