//! Clauses: templates, envelope transitions with events and outbox rows, optimistic
//! concurrency, allowance, expiry, seal sweeps, webhook endpoints.

use super::*;

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
    assert_eq!(
        store
            .get_template(&s, &TemplateId::trusted("tmpl_missing"))
            .await
            .unwrap(),
        None
    );

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
        (vec![other.id.to_string(), tpl.id.to_string()], false)
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
    assert_eq!(
        events,
        [
            ev_viewed.id().to_string(),
            ev_sent.id().to_string(),
            created.id().to_string()
        ]
    );

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

/// Stamps: what `get_envelope` would answer, reduced to version, status and expiry, through
/// every write; missing for another scope and for an unknown ID.
pub async fn envelope_stamps(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 10).await;
    let env = envelope(&s);
    assert_eq!(store.envelope_stamp(&s, &env.id).await.unwrap(), None);
    store.create_envelope(&env, &[], None).await.unwrap();
    let stamp = store.envelope_stamp(&s, &env.id).await.unwrap();
    assert_eq!(stamp, Some(EnvelopeStamp::of(&env)));
    assert_eq!(stamp.map(|st| st.version), Some(1));

    let mut sent = next(&env);
    sent.status = EnvelopeStatus::Sent;
    sent.expires_at = Some(t(500));
    store.update_envelope(&sent, &[], None).await.unwrap();
    let stamp = store.envelope_stamp(&s, &env.id).await.unwrap().unwrap();
    assert_eq!(stamp, EnvelopeStamp::of(&sent));
    assert_eq!(
        (stamp.version, stamp.status, stamp.expires_at),
        (2, EnvelopeStatus::Sent, Some(t(500)))
    );

    let mut voided = next(&sent);
    voided.status = EnvelopeStatus::Voided;
    voided.expires_at = None;
    store.update_envelope(&voided, &[], None).await.unwrap();
    assert_eq!(
        store.envelope_stamp(&s, &env.id).await.unwrap(),
        Some(EnvelopeStamp::of(&voided))
    );
    // A write that lost its race changes nothing, the stamp included.
    assert!(
        store
            .update_envelope(&next(&sent), &[], None)
            .await
            .is_err()
    );
    assert_eq!(
        store.envelope_stamp(&s, &env.id).await.unwrap(),
        Some(EnvelopeStamp::of(&voided))
    );

    let other = new_scope(&*store, 0).await;
    assert_eq!(store.envelope_stamp(&other, &env.id).await.unwrap(), None);
    let live = Scope {
        account: s.account.clone(),
        mode: Mode::Live,
    };
    assert_eq!(store.envelope_stamp(&live, &env.id).await.unwrap(), None);
    let missing = envelope(&s);
    assert_eq!(store.envelope_stamp(&s, &missing.id).await.unwrap(), None);
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
    let mine: BTreeSet<EnvelopeId> = due.iter().chain(&not_due).map(|e| e.id.clone()).collect();
    let found: BTreeSet<EnvelopeId> = store
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
    let ids: Vec<EnvelopeId> = store
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
        store
            .find_webhook_endpoint(&WebhookEndpointId::trusted("we_missing"))
            .await
            .unwrap(),
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

