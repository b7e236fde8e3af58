//! The storage seam: [`Store`] for records and [`BlobStore`] for PDF bytes.
//!
//! | implementation | where | use |
//! |---|---|---|
//! | [`MemoryStore`], [`MemoryBlobStore`] | this crate | tests, embedding, demos |
//! | [`SqlStore`] (+ [`SqlBlobStore`]) | feature `sql` | SQLite file or PostgreSQL: durable |
//! | [`DirBlobStore`] | this crate | blobs as files in a directory: durable |
//! | `S3BlobStore` | feature `s3` | blobs as objects in an S3-compatible bucket: durable |
//!
//! # Resources
//!
//! [`Store`] is the sum of one small trait per resource, each with its own `# Contract` and
//! conformance clauses, and implemented for every type that implements them all, so that
//! `Arc<dyn Store>` is the one handle the service holds. Call a resource's methods with its
//! trait in scope (`use envelope_core::store::EnvelopeStore;`).
//!
//! | trait | resource |
//! |---|---|
//! | [`AccountStore`] | accounts: allowance, usage, storage quota and use, email budgets |
//! | [`ApiKeyStore`] | API keys, by the hash of the secret |
//! | [`TemplateStore`] | templates |
//! | [`EnvelopeStore`] | envelopes, written with their events, deliveries and debit |
//! | [`EventStore`] | events |
//! | [`WebhookStore`] | webhook endpoints, and deliveries as the API shows them |
//! | [`OutboxStore`] | the work of the two workers: webhook deliveries, due emails, budget |
//! | [`LinkStore`] | signing and download links, by the hash of the token |
//! | [`IdempotencyStore`] | idempotency keys and their replayed responses |
//! | [`RetentionStore`] | purging expired rows, deleting and emptying old records |
//! | [`HealthStore`] | readiness, failure for good, key checks |
//! | [`BulkSendStore`] | bulk sends: rows, cursor, lease, reserved allowance (extensions E12) |
//! | [`BlobStore`] | PDF bytes by key (a store of its own: it may live elsewhere) |
//!
//! # Contract
//!
//! Every implementation must pass the conformance suite (feature `conformance`) and give, on top
//! of each trait's own contract:
//!
//! - **Isolation**: every read of a resource that belongs to an account takes a [`Scope`]
//!   (account + mode); a record of another scope is reported exactly like a missing one
//!   (`Ok(None)`).
//! - **Lists**: newest first (insertion order), keyset-paginated by the `starting_after` ID; an
//!   item inserted while a caller pages never shifts the pages it has not read yet; a cursor
//!   that names nothing in scope is [`Listed::UnknownCursor`].
//! - **Durability**: a call that returned `Ok` survives a crash (for durable implementations).
//!
//! Blobs are written before the records that point at them, so a crash leaves at worst an
//! unreferenced blob, never a record without its bytes. Blobs are deleted only once no record
//! holds them (after the records, so a crash leaves an unreferenced blob, which the orphan sweep
//! of `SigningService::retention_sweep` finds).

mod accounts;
mod bulk_sends;
#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
mod copy;
mod dir;
mod envelopes;
mod events;
mod health;
mod idempotency;
mod links;
mod memory;
mod outbox;
mod read;
mod retention;
#[cfg(feature = "s3")]
mod s3;
#[cfg(feature = "sql")]
mod sql;
mod templates;
mod webhooks;

use async_trait::async_trait;
use bytes::Bytes;
use serde::{Deserialize, Serialize};

