//! The cache of authenticated keys across processes: two services on one store stand for two
//! processes on one database. A key revoked through one is refused by the other once the
//! other's `key_cache_ttl` has passed, and by the revoking one at once (docs/API.md,
//! "Revoking keys").

use std::sync::Arc;
use std::time::Duration;

use envelope_core::{MemoryStore, Settings, SigningService};

fn process(store: &Arc<MemoryStore>, ttl: Duration) -> SigningService {
    SigningService::builder()
        .store(store.clone())
        .settings(Settings {
            key_cache_ttl: ttl,
            ..Settings::default()
        })
        .build()
}

#[tokio::test]
async fn another_process_refuses_a_revoked_key_once_its_ttl_has_passed() {
    let store = Arc::new(MemoryStore::new());
    let ttl = Duration::from_millis(300);
    let (a, b) = (process(&store, ttl), process(&store, ttl));
    let acct = a.admin().create_account("Acme").await.unwrap();
    let secret = &acct.test_key.secret;
    a.authenticate(secret).await.unwrap();
    b.authenticate(secret).await.unwrap();

    b.admin()
        .revoke_key(&acct.account.id, &acct.test_key.key.id)
        .await
        .unwrap();
    // The revoking process: at once.
    assert_eq!(
        b.authenticate(secret).await.unwrap_err().code(),
        "invalid_api_key"
    );
    // The other: within its ttl.
    tokio::time::sleep(ttl + Duration::from_millis(20)).await;
    assert_eq!(
        a.authenticate(secret).await.unwrap_err().code(),
        "invalid_api_key"
    );
}

#[tokio::test]
async fn within_the_ttl_a_known_key_is_served_without_the_store() {
    // A long ttl makes the cache observable without timing: the other process keeps serving
    // the key it authenticated, which shows the store is not read per request.
    let store = Arc::new(MemoryStore::new());
    let ttl = Duration::from_secs(3600);
    let (a, b) = (process(&store, ttl), process(&store, ttl));
    let acct = a.admin().create_account("Acme").await.unwrap();
    let secret = &acct.test_key.secret;
    a.authenticate(secret).await.unwrap();
    b.admin()
        .revoke_key(&acct.account.id, &acct.test_key.key.id)
        .await
        .unwrap();
    assert!(a.authenticate(secret).await.is_ok());

    // With the cache off, every request reads the store.
    let c = process(&store, Duration::ZERO);
    let live = &acct.live_key.secret;
    c.authenticate(live).await.unwrap();
    b.admin()
        .revoke_key(&acct.account.id, &acct.live_key.key.id)
        .await
        .unwrap();
    assert!(c.authenticate(live).await.is_err());
}

#[tokio::test]
async fn account_changes_in_process_are_seen_at_once() {
    let store = Arc::new(MemoryStore::new());
    let svc = process(&store, Duration::from_secs(3600));
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let secret = &acct.test_key.secret;
    assert_eq!(
        svc.authenticate(secret)
            .await
            .unwrap()
            .account
            .storage_quota,
        None
    );
    svc.admin()
        .set_storage_quota(&acct.account.id, Some(1234))
        .await
        .unwrap();
    assert_eq!(
        svc.authenticate(secret)
            .await
            .unwrap()
            .account
            .storage_quota,
        Some(1234)
    );
}
