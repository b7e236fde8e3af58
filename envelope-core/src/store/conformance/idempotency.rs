//! Clauses: idempotency keys, alone and raced.

use super::*;

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
