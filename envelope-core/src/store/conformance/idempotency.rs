//! Clauses: idempotency keys, alone and raced.

use super::*;

/// Idempotency: Started, InFlight, Mismatch, Replay, expiry, stale takeover, release.
pub async fn idempotency(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    use IdempotencyBegin::*;
    let s = new_scope(&*store, 0).await;
    let minute = 60_000;
    let begin = |key: &'static str, fp: &'static str, now: i64, stale_before: i64| {
        let (store, s) = (store.clone(), s.clone());
        async move { kind(begin_at(&*store, &s, key, fp, now, stale_before).await) }
    };
    let response = StoredResponse {
        status: 201,
        body: b"{\"id\":\"env_1\"}\x00\xff".to_vec(),
    };

    assert_eq!(begin("a", "fp1", 0, -minute).await, started());
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
    assert_eq!(begin("a", "fp2", 10 * minute, 9 * minute).await, started());
    assert_eq!(
        begin("a", "fp2", 10 * minute + 1, 9 * minute).await,
        InFlight
    );

    // Release forgets a claim.
    assert_eq!(begin("b", "fp1", 0, -minute).await, started());
    store.idempotency_release(&s, "b").await.unwrap();
    assert_eq!(begin("b", "fp1", 1, -minute).await, started());

    // A claim older than `stale_before` was abandoned: the next request takes it over, and from
    // then on it is the new claim that is in flight.
    assert_eq!(begin("c", "fp1", 0, -minute).await, started());
    assert_eq!(begin("c", "fp1", 4 * minute, 0).await, started());
    assert_eq!(begin("c", "fp1", 4 * minute + 1, minute).await, InFlight);
    assert_eq!(begin("c", "fp9", 4 * minute + 2, minute).await, Mismatch);

    // Finishing or releasing an unknown key changes nothing.
    store
        .idempotency_finish(&s, "d", &response, t(minute))
        .await
        .unwrap();
    store.idempotency_release(&s, "d").await.unwrap();
    assert_eq!(begin("d", "fp1", 0, -minute).await, started());
}

/// `idempotency_begin` at fixture times `now` and `stale_before` (milliseconds past `t(0)`).
async fn begin_at(
    store: &dyn Store,
    s: &Scope,
    key: &str,
    fp: &str,
    now: i64,
    stale_before: i64,
) -> IdempotencyBegin {
    store
        .idempotency_begin(s, key, fp, t(now), t(stale_before))
        .await
        .unwrap()
}

/// `Started` with its origin blanked, for comparisons.
fn kind(b: IdempotencyBegin) -> IdempotencyBegin {
    match b {
        IdempotencyBegin::Started { .. } => started(),
        other => other,
    }
}

fn started() -> IdempotencyBegin {
    IdempotencyBegin::Started {
        origin: String::new(),
    }
}

/// The origin of a `Started`, or a panic.
fn origin(b: IdempotencyBegin) -> String {
    match b {
        IdempotencyBegin::Started { origin } if !origin.is_empty() => origin,
        other => panic!("expected Started with an origin, got {other:?}"),
    }
}

