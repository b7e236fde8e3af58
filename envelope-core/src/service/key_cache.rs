//! Authenticated API keys, remembered for a short while so that most requests skip the store's
//! key lookup (about half of a `GET /v1/envelopes/{id}`'s storage time on SQLite).
//!
//! The promise (docs/API.md, "Revoking keys"): a key revoked **through this service** stops
//! working at once; a key revoked by another process (the admin command, another server on the
//! same database) stops working within [`Settings::key_cache_ttl`](super::Settings) (1 s by
//! default) in this one. Account changes (allowance, storage quota) follow the same rule: the
//! store re-checks what must be exact (the quota, the allowance) inside its writes anyway.
//!
//! How the bound holds: an entry's age counts from the moment *before* its store read began, so
//! an entry is never trusted past `ttl` after the read that produced it could have started. A
//! revocation committed at `t` is seen by every read that starts after `t`; an entry read before
//! `t` is dropped by `t + ttl` at the latest.
//!
//! Within the process, [`KeyCache::forget_key`] and [`KeyCache::forget_account`] drop entries at
//! once, and bump an epoch: a lookup that began before the change (and may have read the old
//! state) is not allowed to put its answer back afterwards.
//!
//! Time here is a monotonic [`Instant`], not the service's `Clock`: this bounds how long a
//! process may trust a copy, which is about real time passing, not business time (the same
//! exception as the PDF reader's deadline, docs/ARCHITECTURE.md invariant 6). Only keys that
//! authenticated are kept: unknown and revoked keys always go to the store (a key created by
//! another process works at once). The map holds at most [`MAX_ENTRIES`] keys.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::model::{Account, ApiKey};

/// Keys remembered at most; past it, expired entries go, and if none had expired, all of them
/// (a cache this size refills in a second of traffic; a bound matters more than a policy).
pub(crate) const MAX_ENTRIES: usize = 10_000;

struct Entry {
    /// When the store read behind this entry began.
    read_at: Instant,
    key: ApiKey,
    account: Account,
}

/// The cache. A `ttl` of zero turns it off.
pub(crate) struct KeyCache {
    ttl: Duration,
    /// Bumped by every in-process change that could make an entry wrong.
    epoch: AtomicU64,
    entries: Mutex<HashMap<String, Entry>>,
}

/// Taken before the store read; hands the answer back to [`KeyCache::put`].
pub(crate) struct Lookup {
    read_at: Instant,
    epoch: u64,
}

