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