pub use accounts::{AccountStore, ApiKeyStore};
pub use bulk_sends::BulkSendStore;
pub use copy::{COPY_PAGE, CopyReport, copy_blobs};
pub use dir::DirBlobStore;
pub use envelopes::{AllowanceDebit, EnvelopeFilter, EnvelopeStamp, EnvelopeStore};
pub use events::EventStore;
pub use health::{HealthStore, NotReady, NotReadyCause};
pub use idempotency::{IdempotencyBegin, IdempotencyStore, StoredResponse};
pub use links::{ArchiveOf, BuilderToken, FileLink, LinkStore, SigningToken};
pub use memory::{MemoryBlobStore, MemoryStore};
pub use outbox::{ClaimLimits, OutboxStore, QueueDepths};
pub use read::{BlobStream, DirectRead};
pub use retention::{PurgeBefore, Purged, Removed, RetentionStore};
#[cfg(feature = "s3")]
pub use s3::S3BlobStore;
// The S3 store's part sizes, for the crate's own tests of its multipart path.
#[cfg(all(feature = "s3", feature = "internals"))]
pub use s3::{MULTIPART_THRESHOLD, PART_SIZE};
#[cfg(feature = "sql")]
pub use sql::{CommitStats, Engine, OpenError, SCHEMA_VERSION, SqlBlobStore, SqlStore, WalSync};
pub use templates::TemplateStore;
pub use webhooks::WebhookStore;

use crate::clock::Timestamp;
use crate::error::BoxError;
use crate::ids::{
    AccountId, ApiKeyId, EnvelopeId, EventId, SignerId, TemplateId, WebhookEndpointId,
};
use crate::model::{
    Account, ApiKey, DeliveryAttempt, DeliveryNext, DueDelivery, EnvelopeRecord, EventRecord,
    EventType, Mode, Scope, TemplateRecord, WebhookDelivery, WebhookEndpointRecord,
};

/// What a store can report besides success.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The record changed since it was read (stale version).
    #[error("write conflict")]
    Conflict,
    /// A record with this ID (or key hash) exists already.
    #[error("duplicate")]
    Duplicate,
    /// The allowance debit did not fit.
    #[error("insufficient balance")]
    InsufficientBalance,
    /// The create would take the account's stored bytes past its storage quota.
    #[error("storage quota exceeded")]
    QuotaExceeded,
    /// The backend failed; retrying later may work.
    #[error("store unavailable: {0}")]
    Unavailable(#[source] BoxError),
}

/// The result of every [`Store`] and [`BlobStore`] call.
pub type StoreResult<T> = Result<T, StoreError>;

/// What the service makes of a store's refusal that it did not handle itself.
impl From<StoreError> for crate::error::Error {
    fn from(e: StoreError) -> Self {
        use crate::error::Error;
        match e {
            StoreError::InsufficientBalance => Error::InsufficientBalance,
            // The service turns it into `StorageQuotaExceeded` with the figures; reaching here
            // means an operation that creates nothing was refused for it.
            StoreError::QuotaExceeded => Error::Internal("unexpected storage quota refusal".into()),
            StoreError::Conflict => Error::Internal("unresolved write conflict".into()),
            StoreError::Duplicate => Error::Internal("duplicate key".into()),
            StoreError::Unavailable(source) => Error::Unavailable { source },
        }
    }
}

/// One page of a list request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    /// Most items the page may hold; the store returns up to this many.
    pub limit: usize,
    /// An ID of the same kind and scope; the page starts after it.
    pub starting_after: Option<String>,
}

/// A page of results.
#[derive(Debug, Clone)]
pub struct Page<T> {
    /// The items of the page, newest first.
    pub items: Vec<T>,
    /// True when more items follow the last one of this page.
    pub has_more: bool,
}

/// Outcome of a list whose cursor names nothing in scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listed<T> {
    /// The items of the page, newest first, and whether more items follow the last one.
    Page(Vec<T>, bool),
    /// `starting_after` names no item of this kind in this scope.
    UnknownCursor,
}

/// Records of the service: the sum of the resource traits. See the module documentation for
/// the contract.
pub trait Store:
    AccountStore
    + ApiKeyStore
    + TemplateStore
    + EnvelopeStore
    + EventStore
    + WebhookStore
    + OutboxStore
    + LinkStore
    + IdempotencyStore
    + RetentionStore
    + HealthStore
    + BulkSendStore
{
}

