//! Clauses: newest-first keyset lists, cursors and filters.

use super::*;

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
        made.push(e.id.into_string());
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
        eps.push(ep.id.into_string());
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
        tpls.push(t.id.into_string());
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
                .list_templates(&s, &page(1, Some(&TemplateId::trusted("tmpl_missing"))))
                .await
                .unwrap()
        ),
        None
    );
}

/// The envelope template and bulk send filters and the event type filter, with pagination.
pub async fn list_filters(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let (ta, tb) = (template(&s), template(&s));
    // An envelope may name only a template that exists (referential integrity).
    store.insert_template(&ta).await.unwrap();
    store.insert_template(&tb).await.unwrap();
    let mut of_a = Vec::new();
    let mut of_bulk = Vec::new();
    let bulk = BulkSendId::trusted(crate::ids::new_id("bulk_"));
    for i in 0..5 {
        let mut e = envelope(&s);
        e.template = Some(if i % 2 == 0 {
            ta.id.clone()
        } else {
            tb.id.clone()
        });
        if i < 3 {
            e.bulk_send = Some(bulk.clone());
            of_bulk.push(e.id.to_string());
        }
        let mut events = vec![event(&e, EventType::Created)];
        if i % 2 == 0 {
            of_a.push(e.id.to_string());
            events.push(event(&e, EventType::Sent));
        }
        store.create_envelope(&e, &events, None).await.unwrap();
    }
    of_a.reverse();
    of_bulk.reverse();
    let by_a = EnvelopeFilter {
        template: Some(ta.id.clone()),
        bulk_send: None,
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
        template: Some(TemplateId::trusted("tmpl_none")),
        bulk_send: None,
    };
    assert!(is_empty_page(
        store
            .list_envelopes(&s, &none, &page(2, None))
            .await
            .unwrap()
    ));
    // By bulk send, with pagination; with the template too, both apply.
    let by_bulk = EnvelopeFilter {
        template: None,
        bulk_send: Some(bulk.clone()),
    };
    let (p1, more) = env_ids(
        store
            .list_envelopes(&s, &by_bulk, &page(2, None))
            .await
            .unwrap(),
    );
    assert_eq!((p1.as_slice(), more), (&of_bulk[..2], true));
    let (p2, more) = env_ids(
        store
            .list_envelopes(&s, &by_bulk, &page(2, Some(&p1[1])))
            .await
            .unwrap(),
    );
    assert_eq!((p2.as_slice(), more), (&of_bulk[2..], false));
    let both = EnvelopeFilter {
        template: Some(tb.id.clone()),
        bulk_send: Some(bulk.clone()),
    };
    let (p, more) = env_ids(
        store
            .list_envelopes(&s, &both, &page(10, None))
            .await
            .unwrap(),
    );
    assert_eq!((p.as_slice(), more), (&of_bulk[1..2], false));
    let other = EnvelopeFilter {
        template: None,
        bulk_send: Some(BulkSendId::trusted("bulk_none")),
    };
    assert!(is_empty_page(
        store
            .list_envelopes(&s, &other, &page(2, None))
            .await
            .unwrap()
    ));
    // In another scope, the bulk send's envelopes are not listed.
    let elsewhere = new_scope(&*store, 0).await;
    assert!(is_empty_page(
        store
            .list_envelopes(&elsewhere, &by_bulk, &page(2, None))
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
