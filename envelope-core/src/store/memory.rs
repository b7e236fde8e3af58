//! In-memory [`Store`] and [`BlobStore`]: everything behind one mutex, nothing survives the
//! process. Meant for tests and embedding; it passes the same conformance suite as the durable
//! stores.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use bytes::Bytes;

use super::*;
use crate::ids;
use crate::model::{DeliveryStatus, StoredFile};

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
    idempotency: HashMap<(Scope, String), Idem>,
    /// What the last readiness probe wrote: the probe's one fixed row.
    ready_checked_at: Option<Timestamp>,
    /// Blobs that records hold, by key.
    held: HashMap<String, Held>,
    /// Bytes of held blobs per account.
    stored: HashMap<String, u64>,
    /// Key checks by name (`Store::key_check`).
    key_checks: HashMap<String, String>,
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
    WebhookEndpointRecord
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
                .get(&(d.account.clone(), d.period.clone()))
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
                .entry((d.account.clone(), d.period.clone()))
                .or_insert(0) += 1;
        }
    }

    fn append_events(&mut self, events: &[EventRecord]) -> StoreResult<()> {
        if events
            .iter()
            .any(|e| self.events.by_id.contains_key(e.id()))
        {
            return Err(StoreError::Duplicate);
        }
        for e in events {
            let scope = Scope {
                account: e.account.clone(),
                mode: e.mode,
            };
            let endpoints: Vec<String> = self
                .endpoints
                .order
                .iter()
                .filter_map(|id| self.endpoints.by_id.get(id))
                .filter(|ep| ep.in_scope(&scope) && ep.subscribes_to(e.event.kind.as_str()))
                .map(|ep| ep.id.to_string())
                .collect();
            for endpoint in endpoints {
                self.deliveries.push(WebhookDelivery {
                    id: ids::new_id(ids::DELIVERY),
                    account: e.account.clone(),
                    mode: e.mode,
                    event: e.event.id.to_string(),
                    endpoint,
                    status: DeliveryStatus::Pending,
                    attempts: 0,
                    next_attempt_at: Some(e.event.created_at),
                    created_at: e.event.created_at,
                    last_attempt_at: None,
                });
            }
            self.events.insert(e.id(), e.clone())?;
        }
        Ok(())
    }
}

#[async_trait]
impl Store for MemoryStore {
    async fn insert_account(&self, account: &Account, keys: &[ApiKey]) -> StoreResult<()> {
        let mut g = self.lock();
        if g.accounts.iter().any(|a| a.id == account.id)
            || keys
                .iter()
                .any(|k| g.keys.iter().any(|o| o.id == k.id || o.hash == k.hash))
        {
            return Err(StoreError::Duplicate);
        }
        g.accounts.push(account.clone());
        g.keys.extend(keys.iter().cloned());
        Ok(())
    }

    async fn get_account(&self, id: &str) -> StoreResult<Option<Account>> {
        Ok(self.lock().accounts.iter().find(|a| a.id == id).cloned())
    }

    async fn list_accounts(&self) -> StoreResult<Vec<Account>> {
        Ok(self.lock().accounts.clone())
    }

    async fn set_allowance(&self, account: &str, allowance: u32) -> StoreResult<bool> {
        let mut g = self.lock();
        Ok(match g.accounts.iter_mut().find(|a| a.id == account) {
            Some(a) => {
                a.monthly_allowance = allowance;
                true
            }
            None => false,
        })
    }

    async fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()> {
        let mut g = self.lock();
        if g.keys.iter().any(|o| o.id == key.id || o.hash == key.hash) {
            return Err(StoreError::Duplicate);
        }
        g.keys.push(key.clone());
        Ok(())
    }

    async fn api_key_by_hash(&self, hash: &str) -> StoreResult<Option<ApiKey>> {
        Ok(self.lock().keys.iter().find(|k| k.hash == hash).cloned())
    }