/// Origins: a retry of the same request that takes over an abandoned claim keeps the lineage's
/// origin (so it derives the same resource IDs); anything else gets a new one.
pub async fn idempotency_origin(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let s = new_scope(&*store, 0).await;
    let minute = 60_000;
    let begin = |key: &'static str, fp: &'static str, now: i64, stale_before: i64| {
        let (store, s) = (store.clone(), s.clone());
        async move { begin_at(&*store, &s, key, fp, now, stale_before).await }
    };
    let first = origin(begin("o", "fp1", 0, -minute).await);
    let retry = origin(begin("o", "fp1", 6 * minute, minute).await);
    assert_eq!(
        retry, first,
        "a retry after a dead claim continues the lineage"
    );
    let again = origin(begin("o", "fp1", 12 * minute, 7 * minute).await);
    assert_eq!(again, first, "and so does the next one");
    // Another request taking over the abandoned claim starts a lineage of its own.
    let other = origin(begin("o", "fp2", 18 * minute, 13 * minute).await);
    assert_ne!(other, first);
    // After a finished response expires, the key starts afresh even for the same request.
    let response = StoredResponse {
        status: 200,
        body: b"{}".to_vec(),
    };
    store
        .idempotency_finish(&s, "o", &response, t(20 * minute))
        .await
        .unwrap();
    let after = origin(begin("o", "fp2", 30 * minute, 29 * minute).await);
    assert_ne!(after, other);
    // Keys differ in origin, and a released key starts afresh.
    let p = origin(begin("p", "fp1", 0, -minute).await);
    assert_ne!(p, first);
    store.idempotency_release(&s, "p").await.unwrap();
    assert_ne!(origin(begin("p", "fp1", 1, -minute).await), p);
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
                    IdempotencyBegin::Started { .. } => started += 1,
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

/// Upkeep: `purge_expired` deletes finished idempotency records whose window ended, claims that
/// never finished, and expired links, in batches of at most `limit`, and nothing still usable.
pub async fn purge_expired(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    use IdempotencyBegin::*;
    let s = new_scope(&*store, 0).await;
    let e = envelope(&s);
    store.create_envelope(&e, &[], None).await.unwrap();
    let (mut old_token, mut new_token) = (signing_token(&e), signing_token(&e));
    (old_token.expires_at, new_token.expires_at) = (t(100), t(300));
    let (mut old_link, mut new_link) = (file_link(), file_link());
    (old_link.expires_at, new_link.expires_at) = (t(100), t(300));
    for tok in [&old_token, &new_token] {
        store.insert_signing_token(tok).await.unwrap();
    }
    for link in [&old_link, &new_link] {
        store.insert_file_link(link).await.unwrap();
    }
    let (mut old_builder, mut new_builder) = (builder_token(&e), builder_token(&e));
    (old_builder.expires_at, new_builder.expires_at) = (t(100), t(300));
    for b in [&old_builder, &new_builder] {
        store.insert_builder_token(b).await.unwrap();
    }
    let response = StoredResponse {
        status: 200,
        body: b"{}".to_vec(),
    };
    // "done-old" replays until t(100), "done-new" until t(300); "claim-old" started at t(50)
    // and "claim-new" at t(250), neither finished.
    for (key, now, until) in [("done-old", 10, 100), ("done-new", 10, 300)] {
        let begun = begin_at(&*store, &s, key, "fp", now, 0).await;
        assert_eq!(kind(begun), started());
        store
            .idempotency_finish(&s, key, &response, t(until))
            .await
            .unwrap();
    }
    for (key, now) in [("claim-old", 50), ("claim-new", 250)] {
        let begun = begin_at(&*store, &s, key, "fp", now, 0).await;
        assert_eq!(kind(begun), started());
    }

    let before = PurgeBefore {
        idempotency: t(200),
        links: t(200),
    };
    // A batch never exceeds its limit; each kind here has at least one row to go.
    let first = store.purge_expired(&before, 1).await.unwrap();
    assert_eq!(
        (
            first.idempotency_keys,
            first.signing_tokens,
            first.file_links,
            first.builder_tokens
        ),
        (1, 1, 1, 1),
        "{first:?}"
    );
    loop {
        let p = store.purge_expired(&before, 100).await.unwrap();
        if p.idempotency_keys < 100
            && p.signing_tokens < 100
            && p.file_links < 100
            && p.builder_tokens < 100
        {
            break;
        }
    }

    assert_eq!(
        store.signing_token(&old_token.token_hash).await.unwrap(),
        None
    );
    assert_eq!(store.file_link(&old_link.token_hash).await.unwrap(), None);
    assert_eq!(
        store.builder_token(&old_builder.token_hash).await.unwrap(),
        None
    );
    assert_eq!(
        store.builder_token(&new_builder.token_hash).await.unwrap(),
        Some(new_builder)
    );
    assert_eq!(
        store.signing_token(&new_token.token_hash).await.unwrap(),
        Some(new_token)
    );
    assert_eq!(
        store.file_link(&new_link.token_hash).await.unwrap(),
        Some(new_link)
    );
    // Asked as of a moment when each record was still usable: a purged one starts afresh.
    let at = |key: &'static str, now: i64| begin_at(&*store, &s, key, "fp", now, 0);
    assert_eq!(kind(at("done-old", 90).await), started(), "purged");
    assert_eq!(kind(at("claim-old", 60).await), started(), "purged");
    assert_eq!(at("done-new", 290).await, Replay(response.clone()), "kept");
    assert_eq!(at("claim-new", 260).await, InFlight, "kept");
}
