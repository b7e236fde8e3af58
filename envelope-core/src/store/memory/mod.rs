//! In-memory [`Store`] and [`BlobStore`]: everything behind one mutex, nothing survives the
//! process. Meant for tests and embedding; it passes the same conformance suite as the durable
//! stores.

mod accounts;
mod bulk_sends;
mod envelopes;
mod events;
mod health;
mod idempotency;
mod links;
mod outbox;
mod retention;
mod templates;
mod webhooks;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use bytes::Bytes;

use super::*;
use crate::ids::{AccountId, WebhookEndpointId};
use crate::model::{BulkSendRecord, DeliveryStatus, StoredFile};

#[derive(Default)]
struct Inner {
    accounts: Vec<Account>,
    keys: Vec<ApiKey>,
    usage: HashMap<(String, String), u32>,
    /// Emails taken from the daily budgets, by account, mode and day.
    emails: HashMap<(String, Mode, String), u32>,
    templates: Ordered<TemplateRecord>,
    envelopes: Ordered<EnvelopeRecord>,
    events: Ordered<EventRecord>,
    endpoints: Ordered<WebhookEndpointRecord>,
    deliveries: Vec<WebhookDelivery>,
    attempts: Vec<DeliveryAttempt>,
    signing_tokens: HashMap<String, SigningToken>,
    file_links: HashMap<String, FileLink>,
    builder_tokens: HashMap<String, BuilderToken>,
    idempotency: HashMap<(Scope, String), Idem>,
    /// What the last readiness probe wrote: the probe's one fixed row.
    ready_checked_at: Option<Timestamp>,
    /// Blobs that records hold, by key.
    held: HashMap<String, Held>,
    /// Bytes of held blobs per account.
    stored: HashMap<String, u64>,
    /// Key checks by name (`HealthStore::key_check`).
    key_checks: HashMap<String, String>,
    bulk_sends: Ordered<BulkSendRecord>,
    /// The rows of bulk sends still processing, by bulk send ID.
    bulk_rows: HashMap<String, Vec<crate::model::BulkRow>>,
}

/// A blob some records hold.
struct Held {
    account: String,
    size: u64,
    holders: usize,
}

enum Idem {
    InFlight {
        fingerprint: String,
        started: Timestamp,
        origin: String,
    },
    Done {
        fingerprint: String,
        response: StoredResponse,
        expires_at: Timestamp,
    },
}

/// Records in insertion order with an index by ID.
struct Ordered<T> {
    order: Vec<String>,
    by_id: HashMap<String, T>,
}

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Ordered {
            order: Vec::new(),
            by_id: HashMap::new(),
        }
    }
}

trait Scoped {
    fn in_scope(&self, scope: &Scope) -> bool;
}

macro_rules! scoped {
    ($($t:ty),*) => {$(
        impl Scoped for $t {
            fn in_scope(&self, scope: &Scope) -> bool {
                self.account == scope.account && self.mode == scope.mode
            }
        }
    )*};
}
scoped!(
    TemplateRecord,
    EnvelopeRecord,
    EventRecord,
    WebhookEndpointRecord,
    BulkSendRecord
);

impl<T: Scoped + Clone> Ordered<T> {
    fn remove(&mut self, id: &str) -> Option<T> {
        let v = self.by_id.remove(id)?;
        self.order.retain(|x| x != id);
        Some(v)
    }

    fn insert(&mut self, id: &str, value: T) -> StoreResult<()> {
        if self.by_id.contains_key(id) {
            return Err(StoreError::Duplicate);
        }
        self.order.push(id.to_string());
        self.by_id.insert(id.to_string(), value);
        Ok(())
    }

    fn get(&self, scope: &Scope, id: &str) -> Option<T> {
        self.by_id.get(id).filter(|v| v.in_scope(scope)).cloned()
    }

    /// Newest first, after the cursor, keeping what `keep` accepts.
    fn list(&self, scope: &Scope, page: &PageRequest, keep: impl Fn(&T) -> bool) -> Listed<T> {
        let end = match &page.starting_after {
            None => self.order.len(),
            Some(cursor) => match self.by_id.get(cursor).filter(|v| v.in_scope(scope)) {
                None => return Listed::UnknownCursor,
                Some(_) => self.order.iter().position(|id| id == cursor).unwrap_or(0),
            },
        };
        let mut items = Vec::new();
        let mut has_more = false;
        for id in self.order[..end].iter().rev() {
            let v = &self.by_id[id];
            if !v.in_scope(scope) || !keep(v) {
                continue;
            }
            if items.len() == page.limit {
                has_more = true;
                break;
            }
            items.push(v.clone());
        }
        Listed::Page(items, has_more)
    }
}

/// The in-memory store.
#[derive(Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemoryStore")
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave a half-applied change: every method
        // checks first and writes after, so the data stays consistent.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The IDs of up to `limit` records last changed before `before`, oldest first.
fn oldest<'a>(
    changed: impl Iterator<Item = (Timestamp, &'a str)>,
    before: Timestamp,
    limit: usize,
) -> Vec<String> {
    let mut stale: Vec<(Timestamp, &str)> = changed.filter(|(t, _)| *t < before).collect();
    stale.sort();
    stale
        .into_iter()
        .take(limit)
        .map(|(_, id)| id.to_owned())
        .collect()
}

/// Files in `a` whose blobs are not in `b`.
fn missing_from<'a>(a: &[&'a StoredFile], b: &[&StoredFile]) -> Vec<&'a StoredFile> {
    a.iter()
        .filter(|f| !b.iter().any(|g| g.blob == f.blob))
        .copied()
        .collect()
}