impl<T> Store for T where
    T: AccountStore
        + ApiKeyStore
        + TemplateStore
        + EnvelopeStore
        + EventStore
        + WebhookStore
        + OutboxStore
        + LinkStore
        + IdempotencyStore
        + RetentionStore
        + HealthStore
        + BulkSendStore
        + ?Sized
{
}

/// One blob as [`BlobStore::list`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobInfo {
    /// The key the blob was stored under.
    pub key: String,
    /// The `stored_at` of its `put`; `None` when the implementation does not know it (blobs
    /// written before it kept the time): such a blob is never swept as an orphan.
    pub stored_at: Option<Timestamp>,
}

/// Bytes of documents, by key. Keys are chosen by the service and never reused.
///
/// Contract: `put` is atomic (a reader sees all of the bytes or none) and durable when it
/// returns for durable implementations, and keeps `stored_at` (the caller's clock) for `list`;
/// `get` of an unknown key is `Ok(None)`. `get_stream` gives the same bytes as `get`, with
/// their length known before the first chunk; `size` gives that length. A stream gives the bytes
/// of one `put`: when its key is overwritten or deleted while it is read, it gives those bytes
/// whole or ends with an error, never a mix and never fewer bytes that look whole. `list` walks every
/// blob in a fixed order of keys, a page at a time after the last key of the previous page, so
/// that a walk in pages sees each blob that exists throughout it once. `delete` of an unknown
/// key is `Ok(false)`. `direct_url`, when a store gives one, reads exactly the bytes of `get`.
///
/// Only `put`, `get`, `list` and `delete` are required; the others have defaults built on
/// `get` (whole in memory), which a store that can do better overrides (`SqlBlobStore`,
/// `DirBlobStore` and `S3BlobStore` stream in chunks).
#[async_trait]
pub trait BlobStore: Send + Sync + 'static {
    /// Stores `bytes` under `key`, atomically (a reader sees all of the bytes or none) and, for
    /// durable implementations, durably once it returns; `stored_at` is kept for
    /// [`BlobStore::list`].
    /// A retried `put` of the same key keeps the later `stored_at`.
    async fn put(&self, key: &str, bytes: Bytes, stored_at: Timestamp) -> StoreResult<()>;
    /// The bytes stored under `key`; `None` for an unknown key.
    async fn get(&self, key: &str) -> StoreResult<Option<Bytes>>;
    /// Up to `limit` blobs whose keys come after `after` (from the first with `None`).
    async fn list(&self, after: Option<&str>, limit: usize) -> StoreResult<Vec<BlobInfo>>;
    /// Deletes a blob; false when there was none.
    async fn delete(&self, key: &str) -> StoreResult<bool>;

    /// The bytes stored under `key` as they are read, with their length; `None` for an unknown
    /// key. The default reads the blob whole with [`BlobStore::get`]; a store that can hand
    /// out chunks as they arrive overrides it, so that a reader never holds the whole blob.
    async fn get_stream(&self, key: &str) -> StoreResult<Option<BlobStream>> {
        Ok(self.get(key).await?.map(BlobStream::from_bytes))
    }

    /// The length of the blob under `key`; `None` for an unknown key. The default reads the
    /// blob ([`BlobStore::get_stream`]); a store that keeps sizes apart overrides it.
    async fn size(&self, key: &str) -> StoreResult<Option<u64>> {
        Ok(self.get_stream(key).await?.map(|s| s.size()))
    }

    /// A URL from which a client reads the blob under `key` without this process, on the
    /// terms of `read` (S3: a presigned `GET`). `None` when the store makes no such URLs (the
    /// default) or has no blob under `key`: the caller then serves the bytes itself.
    async fn direct_url(&self, key: &str, read: &DirectRead) -> StoreResult<Option<String>> {
        let _ = (key, read);
        Ok(None)
    }
}
