//! Clauses: accounts and keys, scope isolation, links.

use super::*;

/// Accounts and API keys: lookup by hash, duplicates, revocation, allowance setting.
pub async fn accounts_and_keys(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let a = account(5);
    let (k1, k2) = (api_key(&a.id, Mode::Test), api_key(&a.id, Mode::Live));
    store
        .insert_account(&a, &[k1.clone(), k2.clone()])
        .await
        .unwrap();
    assert_eq!(store.get_account(&a.id).await.unwrap(), Some(a.clone()));
    assert_eq!(
        store
            .get_account(&AccountId::trusted("acct_missing"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store.api_key_by_hash(&k1.hash).await.unwrap(),
        Some(k1.clone())
    );
    assert_eq!(
        store.api_key_by_hash(&ids_hash("nope")).await.unwrap(),
        None
    );
    assert_eq!(
        store.api_key_with_account(&k2.hash).await.unwrap(),
        Some((k2.clone(), a.clone()))
    );
    assert_eq!(
        store.api_key_with_account(&ids_hash("nope")).await.unwrap(),
        None
    );

    let b = account(1);
    store.insert_account(&b, &[]).await.unwrap();
    let listed: Vec<String> = store
        .list_accounts()
        .await
        .unwrap()
        .into_iter()
        .map(|x| x.id.into_string())
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
    let keys: Vec<ApiKeyId> = store
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
    let (revoked, owner) = store.api_key_with_account(&k1.hash).await.unwrap().unwrap();
    assert_eq!(
        (revoked.revoked_at, owner.id.as_str()),
        (Some(t(99)), a.id.as_str())
    );
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
    assert!(
        !store
            .set_allowance(&AccountId::trusted("acct_missing"), 7)
            .await
            .unwrap()
    );
    assert_eq!(store.usage(&a.id, "2026-01").await.unwrap(), 0);
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
        assert!(
            matches!(begun, IdempotencyBegin::Started { .. }),
            "{begun:?}"
        );
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
    assert!(
        matches!(begun, IdempotencyBegin::Started { .. }),
        "{begun:?}"
    );
}

/// Signing tokens, file links and builder links, by hash; duplicates refused.
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

    let builder = builder_token(&e);
    store.insert_builder_token(&builder).await.unwrap();
    assert_eq!(
        store.builder_token(&builder.token_hash).await.unwrap(),
        Some(builder.clone())
    );
    assert_eq!(
        store.builder_token(&ids_hash("unknown")).await.unwrap(),
        None
    );
    assert!(matches!(
        store.insert_builder_token(&builder).await,
        Err(StoreError::Duplicate)
    ));
}
