//! The store conformance suite: the [contract](super) as executable checks, written once and run
//! against every implementation ([`MemoryStore`](super::MemoryStore), SQLite, PostgreSQL).
//!
//! Each clause is a `pub async fn(Arc<dyn Store>, Arc<dyn BlobStore>)` that panics on a
//! violation; [`run_all`] runs them in turn on one store. Clauses make their own accounts with
//! random IDs, so they may share a store (and a database) with other clauses and other runs.
//! [`CLAUSES`] names them all, so that a runner can check it covers every one.
//!
//! ```
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use envelope_core::store::{conformance, MemoryBlobStore, MemoryStore};
//! conformance::run_all(Arc::new(MemoryStore::new()), Arc::new(MemoryBlobStore::new())).await;
//! # });
//! ```
//!
//! This module must never weaken a check to suit one implementation: fix the implementation.

mod accounts;
mod blobs;
mod bulk_sends;
mod email;
mod envelopes;
pub mod fixtures;
mod health;
mod idempotency;
mod lists;
mod outbox;
mod retention;

pub use accounts::{accounts_and_keys, links, scope_isolation};
pub use blobs::{blob_listing, blob_streams, blobs};
pub use bulk_sends::{bulk_send_claims_raced, bulk_sends};
pub use email::{due_emails_fairness, email_budget, email_budget_raced};
pub use envelopes::{
    allowance, allowance_raced, due_emails, envelope_stamps, envelope_writes_events_and_outbox,
    expired_envelopes, optimistic_concurrency, optimistic_concurrency_raced, seal_sweeps,
    templates, webhook_endpoints,
};
pub use health::{key_check, readiness};
pub use idempotency::{idempotency, idempotency_origin, idempotency_raced, purge_expired};
pub use lists::{list_filters, list_pagination};
pub use outbox::{
    webhook_delivery_pages, webhook_outbox, webhook_outbox_fairness, webhook_outbox_raced,
};
pub use retention::{
    envelopes_with_files, erase_envelope, retention_deletes, retention_raced, storage_accounting,
    storage_quota_raced,
};

use std::collections::BTreeSet;
use std::sync::Arc;

use bytes::Bytes;

use self::fixtures::*;
use super::{
    AllowanceDebit, BlobInfo, BlobStore, EnvelopeFilter, EnvelopeStamp, IdempotencyBegin, Listed,
    PageRequest, PurgeBefore, Store, StoreError, StoredResponse,
};
use crate::ids::{
    AccountId, ApiKeyId, BulkSendId, DeliveryId, EnvelopeId, EventId, TemplateId, WebhookEndpointId,
};
use crate::model::{
    DeliveryStatus, EndpointStatus, EnvelopeRecord, EnvelopeStatus, EventType, Mode, Scope,
};

/// Every clause, by function name.
pub const CLAUSES: &[&str] = &[
    "accounts_and_keys",
    "scope_isolation",
    "templates",
    "envelope_writes_events_and_outbox",
    "optimistic_concurrency",
    "optimistic_concurrency_raced",
    "envelope_stamps",
    "allowance",
    "allowance_raced",
    "list_pagination",
    "list_filters",
    "expired_envelopes",
    "seal_sweeps",
    "due_emails",
    "due_emails_fairness",
    "email_budget",
    "email_budget_raced",
    "webhook_endpoints",
    "links",
    "idempotency",
    "idempotency_raced",
    "idempotency_origin",
    "purge_expired",
    "blobs",
    "blob_listing",
    "blob_streams",
    "webhook_outbox",
    "webhook_outbox_raced",
    "webhook_outbox_fairness",
    "webhook_delivery_pages",
    "readiness",
    "storage_accounting",
    "storage_quota_raced",
    "retention_deletes",
    "retention_raced",
    "envelopes_with_files",
    "erase_envelope",
    "key_check",
    "bulk_sends",
    "bulk_send_claims_raced",
];