/// The email outbox: `due_emails` reports records whose earliest pending email is due, in every
/// scope, earliest first, and follows each write of the record (a sent email stops it, a
/// retry time brings it back). The emails round-trip with the record.
pub async fn due_emails(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    use crate::model::EmailKind;
    use crate::model::{EmailRecord, EmailStatus};
    let s = new_scope(&*store, 0).await;
    let live = Scope {
        account: s.account.clone(),
        mode: Mode::Live,
    };
    let email = |e: &EnvelopeRecord, status: EmailStatus, at: Option<i64>| EmailRecord {
        id: crate::ids::EmailId::new(),
        kind: EmailKind::SigningRequest,
        recipient: e.signers[0].signer.id.to_string(),
        status,
        attempts: 1,
        created_at: t(-100),
        next_attempt_at: at.map(t),
        finished_at: None,
        last_error: Some("the mail server could not be reached".into()),
        failure_reason: None,
        budget_taken: false,
    };
    let make = |scope: &Scope, emails: &[(EmailStatus, Option<i64>)]| {
        let mut e = envelope(scope);
        e.emails = emails.iter().map(|&(st, at)| email(&e, st, at)).collect();
        e
    };
    use EmailStatus::{Failed, Pending, Sent};
    let depth = store.queue_depths().await.unwrap().envelopes_with_emails;
    let a = make(
        &s,
        &[(Sent, None), (Pending, Some(-10)), (Pending, Some(50))],
    );
    let b = make(&s, &[(Pending, Some(5))]);
    let c = make(&s, &[(Sent, None), (Failed, None)]);
    let d = make(&s, &[]);
    let e = make(&live, &[(Pending, Some(-20))]);
    for r in [&a, &b, &c, &d, &e] {
        store.create_envelope(r, &[], None).await.unwrap();
    }
    assert_eq!(
        store.get_envelope(&s, &a.id).await.unwrap().as_ref(),
        Some(&a)
    );
    let depths = store.queue_depths().await.unwrap();
    assert_eq!(
        depths.envelopes_with_emails,
        depth + 3,
        "a, b and e have pending emails"
    );
    let mine = [&a, &b, &c, &d, &e].map(|r| r.id.clone());
    let due = |now: i64| {
        let store = store.clone();
        let mine = mine.clone();
        async move {
            store
                .due_emails(t(now), 10_000)
                .await
                .unwrap()
                .into_iter()
                .map(|r| r.id)
                .filter(|id| mine.contains(id))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        due(0).await,
        [e.id.clone(), a.id.clone()],
        "earliest due first"
    );
    assert_eq!(store.due_emails(t(0), 1).await.unwrap().len(), 1);
    assert_eq!(due(5).await, [e.id.clone(), a.id.clone(), b.id.clone()]);

    // Sending a's due email leaves its later one: due again only at t(50).
    let mut a2 = next(&a);
    a2.emails[1].status = Sent;
    a2.emails[1].next_attempt_at = None;
    store.update_envelope(&a2, &[], None).await.unwrap();
    assert_eq!(due(10).await, [e.id.clone(), b.id.clone()]);
    assert_eq!(due(50).await, [e.id.clone(), b.id.clone(), a.id.clone()]);
    // A lease moves an email on.
    let mut e2 = next(&e);
    e2.emails[0].next_attempt_at = Some(t(60));
    store.update_envelope(&e2, &[], None).await.unwrap();
    assert_eq!(due(50).await, [b.id.clone(), a.id.clone()]);
}

/// `seal_sweeps`: envelopes of any scope by `seal.upgrade_due_at` (at or before now, by time
/// then ID) and by `seal.archive_expires_at` (at or before a time, by time then ID, after a
/// cursor), at most `limit`; IDs compare as bytes; a write that clears a time takes the envelope
/// out of the answer and one that sets it puts it in; a record without `seal` never appears.
pub async fn seal_sweeps(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    use crate::clock::Timestamp;
    use crate::model::{SealLevel, SealRecord};
    let s = new_scope(&*store, 0).await;
    let live = Scope {
        account: s.account.clone(),
        mode: Mode::Live,
    };
    let make = |scope: &Scope, due: Option<i64>, expires: Option<i64>| {
        let mut e = envelope(scope);
        e.status = EnvelopeStatus::Completed;
        e.completed_at = Some(t(100));
        let mut seal = SealRecord::new(SealLevel::BLta, vec![SealLevel::BT], SealLevel::BLta);
        seal.upgrade_due_at = due.map(t);
        seal.archive_expires_at = expires.map(t);
        e.seal = Some(seal);
        e
    };
    // Three envelopes with the same times whose IDs differ in their last character only, where
    // byte order ('0' < 'B' < 'a') and a linguistic collation ('0' < 'a' < 'B') disagree.
    let stem = crate::ids::new_id(EnvelopeId::PREFIX);
    let tied = |scope: &Scope, last: char| {
        let mut e = make(scope, Some(-10), Some(-5));
        e.id = stem_id(&stem, last);
        e
    };
    let a = make(&s, Some(-30), Some(1_000));
    let b = tied(&live, 'a');
    let c = tied(&s, 'B');
    let h = tied(&live, '0');
    let d = make(&s, Some(0), None);
    let e = make(&live, Some(5), Some(5_000));
    let f = make(&s, None, None);
    let i = make(&s, None, Some(-50));
    let mut g = envelope(&s);
    g.status = EnvelopeStatus::Completed;
    g.expires_at = Some(t(-1_000));
    let all = [&a, &b, &c, &h, &d, &e, &f, &i, &g];
    for r in all {
        store.create_envelope(r, &[], None).await.unwrap();
    }
    let mine: BTreeSet<EnvelopeId> = all.iter().map(|r| r.id.clone()).collect();
    let due_key =
        |r: &EnvelopeRecord| (r.seal.as_ref().and_then(|s| s.upgrade_due_at), r.id.clone());
    let exp_key = |r: &EnvelopeRecord| {
        (
            r.seal.as_ref().and_then(|s| s.archive_expires_at),
            r.id.clone(),
        )
    };
    // Every answer holds only envelopes whose time is set and in range, in strict (time, ID)
    // order, whoever else writes to the store; the checks below look at this clause's own.
    let due = |now: i64, limit: usize| {
        let store = store.clone();
        async move {
            let rs = store.seal_upgrades_due(t(now), limit).await.unwrap();
            assert!(rs.len() <= limit, "at most limit");
            let keys: Vec<_> = rs.iter().map(due_key).collect();
            for k in &keys {
                assert!(k.0.is_some_and(|at| at <= t(now)), "{k:?} is not due");
            }
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "by time, then ID");
            rs
        }
    };
    let expiring = |before: i64, after: Option<(Timestamp, EnvelopeId)>, limit: usize| {
        let store = store.clone();
        async move {
            let rs = store
                .seals_expiring(t(before), after.clone(), limit)
                .await
                .unwrap();
            assert!(rs.len() <= limit, "at most limit");
            let keys: Vec<_> = rs.iter().map(exp_key).collect();
            for k in &keys {
                assert!(
                    k.0.is_some_and(|at| at <= t(before)),
                    "{k:?} is not expiring"
                );
                if let Some((at, id)) = &after {
                    assert!(
                        (k.0.unwrap(), &k.1) > (*at, id),
                        "{k:?} is not after the cursor"
                    );
                }
            }
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "by time, then ID");
            rs
        }
    };
    let ours = |rs: Vec<EnvelopeRecord>| -> Vec<EnvelopeId> {
        rs.into_iter()
            .map(|r| r.id)
            .filter(|id| mine.contains(id))
            .collect()
    };

    // Due now: a, then the three tied ones in byte order of their IDs, then d (due exactly now);
    // e is due later; f and i have no due time, g no seal.
    let by_due = sorted(vec![&a, &b, &c, &h, &d], due_key);
    assert_eq!(by_due[1..4], [h.id.clone(), c.id.clone(), b.id.clone()]);
    assert_eq!(ours(due(0, 10_000).await), by_due);
    assert_eq!(
        ours(due(5, 10_000).await),
        sorted(vec![&a, &b, &c, &h, &d, &e], due_key)
    );
    assert_eq!(ours(due(-31, 10_000).await), Vec::<EnvelopeId>::new());
    // A limit takes the earliest: none of ours left out is earlier than the last one taken.
    let first = due(0, 2).await;
    assert_eq!(first.len(), 2);
    let last_taken = due_key(first.last().unwrap());
    for r in [&a, &b, &c, &h, &d] {
        if !first.iter().any(|x| x.id == r.id) {
            assert!(
                due_key(r) > last_taken,
                "{} was due before the limit's last",
                r.id
            );
        }
    }
    assert!(due(0, 0).await.is_empty());
    assert_eq!(
        store
            .seal_upgrades_due(t(0), 10_000)
            .await
            .unwrap()
            .into_iter()
            .find(|r| r.id == a.id),
        Some(a.clone()),
        "the whole record"
    );

    // Expiring by t(0): i, then the three tied ones; a and e later, d and f none, g no seal.
    let by_exp = sorted(vec![&i, &b, &c, &h], exp_key);
    assert_eq!(by_exp, [&i.id, &h.id, &c.id, &b.id].map(|id| id.clone()));
    assert_eq!(ours(expiring(0, None, 10_000).await), by_exp);
    assert_eq!(
        ours(expiring(5_000, None, 10_000).await),
        sorted(vec![&i, &b, &c, &h, &a, &e], exp_key)
    );
    // The cursor: strictly after (time, ID), also between IDs of one time.
    let at = |r: &EnvelopeRecord| Some((t(-5), r.id.clone()));
    assert_eq!(
        ours(expiring(0, at(&h), 10_000).await),
        [c.id.clone(), b.id.clone()]
    );
    assert_eq!(ours(expiring(0, at(&c), 10_000).await), vec![b.id.clone()]);
    assert_eq!(
        ours(expiring(0, at(&b), 10_000).await),
        Vec::<EnvelopeId>::new()
    );
    assert_eq!(
        ours(expiring(1_000, Some((t(-50), i.id.clone())), 10_000).await),
        sorted(vec![&b, &c, &h, &a], exp_key)
    );
    assert_eq!(
        ours(expiring(0, Some((t(-6), stem_id(&stem, 'z'))), 10_000).await),
        [h.id.clone(), c.id.clone(), b.id.clone()],
        "a time before the tied ones: every ID of theirs is after it"
    );
    // Walking pages of two by the cursor reads each once, in order.
    let mut walked = Vec::new();
    let mut cursor = None;
    loop {
        let page = expiring(1_000, cursor.clone(), 2).await;
        let Some(last) = page.last() else { break };
        cursor = Some((
            last.seal
                .as_ref()
                .and_then(|s| s.archive_expires_at)
                .unwrap(),
            last.id.clone(),
        ));
        walked.extend(page.into_iter().map(|r| r.id));
    }
    assert_eq!(
        walked
            .iter()
            .filter(|id| mine.contains(*id))
            .cloned()
            .collect::<Vec<_>>(),
        sorted(vec![&i, &b, &c, &h, &a], exp_key)
    );
    assert!(expiring(0, None, 0).await.is_empty());

    // Writes move envelopes in and out: a's due time cleared, f's set (the earliest now), d's
    // seal gone, b's archive time cleared and f's set, e's due time set by the erasing write.
    let mut a2 = next(&a);
    a2.seal.as_mut().unwrap().upgrade_due_at = None;
    let mut f2 = next(&f);
    let seal = f2.seal.as_mut().unwrap();
    seal.upgrade_due_at = Some(t(-40));
    seal.archive_expires_at = Some(t(-60));
    let mut d2 = next(&d);
    d2.seal = None;
    let mut b2 = next(&b);
    b2.seal.as_mut().unwrap().archive_expires_at = None;
    let mut g2 = next(&g);
    g2.name = "Lease, again".into();
    for r in [&a2, &f2, &d2, &b2, &g2] {
        store.update_envelope(r, &[], None).await.unwrap();
    }
    let mut e2 = next(&e);
    e2.seal.as_mut().unwrap().upgrade_due_at = Some(t(-20));
    store.erase_envelope(&e2).await.unwrap();

    assert_eq!(
        ours(due(0, 10_000).await),
        [
            f.id.clone(),
            e.id.clone(),
            h.id.clone(),
            c.id.clone(),
            b.id.clone()
        ]
    );
    assert_eq!(
        ours(expiring(0, None, 10_000).await),
        [f.id.clone(), i.id.clone(), h.id.clone(), c.id.clone()]
    );
    assert_eq!(
        ours(expiring(5_000, None, 10_000).await),
        [
            f.id.clone(),
            i.id.clone(),
            h.id.clone(),
            c.id.clone(),
            a.id.clone(),
            e.id.clone()
        ]
    );
    let found = store.seal_upgrades_due(t(0), 10_000).await.unwrap();
    assert_eq!(
        found.iter().find(|r| r.id == f.id),
        Some(&f2),
        "the record as written"
    );
}

/// The IDs of `rs` ordered by `key`.
fn sorted<K: Ord>(
    mut rs: Vec<&EnvelopeRecord>,
    key: impl Fn(&EnvelopeRecord) -> K,
) -> Vec<EnvelopeId> {
    rs.sort_by_key(|r| key(r));
    rs.into_iter().map(|r| r.id.clone()).collect()
}

/// The ID `stem` followed by `last`.
fn stem_id(stem: &str, last: char) -> EnvelopeId {
    EnvelopeId::trusted(format!("{stem}{last}"))
}