    async fn list_api_keys(&self, account: &str) -> StoreResult<Vec<ApiKey>> {
        Ok(self
            .lock()
            .keys
            .iter()
            .filter(|k| k.account == account)
            .cloned()
            .collect())
    }

    async fn revoke_api_key(
        &self,
        account: &str,
        key_id: &str,
        at: Timestamp,
    ) -> StoreResult<bool> {
        let mut g = self.lock();
        match g
            .keys
            .iter_mut()
            .find(|k| k.account == account && k.id == key_id && k.revoked_at.is_none())
        {
            Some(k) => {
                k.revoked_at = Some(at);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    async fn set_storage_quota(&self, account: &str, quota: Option<u64>) -> StoreResult<bool> {
        let mut g = self.lock();
        Ok(match g.accounts.iter_mut().find(|a| a.id == account) {
            Some(a) => {
                a.storage_quota = quota;
                true
            }
            None => false,
        })
    }

    async fn storage_used(&self, account: &str) -> StoreResult<u64> {
        Ok(self.lock().stored.get(account).copied().unwrap_or(0))
    }

    async fn set_email_daily_limit(
        &self,
        account: &str,
        mode: Mode,
        limit: Option<u32>,
    ) -> StoreResult<bool> {
        let mut g = self.lock();
        Ok(match g.accounts.iter_mut().find(|a| a.id == account) {
            Some(a) => {
                match mode {
                    Mode::Test => a.test_email_daily_limit = limit,
                    Mode::Live => a.live_email_daily_limit = limit,
                }
                true
            }
            None => false,
        })
    }

    async fn take_email(
        &self,
        account: &str,
        mode: Mode,
        day: &str,
        default_limit: Option<u32>,
    ) -> StoreResult<bool> {
        let mut g = self.lock();
        let own = g
            .accounts
            .iter()
            .find(|a| a.id == account)
            .and_then(|a| a.email_daily_limit(mode));
        let limit = own.or(default_limit);
        let used = g
            .emails
            .entry((account.to_string(), mode, day.to_string()))
            .or_insert(0);
        if limit.is_some_and(|l| *used >= l) {
            return Ok(false);
        }
        *used = used.saturating_add(1);
        Ok(true)
    }

    async fn usage(&self, account: &str, period: &str) -> StoreResult<u32> {
        Ok(self
            .lock()
            .usage
            .get(&(account.to_string(), period.to_string()))
            .copied()
            .unwrap_or(0))
    }

    async fn insert_template(&self, template: &TemplateRecord) -> StoreResult<()> {
        let mut g = self.lock();
        if g.templates.by_id.contains_key(template.id.as_str()) {
            return Err(StoreError::Duplicate);
        }
        let new = template.held_files();
        g.check_quota(&template.account, g.hold_delta(&[], &new))?;
        g.apply_holds(&template.account, &[], &new);
        g.templates.insert(&template.id, template.clone())
    }

    async fn get_template(&self, scope: &Scope, id: &str) -> StoreResult<Option<TemplateRecord>> {
        Ok(self.lock().templates.get(scope, id))
    }

    async fn update_template(&self, template: &TemplateRecord) -> StoreResult<()> {
        let mut g = self.lock();
        let old = match g.templates.by_id.get(template.id.as_str()) {
            Some(t)
                if t.version + 1 == template.version
                    && (&t.account, t.mode) == (&template.account, template.mode) =>
            {
                t.clone()
            }
            _ => return Err(StoreError::Conflict),
        };
        g.apply_holds(&template.account, &old.held_files(), &template.held_files());
        g.templates
            .by_id
            .insert(template.id.to_string(), template.clone());
        Ok(())
    }

    async fn list_templates(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<TemplateRecord>> {
        Ok(self.lock().templates.list(scope, page, |t| !t.archived))
    }

    async fn create_envelope(
        &self,
        envelope: &EnvelopeRecord,
        events: &[EventRecord],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()> {
        let mut g = self.lock();
        if g.envelopes.by_id.contains_key(envelope.id.as_str()) {
            return Err(StoreError::Duplicate);
        }
        if let Some(t) = &envelope.template
            && g.templates.get(&envelope.scope(), t).is_none()
        {
            return Err(StoreError::Conflict);
        }
        let new = envelope.held_files();
        g.check_quota(&envelope.account, g.hold_delta(&[], &new))?;
        g.check_debit(debit)?;
        g.append_events(events)?;
        g.apply_debit(debit);
        g.apply_holds(&envelope.account, &[], &new);
        g.envelopes.insert(&envelope.id, envelope.clone())
    }

    async fn update_envelope(
        &self,
        envelope: &EnvelopeRecord,
        events: &[EventRecord],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()> {
        let mut g = self.lock();
        let old = match g.envelopes.by_id.get(envelope.id.as_str()) {
            Some(e) if e.version + 1 == envelope.version && e.in_scope(&envelope.scope()) => {
                e.clone()
            }
            _ => return Err(StoreError::Conflict),
        };
        g.check_debit(debit)?;
        g.append_events(events)?;
        g.apply_debit(debit);
        g.apply_holds(&envelope.account, &old.held_files(), &envelope.held_files());
        g.envelopes
            .by_id
            .insert(envelope.id.to_string(), envelope.clone());
        Ok(())
    }

    async fn erase_envelope(&self, envelope: &EnvelopeRecord) -> StoreResult<()> {
        let mut g = self.lock();
        let old = match g.envelopes.by_id.get(envelope.id.as_str()) {
            Some(e) if e.version + 1 == envelope.version && e.in_scope(&envelope.scope()) => {
                e.clone()
            }
            _ => return Err(StoreError::Conflict),
        };
        g.apply_holds(&envelope.account, &old.held_files(), &envelope.held_files());
        g.envelopes
            .by_id
            .insert(envelope.id.to_string(), envelope.clone());
        for e in g.events.by_id.values_mut() {
            if e.event.data.object.id == envelope.id && e.in_scope(&envelope.scope()) {
                e.erase_personal_data();
            }
        }
        Ok(())
    }

    async fn get_envelope(&self, scope: &Scope, id: &str) -> StoreResult<Option<EnvelopeRecord>> {
        Ok(self.lock().envelopes.get(scope, id))
    }

    async fn list_envelopes(
        &self,
        scope: &Scope,
        filter: &EnvelopeFilter,
        page: &PageRequest,
    ) -> StoreResult<Listed<EnvelopeRecord>> {
        Ok(self.lock().envelopes.list(scope, page, |e| {
            filter
                .template
                .as_ref()
                .is_none_or(|t| e.template.as_deref() == Some(t.as_str()))
        }))
    }

    async fn expired_envelopes(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        use crate::model::EnvelopeStatus::{Draft, Sent};
        let g = self.lock();
        Ok(g.envelopes
            .order
            .iter()
            .map(|id| &g.envelopes.by_id[id])
            .filter(|e| matches!(e.status, Draft | Sent) && e.expires_at.is_some_and(|t| t <= now))
            .take(limit)
            .cloned()
            .collect())
    }

    async fn queue_depths(&self) -> StoreResult<QueueDepths> {
        let g = self.lock();
        Ok(QueueDepths {
            webhook_deliveries: g
                .deliveries
                .iter()
                .filter(|d| d.status == DeliveryStatus::Pending)
                .count() as u64,
            envelopes_with_emails: g
                .envelopes
                .by_id
                .values()
                .filter(|e| e.next_email_at().is_some())
                .count() as u64,
        })
    }

    async fn due_emails(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<EnvelopeRecord>> {
        let g = self.lock();
        let mut due: Vec<(Timestamp, &EnvelopeRecord)> = g
            .envelopes
            .order
            .iter()
            .map(|id| &g.envelopes.by_id[id])
            .filter_map(|e| e.next_email_at().filter(|t| *t <= now).map(|t| (t, e)))
            .collect();
        // Insertion order breaks ties (the stable sort keeps it), as `seq` does in SQL.
        due.sort_by_key(|(t, _)| *t);
        // In turns by account: each record's turn is its rank among its account's due records.
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut turns: Vec<(usize, Timestamp, &EnvelopeRecord)> = due
            .into_iter()
            .map(|(t, e)| {
                let turn = seen.entry(e.account.as_str()).or_insert(0);
                *turn += 1;
                (*turn, t, e)
            })
            .collect();
        turns.sort_by_key(|(turn, t, _)| (*turn, *t));
        Ok(turns
            .into_iter()
            .take(limit)
            .map(|(_, _, e)| e.clone())
            .collect())
    }

    async fn get_event(&self, scope: &Scope, id: &str) -> StoreResult<Option<EventRecord>> {
        Ok(self.lock().events.get(scope, id))
    }

    async fn list_events(
        &self,
        scope: &Scope,
        kind: Option<EventType>,
        page: &PageRequest,
    ) -> StoreResult<Listed<EventRecord>> {
        Ok(self
            .lock()
            .events
            .list(scope, page, |e| kind.is_none_or(|k| e.event.kind == k)))
    }

    async fn deliveries_for_event(
        &self,
        scope: &Scope,
        event: &str,
    ) -> StoreResult<Vec<WebhookDelivery>> {
        Ok(self
            .lock()
            .deliveries
            .iter()
            .filter(|d| d.event == event && d.account == scope.account && d.mode == scope.mode)
            .cloned()
            .collect())
    }

    async fn event_deliveries_page(
        &self,
        scope: &Scope,
        event: &str,
        page: &PageRequest,
    ) -> StoreResult<Listed<(WebhookDelivery, Vec<DeliveryAttempt>)>> {
        let g = self.lock();
        let mut ours = g
            .deliveries
            .iter()
            .filter(|d| d.event == event && d.account == scope.account && d.mode == scope.mode);
        if let Some(cursor) = &page.starting_after
            && !ours.any(|d| &d.id == cursor)
        {
            return Ok(Listed::UnknownCursor);
        }
        // `ours` now stands after the cursor (or at the start).
        let mut items = Vec::new();
        let mut has_more = false;
        for d in ours {
            if items.len() == page.limit {
                has_more = true;
                break;
            }
            let attempts = g
                .attempts
                .iter()
                .filter(|a| a.delivery == d.id)
                .cloned()
                .collect();
            items.push((d.clone(), attempts));
        }
        Ok(Listed::Page(items, has_more))
    }

    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limits: &super::ClaimLimits<'_>,
    ) -> StoreResult<Vec<DueDelivery>> {
        let mut g = self.lock();
        let mut due: Vec<usize> = (0..g.deliveries.len())
            .filter(|&i| {
                let d = &g.deliveries[i];
                d.status == DeliveryStatus::Pending
                    && d.next_attempt_at.is_some_and(|t| t <= now)
                    && !limits.busy_endpoints.contains(&d.endpoint)
                    && g.endpoints
                        .by_id
                        .get(&d.endpoint)
                        .is_some_and(|e| e.status == crate::model::EndpointStatus::Enabled)
            })
            .collect();
        due.sort_by_key(|&i| (g.deliveries[i].next_attempt_at, i));
        let mut per: HashMap<String, usize> = HashMap::new();
        let mut per_account: HashMap<String, usize> = HashMap::new();
        let mut out = Vec::new();
        for i in due {
            if out.len() == limits.limit {
                break;
            }
            let account = &g.deliveries[i].account;
            let a = per_account.entry(account.clone()).or_insert(0);
            if *a >= limits.account_room(account) {
                continue;
            }
            let n = per.entry(g.deliveries[i].endpoint.clone()).or_insert(0);
            if *n >= limits.per_endpoint {
                continue;
            }
            *n += 1;
            *a += 1;
            g.deliveries[i].next_attempt_at = Some(lease_until);
            let d = g.deliveries[i].clone();
            let ep = &g.endpoints.by_id[&d.endpoint];
            let mut secrets = vec![ep.secret.clone()];
            if let (Some(old), Some(until)) = (&ep.previous_secret, ep.previous_secret_expires_at)
                && until > now
            {
                secrets.push(old.clone());
            }
            let url = ep.url.clone();
            let Some(event) = g.events.by_id.get(&d.event).map(|e| e.event.clone()) else {
                continue;
            };
            out.push(DueDelivery {
                delivery: d,
                url,
                secrets,
                event,
            });
        }
        Ok(out)
    }

    async fn record_attempts(&self, batch: &[(DeliveryAttempt, DeliveryNext)]) -> StoreResult<()> {
        let mut g = self.lock();
        for (attempt, next) in batch {
            let next = *next;
            // Deleted with its envelope (retention) while the attempt ran: nothing to record.
            let Some(d) = g.deliveries.iter_mut().find(|d| d.id == attempt.delivery) else {
                continue;
            };
            d.attempts = d.attempts.max(attempt.number);
            d.last_attempt_at = Some(attempt.at);
            match next {
                DeliveryNext::Delivered => {
                    d.status = DeliveryStatus::Delivered;
                    d.next_attempt_at = None;
                }
                DeliveryNext::Retry(at) => {
                    d.status = DeliveryStatus::Pending;
                    d.next_attempt_at = Some(at);
                }
                DeliveryNext::Failed => {
                    d.status = DeliveryStatus::Failed;
                    d.next_attempt_at = None;
                }
            }
            g.attempts.push(attempt.clone());
        }
        Ok(())
    }

    async fn delivery_attempts(
        &self,
        scope: &Scope,
        event: &str,
    ) -> StoreResult<Vec<DeliveryAttempt>> {
        let g = self.lock();
        if g.events.get(scope, event).is_none() {
            return Ok(Vec::new());
        }
        Ok(g.attempts
            .iter()
            .filter(|a| a.event == event)
            .cloned()
            .collect())
    }

    async fn insert_deliveries(&self, deliveries: &[WebhookDelivery]) -> StoreResult<()> {
        let mut g = self.lock();
        if deliveries
            .iter()
            .any(|d| g.deliveries.iter().any(|o| o.id == d.id))
        {
            return Err(StoreError::Duplicate);
        }
        g.deliveries.extend(deliveries.iter().cloned());
        Ok(())
    }

    async fn insert_webhook_endpoint(&self, endpoint: &WebhookEndpointRecord) -> StoreResult<()> {
        self.lock().endpoints.insert(&endpoint.id, endpoint.clone())
    }

    async fn get_webhook_endpoint(
        &self,
        scope: &Scope,
        id: &str,
    ) -> StoreResult<Option<WebhookEndpointRecord>> {
        Ok(self.lock().endpoints.get(scope, id))
    }

    async fn find_event(&self, id: &str) -> StoreResult<Option<EventRecord>> {
        Ok(self.lock().events.by_id.get(id).cloned())
    }

    async fn find_webhook_endpoint(&self, id: &str) -> StoreResult<Option<WebhookEndpointRecord>> {
        Ok(self.lock().endpoints.by_id.get(id).cloned())
    }

    async fn update_webhook_endpoint(&self, endpoint: &WebhookEndpointRecord) -> StoreResult<()> {
        let mut g = self.lock();
        match g.endpoints.by_id.get_mut(endpoint.id.as_str()) {
            Some(e) => {
                *e = endpoint.clone();
                Ok(())
            }
            None => Err(StoreError::Conflict),
        }
    }

    async fn delete_webhook_endpoint(&self, scope: &Scope, id: &str) -> StoreResult<bool> {
        let mut g = self.lock();
        if g.endpoints.get(scope, id).is_none() {
            return Ok(false);
        }
        g.endpoints.by_id.remove(id);
        g.endpoints.order.retain(|x| x != id);
        Ok(true)
    }

    async fn list_webhook_endpoints(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<WebhookEndpointRecord>> {
        Ok(self.lock().endpoints.list(scope, page, |_| true))
    }

    async fn insert_signing_token(&self, token: &SigningToken) -> StoreResult<()> {
        let mut g = self.lock();
        if g.signing_tokens.contains_key(&token.token_hash) {
            return Err(StoreError::Duplicate);
        }
        g.signing_tokens
            .insert(token.token_hash.clone(), token.clone());
        Ok(())
    }

    async fn signing_token(&self, token_hash: &str) -> StoreResult<Option<SigningToken>> {
        Ok(self.lock().signing_tokens.get(token_hash).cloned())
    }

    async fn insert_file_link(&self, link: &FileLink) -> StoreResult<()> {
        let mut g = self.lock();
        if g.file_links.contains_key(&link.token_hash) {
            return Err(StoreError::Duplicate);
        }
        g.file_links.insert(link.token_hash.clone(), link.clone());
        Ok(())
    }

    async fn file_link(&self, token_hash: &str) -> StoreResult<Option<FileLink>> {
        Ok(self.lock().file_links.get(token_hash).cloned())
    }

    async fn idempotency_begin(
        &self,
        scope: &Scope,
        key: &str,
        fingerprint: &str,
        now: Timestamp,
        stale_before: Timestamp,
    ) -> StoreResult<IdempotencyBegin> {
        let mut g = self.lock();
        let k = (scope.clone(), key.to_string());
        let decision = match g.idempotency.get(&k) {
            Some(Idem::Done {
                fingerprint: f,
                response,
                expires_at,
            }) if *expires_at > now => {
                return Ok(if f == fingerprint {
                    IdempotencyBegin::Replay(response.clone())
                } else {
                    IdempotencyBegin::Mismatch
                });
            }
            Some(Idem::InFlight {
                fingerprint: f,
                started,
                ..
            }) if *started > stale_before => {
                return Ok(if f == fingerprint {
                    IdempotencyBegin::InFlight
                } else {
                    IdempotencyBegin::Mismatch
                });
            }
            // A retry of the same request after its process died continues the lineage.
            Some(Idem::InFlight {
                fingerprint: f,
                origin,
                ..
            }) if f == fingerprint => origin.clone(),
            _ => uuid::Uuid::new_v4().to_string(),
        };
        g.idempotency.insert(
            k,
            Idem::InFlight {
                fingerprint: fingerprint.to_string(),
                started: now,
                origin: decision.clone(),
            },
        );
        Ok(IdempotencyBegin::Started { origin: decision })
    }

    async fn idempotency_finish(
        &self,
        scope: &Scope,
        key: &str,
        response: &StoredResponse,
        expires_at: Timestamp,
    ) -> StoreResult<()> {
        let mut g = self.lock();
        let k = (scope.clone(), key.to_string());
        if let Some(Idem::InFlight { fingerprint, .. }) = g.idempotency.get(&k) {
            let fingerprint = fingerprint.clone();
            g.idempotency.insert(
                k,
                Idem::Done {
                    fingerprint,
                    response: response.clone(),
                    expires_at,
                },
            );
        }
        Ok(())
    }

    async fn idempotency_release(&self, scope: &Scope, key: &str) -> StoreResult<()> {
        let mut g = self.lock();
        let k = (scope.clone(), key.to_string());
        if matches!(g.idempotency.get(&k), Some(Idem::InFlight { .. })) {
            g.idempotency.remove(&k);
        }
        Ok(())
    }

    async fn purge_expired(&self, before: &PurgeBefore, limit: usize) -> StoreResult<Purged> {
        /// Removes up to `limit` entries that `gone` selects.
        fn purge<K: Clone + Eq + std::hash::Hash, V>(
            map: &mut HashMap<K, V>,
            limit: usize,
            gone: impl Fn(&V) -> bool,
        ) -> usize {
            let keys: Vec<K> = map
                .iter()
                .filter(|(_, v)| gone(v))
                .map(|(k, _)| k.clone())
                .take(limit)
                .collect();
            for k in &keys {
                map.remove(k);
            }
            keys.len()
        }
        let mut g = self.lock();
        Ok(Purged {
            idempotency_keys: purge(&mut g.idempotency, limit, |i| match i {
                Idem::Done { expires_at, .. } => *expires_at < before.idempotency,
                Idem::InFlight { started, .. } => *started < before.idempotency,
            }),
            signing_tokens: purge(&mut g.signing_tokens, limit, |t| {
                t.expires_at < before.links
            }),
            file_links: purge(&mut g.file_links, limit, |l| l.expires_at < before.links),
        })
    }

    async fn delete_stale_envelopes(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed> {
        let mut g = self.lock();
        let stale = oldest(
            g.envelopes
                .by_id
                .values()
                .filter(|e| e.mode == mode)
                .map(|e| (e.last_change(), e.id.as_str())),
            before,
            limit,
        );
        let mut out = Removed::default();
        for id in stale {
            let env = g.envelopes.remove(&id).expect("listed above");
            // What belongs to the envelope (as `ENVELOPE_ROWS` in `sql/retention.rs`).
            let events: HashSet<String> = g
                .events
                .by_id
                .values()
                .filter(|e| e.event.data.object.id == id)
                .map(|e| e.id().to_string())
                .collect();
            for e in &events {
                g.events.remove(e);
            }
            g.deliveries.retain(|d| !events.contains(&d.event));
            g.attempts.retain(|a| !events.contains(&a.event));
            g.signing_tokens.retain(|_, t| t.envelope != id);
            let freed = g.apply_holds(&env.account, &env.held_files(), &[]);
            out.blobs.extend(freed);
            out.records += 1;
        }
        Ok(out)
    }

    async fn delete_stale_templates(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed> {
        let mut g = self.lock();
        let stale = oldest(
            g.templates
                .by_id
                .values()
                .filter(|t| t.mode == mode)
                .map(|t| (t.updated_at, t.id.as_str())),
            before,
            limit,
        );
        let mut out = Removed::default();
        for id in stale {
            let t = g.templates.remove(&id).expect("listed above");
            out.blobs
                .extend(g.apply_holds(&t.account, &t.held_files(), &[]));
            out.records += 1;
        }
        Ok(out)
    }

    async fn envelopes_with_files(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>> {
        use crate::model::EnvelopeStatus::{Completed, Voided};
        let g = self.lock();
        let mut due: Vec<&EnvelopeRecord> = g
            .envelopes
            .by_id
            .values()
            .filter(|e| {
                e.mode == mode
                    && matches!(e.status, Completed | Voided)
                    && e.files_deleted_at.is_none()
                    && e.last_change() < before
            })
            .collect();
        due.sort_by_key(|e| (e.last_change(), e.id.clone()));
        Ok(due.into_iter().take(limit).cloned().collect())
    }

    async fn unheld_blobs(&self, keys: &[String]) -> StoreResult<Vec<String>> {
        let g = self.lock();
        Ok(keys
            .iter()
            .filter(|k| !g.held.contains_key(*k))
            .cloned()
            .collect())
    }

    async fn key_check(&self, name: &str, proposed: &str) -> StoreResult<String> {
        let mut g = self.lock();
        Ok(g.key_checks
            .entry(name.to_string())
            .or_insert_with(|| proposed.to_string())
            .clone())
    }

    async fn check_ready(&self, now: Timestamp) -> Result<(), NotReady> {
        // Memory takes every write while the process runs: the probe's row is only kept so that
        // this store does what the contract describes.
        self.lock().ready_checked_at = Some(now);
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