/// Runs every clause on one store.
pub async fn run_all(store: Arc<dyn Store>, blobs: Arc<dyn BlobStore>) {
    accounts_and_keys(store.clone(), blobs.clone()).await;
    scope_isolation(store.clone(), blobs.clone()).await;
    templates(store.clone(), blobs.clone()).await;
    envelope_writes_events_and_outbox(store.clone(), blobs.clone()).await;
    optimistic_concurrency(store.clone(), blobs.clone()).await;
    optimistic_concurrency_raced(store.clone(), blobs.clone()).await;
    envelope_stamps(store.clone(), blobs.clone()).await;
    allowance(store.clone(), blobs.clone()).await;
    allowance_raced(store.clone(), blobs.clone()).await;
    list_pagination(store.clone(), blobs.clone()).await;
    list_filters(store.clone(), blobs.clone()).await;
    webhook_outbox(store.clone(), blobs.clone()).await;
    webhook_outbox_raced(store.clone(), blobs.clone()).await;
    webhook_outbox_fairness(store.clone(), blobs.clone()).await;
    webhook_delivery_pages(store.clone(), blobs.clone()).await;
    expired_envelopes(store.clone(), blobs.clone()).await;
    seal_sweeps(store.clone(), blobs.clone()).await;
    due_emails(store.clone(), blobs.clone()).await;
    due_emails_fairness(store.clone(), blobs.clone()).await;
    email_budget(store.clone(), blobs.clone()).await;
    email_budget_raced(store.clone(), blobs.clone()).await;
    webhook_endpoints(store.clone(), blobs.clone()).await;
    links(store.clone(), blobs.clone()).await;
    idempotency(store.clone(), blobs.clone()).await;
    idempotency_raced(store.clone(), blobs.clone()).await;
    idempotency_origin(store.clone(), blobs.clone()).await;
    purge_expired(store.clone(), blobs.clone()).await;
    readiness(store.clone(), blobs.clone()).await;
    storage_accounting(store.clone(), blobs.clone()).await;
    storage_quota_raced(store.clone(), blobs.clone()).await;
    retention_deletes(store.clone(), blobs.clone()).await;
    retention_raced(store.clone(), blobs.clone()).await;
    envelopes_with_files(store.clone(), blobs.clone()).await;
    erase_envelope(store.clone(), blobs.clone()).await;
    key_check(store.clone(), blobs.clone()).await;
    bulk_sends(store.clone(), blobs.clone()).await;
    bulk_send_claims_raced(store.clone(), blobs.clone()).await;
    blob_listing(store.clone(), blobs.clone()).await;
    blob_streams(store.clone(), blobs.clone()).await;
    self::blobs(store, blobs).await;
}

/// How many tasks race in the `*_raced` clauses.
const RACERS: usize = 8;

fn page(limit: usize, after: Option<&str>) -> PageRequest {
    PageRequest {
        limit,
        starting_after: after.map(str::to_string),
    }
}

/// The IDs of a page and its `has_more`; panics on `UnknownCursor`.
fn ids<T>(listed: Listed<T>, id: impl Fn(&T) -> &str) -> (Vec<String>, bool) {
    match listed {
        Listed::Page(items, more) => (items.iter().map(|i| id(i).to_string()).collect(), more),
        Listed::UnknownCursor => panic!("unexpected UnknownCursor"),
    }
}

fn env_ids(listed: Listed<EnvelopeRecord>) -> (Vec<String>, bool) {
    ids(listed, |e| &e.id)
}

fn is_empty_page<T>(listed: Listed<T>) -> bool {
    matches!(listed, Listed::Page(items, false) if items.is_empty())
}

fn debit(scope: &Scope, period: &str, allowance: u32) -> AllowanceDebit {
    AllowanceDebit {
        account: scope.account.clone(),
        period: period.into(),
        allowance,
    }
}

fn ids_hash(s: &str) -> String {
    crate::ids::digest(s)
}

fn pos(list: &[String], id: &str) -> usize {
    list.iter()
        .position(|x| x == id)
        .unwrap_or_else(|| panic!("{id} missing from list"))
}

/// `None` for `UnknownCursor`, else the item count: lets tests compare outcomes briefly.
fn count<T>(listed: &Listed<T>) -> Option<usize> {
    match listed {
        Listed::Page(items, _) => Some(items.len()),
        Listed::UnknownCursor => None,
    }
}