impl Inner {
    /// How the account's stored bytes change when a record holding `old` comes to hold `new`.
    fn hold_delta(&self, old: &[&StoredFile], new: &[&StoredFile]) -> i128 {
        let gained: i128 = missing_from(new, old)
            .iter()
            .filter(|f| !self.held.contains_key(&f.blob))
            .map(|f| i128::from(f.stored_size()))
            .sum();
        let lost: i128 = missing_from(old, new)
            .iter()
            .filter_map(|f| self.held.get(&f.blob))
            .filter(|h| h.holders == 1)
            .map(|h| i128::from(h.size))
            .sum();
        gained - lost
    }

    /// A create's check: the account's stored bytes after it stay within its quota.
    fn check_quota(&self, account: &str, delta: i128) -> StoreResult<()> {
        let quota = self
            .accounts
            .iter()
            .find(|a| a.id == account)
            .and_then(|a| a.storage_quota);
        let used = i128::from(self.stored.get(account).copied().unwrap_or(0));
        match quota {
            Some(q) if used + delta > i128::from(q) => Err(StoreError::QuotaExceeded),
            _ => Ok(()),
        }
    }

    /// Moves a record of `account` from holding `old` to holding `new`; returns the blobs no
    /// record holds any more (their file links are deleted).
    fn apply_holds(
        &mut self,
        account: &str,
        old: &[&StoredFile],
        new: &[&StoredFile],
    ) -> Vec<String> {
        for f in missing_from(new, old) {
            let h = self.held.entry(f.blob.clone()).or_insert_with(|| Held {
                account: account.to_string(),
                size: f.stored_size(),
                holders: 0,
            });
            h.holders += 1;
            if h.holders == 1 {
                *self.stored.entry(account.to_string()).or_insert(0) += f.stored_size();
            }
        }
        let mut freed = Vec::new();
        for f in missing_from(old, new) {
            let Some(h) = self.held.get_mut(&f.blob) else {
                continue;
            };
            h.holders -= 1;
            if h.holders == 0 {
                let h = self.held.remove(&f.blob).expect("present");
                let bytes = self.stored.entry(h.account).or_insert(0);
                *bytes = bytes.saturating_sub(h.size);
                freed.push(f.blob.clone());
            }
        }
        if !freed.is_empty() {
            self.file_links.retain(|_, l| !freed.contains(&l.blob));
        }
        freed
    }

    fn check_debit(&self, debit: Option<&AllowanceDebit>) -> StoreResult<()> {
        if let Some(d) = debit {
            let used = self
                .usage
                .get(&(d.account.to_string(), d.period.clone()))
                .copied()
                .unwrap_or(0);
            if used >= d.allowance {
                return Err(StoreError::InsufficientBalance);
            }
        }
        Ok(())
    }

    fn apply_debit(&mut self, debit: Option<&AllowanceDebit>) {
        if let Some(d) = debit {
            *self
                .usage
                .entry((d.account.to_string(), d.period.clone()))
                .or_insert(0) += 1;
        }
    }

    fn append_events(&mut self, events: &[EventRecord]) -> StoreResult<()> {
        if events
            .iter()
            .any(|e| self.events.by_id.contains_key(e.id().as_str()))
        {
            return Err(StoreError::Duplicate);
        }
        for e in events {
            let scope = Scope {
                account: e.account.clone(),
                mode: e.mode,
            };
            let endpoints: Vec<WebhookEndpointId> = self
                .endpoints
                .order
                .iter()
                .filter_map(|id| self.endpoints.by_id.get(id))
                .filter(|ep| ep.in_scope(&scope) && ep.subscribes_to(e.event.kind.as_str()))
                .map(|ep| ep.id.clone())
                .collect();
            for endpoint in endpoints {
                self.deliveries.push(WebhookDelivery::pending(
                    &e.account,
                    e.mode,
                    &e.event.id,
                    &endpoint,
                    e.event.created_at,
                ));
            }
            self.events.insert(e.id(), e.clone())?;
        }
        Ok(())
    }
}

/// In-memory blobs.
#[derive(Default)]
pub struct MemoryBlobStore {
    blobs: Mutex<BTreeMap<String, (Bytes, Timestamp)>>,
}

impl std::fmt::Debug for MemoryBlobStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemoryBlobStore")
    }
}

impl MemoryBlobStore {
    /// An empty blob store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, (Bytes, Timestamp)>> {
        self.blobs.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait]
impl BlobStore for MemoryBlobStore {
    async fn put(&self, key: &str, bytes: Bytes, stored_at: Timestamp) -> StoreResult<()> {
        self.lock().insert(key.to_string(), (bytes, stored_at));
        Ok(())
    }

    async fn get(&self, key: &str) -> StoreResult<Option<Bytes>> {
        Ok(self.lock().get(key).map(|(b, _)| b.clone()))
    }

    async fn list(&self, after: Option<&str>, limit: usize) -> StoreResult<Vec<BlobInfo>> {
        use std::ops::Bound::{Excluded, Unbounded};
        let g = self.lock();
        let start = after.map_or(Unbounded, |a| Excluded(a.to_string()));
        Ok(g.range((start, Unbounded))
            .take(limit)
            .map(|(k, (_, at))| BlobInfo {
                key: k.clone(),
                stored_at: Some(*at),
            })
            .collect())
    }

    async fn delete(&self, key: &str) -> StoreResult<bool> {
        Ok(self.lock().remove(key).is_some())
    }
}