impl KeyCache {
    pub(crate) fn new(ttl: Duration) -> Self {
        KeyCache {
            ttl,
            epoch: AtomicU64::new(0),
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The key with this hash and its account, if they authenticated less than `ttl` ago.
    pub(crate) fn get(&self, hash: &str) -> Option<(ApiKey, Account)> {
        if self.ttl.is_zero() {
            return None;
        }
        let entries = self.lock();
        let e = entries.get(hash)?;
        (e.read_at.elapsed() < self.ttl).then(|| (e.key.clone(), e.account.clone()))
    }

    /// Marks the start of a store read whose answer may be cached.
    pub(crate) fn begin(&self) -> Lookup {
        Lookup {
            read_at: Instant::now(),
            epoch: self.epoch.load(Ordering::Acquire),
        }
    }

    /// Remembers a key that authenticated, unless the cache changed since `lookup` began.
    pub(crate) fn put(&self, lookup: Lookup, key: &ApiKey, account: &Account) {
        if self.ttl.is_zero() {
            return;
        }
        let mut entries = self.lock();
        // Checked under the lock: `forget_*` bump the epoch under it too, so a forget either
        // happened before this check (and the answer is dropped) or comes after the insert
        // (and removes it).
        if self.epoch.load(Ordering::Acquire) != lookup.epoch {
            return;
        }
        if entries.len() >= MAX_ENTRIES && !entries.contains_key(&key.hash) {
            let ttl = self.ttl;
            entries.retain(|_, e| e.read_at.elapsed() < ttl);
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
        }
        entries.insert(
            key.hash.clone(),
            Entry {
                read_at: lookup.read_at,
                key: key.clone(),
                account: account.clone(),
            },
        );
    }

    /// Drops the key with this ID (revoked in this process).
    pub(crate) fn forget_key(&self, key_id: &crate::ids::ApiKeyId) {
        let mut entries = self.lock();
        self.epoch.fetch_add(1, Ordering::AcqRel);
        entries.retain(|_, e| e.key.id != key_id);
    }

    /// Drops every key of the account (its settings changed in this process).
    pub(crate) fn forget_account(&self, account: &crate::ids::AccountId) {
        let mut entries = self.lock();
        self.epoch.fetch_add(1, Ordering::AcqRel);
        entries.retain(|_, e| e.account.id != account);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // A panic while holding the lock leaves a map that is still a valid cache.
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Timestamp;
    use crate::model::Mode;

    fn key(id: &str, account: &str) -> (ApiKey, Account) {
        let at = Timestamp::from_millis(0).unwrap();
        (
            ApiKey {
                id: crate::ids::ApiKeyId::trusted(id),
                account: crate::ids::AccountId::trusted(account),
                mode: Mode::Test,
                prefix: "sk_test_AbCd".into(),
                hash: format!("hash-{id}"),
                created_at: at,
                revoked_at: None,
            },
            Account {
                id: crate::ids::AccountId::trusted(account),
                name: "Acme".into(),
                monthly_allowance: 10,
                created_at: at,
                storage_quota: None,
                test_email_daily_limit: None,
                live_email_daily_limit: None,
            },
        )
    }

    #[test]
    fn a_key_is_served_until_its_ttl_ends() {
        let cache = KeyCache::new(Duration::from_millis(50));
        let (k, a) = key("key_1", "acct_1");
        assert!(cache.get(&k.hash).is_none());
        cache.put(cache.begin(), &k, &a);
        assert_eq!(
            cache.get(&k.hash).map(|(k, _)| k.id),
            Some(crate::ids::ApiKeyId::trusted("key_1"))
        );
        std::thread::sleep(Duration::from_millis(60));
        assert!(cache.get(&k.hash).is_none(), "an entry outlived its ttl");
    }

    #[test]
    fn the_age_counts_from_before_the_read() {
        let cache = KeyCache::new(Duration::from_millis(50));
        let (k, a) = key("key_1", "acct_1");
        let lookup = cache.begin();
        // A slow store read: by the time the answer arrives, it is already too old to trust.
        std::thread::sleep(Duration::from_millis(60));
        cache.put(lookup, &k, &a);
        assert!(cache.get(&k.hash).is_none());
    }

    #[test]
    fn forgetting_a_key_or_its_account_takes_effect_at_once() {
        let cache = KeyCache::new(Duration::from_secs(60));
        let (k1, a1) = key("key_1", "acct_1");
        let (k2, a2) = key("key_2", "acct_2");
        cache.put(cache.begin(), &k1, &a1);
        cache.put(cache.begin(), &k2, &a2);
        cache.forget_key(&crate::ids::ApiKeyId::trusted("key_1"));
        assert!(cache.get(&k1.hash).is_none());
        assert!(cache.get(&k2.hash).is_some());
        cache.forget_account(&crate::ids::AccountId::trusted("acct_2"));
        assert!(cache.get(&k2.hash).is_none());
    }

    #[test]
    fn a_read_that_began_before_a_revocation_is_not_cached() {
        let cache = KeyCache::new(Duration::from_secs(60));
        let (k, a) = key("key_1", "acct_1");
        // The read saw the key unrevoked; the revocation lands before its answer is put.
        let lookup = cache.begin();
        cache.forget_key(&crate::ids::ApiKeyId::trusted("key_1"));
        cache.put(lookup, &k, &a);
        assert!(cache.get(&k.hash).is_none(), "a stale answer was put back");
    }

    #[test]
    fn a_zero_ttl_turns_the_cache_off() {
        let cache = KeyCache::new(Duration::ZERO);
        let (k, a) = key("key_1", "acct_1");
        cache.put(cache.begin(), &k, &a);
        assert!(cache.get(&k.hash).is_none());
    }

    #[test]
    fn the_map_stays_bounded() {
        let cache = KeyCache::new(Duration::from_secs(60));
        for i in 0..MAX_ENTRIES + 5 {
            let (k, a) = key(&format!("key_{i}"), "acct_1");
            cache.put(cache.begin(), &k, &a);
        }
        assert!(cache.lock().len() <= MAX_ENTRIES);
        let (last, _) = key(&format!("key_{}", MAX_ENTRIES + 4), "acct_1");
        assert!(
            cache.get(&last.hash).is_some(),
            "the newest key was dropped"
        );
    }
}
