//! Clause: readiness.

use super::*;
use crate::clock::Timestamp;

/// A healthy store is ready, probe after probe, and has not failed for good.
pub async fn readiness(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    for s in 0..3 {
        let now = Timestamp::from_millis(1_700_000_000_000 + s * 1000).expect("a valid timestamp");
        if let Err(e) = store.check_ready(now).await {
            panic!("a healthy store is not ready ({:?}): {e}", e.cause);
        }
    }
    // Polled once, the wait for a permanent failure must still be pending.
    let mut failed = store.failed_for_good();
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    assert!(
        failed.as_mut().poll(&mut cx).is_pending(),
        "a healthy store reports a permanent failure"
    );
}

/// [`HealthStore::key_check`](crate::store::HealthStore::key_check): the first value stored
/// under a name is kept and returned to every later caller, and of racing first callers exactly
/// one value wins for all; names are apart.
pub async fn key_check(store: Arc<dyn Store>, _: Arc<dyn BlobStore>) {
    let name = format!("check_{}", crate::ids::random_base62(12));
    let other = format!("check_{}", crate::ids::random_base62(12));
    assert_eq!(store.key_check(&name, "first").await.unwrap(), "first");
    assert_eq!(store.key_check(&name, "second").await.unwrap(), "first");
    assert_eq!(store.key_check(&other, "second").await.unwrap(), "second");
    assert_eq!(store.key_check(&name, "third").await.unwrap(), "first");

    let raced = format!("check_{}", crate::ids::random_base62(12));
    let tasks: Vec<_> = (0..RACERS)
        .map(|i| {
            let store = store.clone();
            let raced = raced.clone();
            tokio::spawn(async move { store.key_check(&raced, &format!("v{i}")).await.unwrap() })
        })
        .collect();
    let mut seen = BTreeSet::new();
    for t in tasks {
        seen.insert(t.await.unwrap());
    }
    assert_eq!(seen.len(), 1, "racers saw {seen:?}");
    let winner = seen.into_iter().next().unwrap();
    assert_eq!(store.key_check(&raced, "late").await.unwrap(), winner);
}
