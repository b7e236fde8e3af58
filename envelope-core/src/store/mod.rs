//! The storage seam: [`Store`] for records and [`BlobStore`] for PDF bytes.
//!
//! | implementation | where | use |
//! |---|---|---|
//! | [`MemoryStore`], [`MemoryBlobStore`] | this crate | tests, embedding, demos |
//! | [`SqlStore`] (+ [`SqlBlobStore`]) | feature `sql` | SQLite file or PostgreSQL: durable |
//! | [`DirBlobStore`] | this crate | blobs as files in a directory: durable |
//! | `S3BlobStore` | feature `s3` | blobs as objects in an S3-compatible bucket: durable |
//!
//! # Contract
//!
//! Every implementation must pass the conformance suite in [`conformance`] and give:
//!
//! - **Isolation**: every read takes a [`Scope`] (account + mode); a record of another scope is
//!   reported exactly like a missing one (`Ok(None)`).
//! - **Atomic transitions**: [`Store::create_envelope`] and [`Store::update_envelope`] write the
//!   envelope, its events, one pending webhook delivery per subscribed enabled endpoint of the same
//!   scope for each event, and the allowance debit, all or nothing.
//! - **Optimistic concurrency**: [`Store::update_envelope`] applies only when the stored version is
//!   `record.version - 1` and the record keeps its owner (account and mode); otherwise it returns
//!   [`StoreError::Conflict`] and writes nothing. The same holds for templates. Webhook
//!   endpoints carry no version: their update is last-write-wins, `Conflict` only when missing.
//! - **Allowance**: a debit increments the usage of `(account, period)` only while it is below the
//!   allowance; otherwise [`StoreError::InsufficientBalance`] and nothing is written.
//! - **Email outbox**: [`Store::due_emails`] finds every record whose
//!   [`EnvelopeRecord::next_email_at`] has come, whatever wrote it last, in turns by account:
//!   each account's earliest due record first, then each account's second, and so on, so that
//!   one account's backlog never hides another account's email.
//! - **Email budget**: [`Store::take_email`] counts one email of `(account, mode, day)` only while
//!   the day's count is below the budget (the account's own for the mode, else the default it is
//!   given), atomically: concurrent takes from any number of processes never pass it together.
//! - **Lists**: newest first (insertion order), keyset-paginated by the `starting_after` ID; an
//!   item inserted while a caller pages never shifts the pages it has not read yet.
//! - **Idempotency**: [`Store::idempotency_begin`] admits exactly one request per key and scope.
//! - **Durability**: a call that returned `Ok` survives a crash (for durable implementations).
//! - **Key checks**: [`Store::key_check`] keeps the first value stored under a name for good:
//!   every later or concurrent call returns that one.
//! - **Readiness**: [`Store::check_ready`] answers `Ok` only after a real read and a real write,
//!   and repeated calls leave the store's size unchanged.
//! - **Held blobs and storage**: every write of an envelope or a template records, in the same
//!   transaction, which blobs the record holds ([`EnvelopeRecord::held_files`],
//!   [`TemplateRecord::held_files`]). A blob counts once towards its account's stored bytes
//!   however many records hold it (envelopes made from a template share its file), from the
//!   write that first holds it until the write or deletion that releases the last hold.
//!   [`Store::unheld_blobs`] answers whether any record still holds a blob; a file link to a
//!   blob no record holds any more is deleted with the last hold.
//! - **Storage quota**: [`Store::create_envelope`] and [`Store::insert_template`] are refused
//!   with [`StoreError::QuotaExceeded`], writing nothing, when the account's stored bytes would
//!   then be above its [`Account::storage_quota`] (also when the create adds no new bytes to
//!   an account already above it). Updates are never refused for it: a completion adds the
//!   signed copy and the audit trail whatever the quota.
//! - **Referential integrity**: [`Store::create_envelope`] of a record that names a template
//!   is refused with [`StoreError::Conflict`] when that template no longer exists, checked so
//!   that a concurrent deletion of the template waits for the create or makes it fail. An
//!   envelope made from a template shares its file, which must never be deleted under it.
//! - **Personal data**: [`Store::erase_envelope`] writes the erased record and rewrites the
//!   envelope's stored events without their personal data in one transaction: afterwards no
//!   read (record, event, event list) returns what was erased.
//! - **Retention**: [`Store::delete_stale_envelopes`] and [`Store::delete_stale_templates`]
//!   delete a bounded batch of records whose last change is older than a cutoff, each record
//!   with everything that belongs to it, and report the blobs that no record holds any more.
//!
//! Blobs are written before the records that point at them, so a crash leaves at worst an
//! unreferenced blob, never a record without its bytes. Blobs are deleted only once no record
//! holds them (after the records, so a crash leaves an unreferenced blob, which the orphan sweep
//! of `SigningService::retention_sweep` finds).

pub mod conformance;
mod copy;
mod dir;
mod memory;
/// Files and directories only their owner may read (0700/0600). The rule lives at the crate's
/// ground level, where the stores and the mail file transport use it; it stays public here for
/// the server, which keeps files of its own (the data dir, keys) under the same rule.
pub mod private {
    pub use crate::private_files::{create_dir_all, create_new, restrict, touch};
}
mod read;
#[cfg(feature = "s3")]
pub mod s3;
#[cfg(feature = "sql")]
pub mod sql;

use async_trait::async_trait;
use bytes::Bytes;
use serde::{Deserialize, Serialize};

pub use copy::{COPY_PAGE, CopyReport, copy_blobs};
pub use dir::DirBlobStore;
pub use memory::{MemoryBlobStore, MemoryStore};
pub use read::{BlobStream, DirectRead};
#[cfg(feature = "s3")]
pub use s3::S3BlobStore;
#[cfg(feature = "sql")]
pub use sql::{OpenError, SqlBlobStore, SqlStore};

use crate::clock::Timestamp;
use crate::error::BoxError;
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

/// Why [`Store::check_ready`] found the store unable to serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotReadyCause {
    /// A read failed (the database is down or unreachable).
    Unreadable,
    /// Reads work but a write failed (read-only database, full disk, missing privilege).
    Unwritable,
    /// The store has failed for good in this process and only a restart recovers it (SQLite:
    /// a failed fsync, after which nothing written can be promised durable).
    Failed,
}

/// What [`Store::check_ready`] reports when the store cannot serve. `detail` is for the logs:
/// it may carry the driver's words and is never shown to a client.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{detail}")]
pub struct NotReady {
    /// What kind of failure the probe met, which decides what readiness reports.
    pub cause: NotReadyCause,
    /// The failure in words, for the logs only.
    pub detail: String,
}

impl NotReady {
    /// A report of `cause`, with `detail` (anything `Display`) as its words for the logs.
    pub fn new(cause: NotReadyCause, detail: impl std::fmt::Display) -> NotReady {
        NotReady {
            cause,
            detail: detail.to_string(),
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

/// A debit of one live signature from the account's allowance for a period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowanceDebit {
    /// The account whose allowance is debited.
    pub account: String,
    /// `YYYY-MM` (UTC).
    pub period: String,
    /// The account's monthly live allowance: the debit applies only while the period's usage is
    /// below it, else [`StoreError::InsufficientBalance`].
    pub allowance: u32,
}

/// A signing link, stored by the SHA-256 of its token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SigningToken {
    /// Lowercase hex SHA-256 of the link's token ([`crate::ids::digest`]); the clear token is never
    /// stored.
    pub token_hash: String,
    /// The account of the envelope the link opens.
    pub account: String,
    /// The mode (test or live) of the envelope the link opens.
    pub mode: crate::model::Mode,
    /// The ID of the envelope the link opens.
    pub envelope: String,
    /// The ID of the signer the link is for.
    pub signer: String,
    /// When the link was made.
    pub created_at: Timestamp,
    /// When the link stops working.
    pub expires_at: Timestamp,
    /// Where the link went (extensions E8): emailed, or returned to an API key. `None` for links
    /// made before this was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_via: Option<crate::model::LinkVia>,
}

/// The envelope an archive download link stands for (extensions E5): the ZIP is written from
/// the envelope's files when the link is used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveOf {
    /// The account of the envelope.
    pub account: String,
    /// The mode (test or live) of the envelope.
    pub mode: crate::model::Mode,
    /// The ID of the envelope whose files the ZIP holds.
    pub envelope: String,
}

/// A download link, stored by the SHA-256 of its token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileLink {
    /// Lowercase hex SHA-256 of the link's token ([`crate::ids::digest`]); the clear token is never
    /// stored.
    pub token_hash: String,
    /// The key in the [`BlobStore`] of the file the link downloads.
    pub blob: String,
    /// The file name the download is offered under.
    pub file_name: String,
    /// When the link stops working.
    pub expires_at: Timestamp,
    /// For a file stored as a delta: the blob that comes before `blob`
    /// ([`StoredFile::delta`](crate::model::StoredFile::delta)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// For a link of kind `archive` (extensions E5): the envelope whose signed copies and audit
    /// trail it gives as one ZIP. `blob` is then the audit trail's, so that the link goes with
    /// the envelope's files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<ArchiveOf>,
}

/// What [`Store::purge_expired`] may delete: rows that can no longer be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PurgeBefore {
    /// Finished idempotency records whose replay window ended before this, and claims started
    /// before this that never finished.
    pub idempotency: Timestamp,
    /// Signing and download links that expired before this.
    pub links: Timestamp,
}

/// How many rows [`Store::purge_expired`] deleted, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Purged {
    /// Idempotency records deleted: finished ones past their replay window and abandoned claims.
    pub idempotency_keys: usize,
    /// Expired signing links deleted.
    pub signing_tokens: usize,
    /// Expired download links deleted.
    pub file_links: usize,
}

impl Purged {
    /// Rows deleted, of every kind together.
    pub fn total(&self) -> usize {
        self.idempotency_keys + self.signing_tokens + self.file_links
    }
}

/// What one batch of [`Store::delete_stale_envelopes`] or [`Store::delete_stale_templates`]
/// deleted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Removed {
    /// Records deleted (with what belongs to them).
    pub records: usize,
    /// Blobs that no record holds any more: the caller deletes them from the [`BlobStore`].
    pub blobs: Vec<String>,
}

/// A response kept for idempotent replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredResponse {
    /// The HTTP status of the first response.
    pub status: u16,
    /// The body of the first response, byte for byte.
    pub body: Vec<u8>,
}

/// How much one claim of the webhook worker may take, and from whom: its fairness rules.
#[derive(Debug, Clone, Copy)]
pub struct ClaimLimits<'a> {
    /// Deliveries in all.
    pub limit: usize,
    /// Deliveries of one endpoint.
    pub per_endpoint: usize,
    /// Endpoints with attempts still running in the caller: none of theirs are claimed.
    pub busy_endpoints: &'a [String],
    /// Deliveries of one account, counting those still running in the caller.
    pub per_account: usize,
    /// Attempts still running in the caller, per account.
    pub busy_accounts: &'a [(String, usize)],
}

impl ClaimLimits<'_> {
    /// How many more deliveries `account` may take in this claim.
    pub fn account_room(&self, account: &str) -> usize {
        let busy = self
            .busy_accounts
            .iter()
            .find(|(a, _)| a == account)
            .map_or(0, |(_, n)| *n);
        self.per_account.saturating_sub(busy)
    }

    /// Accounts with no room left.
    pub fn full_accounts(&self) -> impl Iterator<Item = &str> {
        self.busy_accounts
            .iter()
            .filter(|(_, n)| *n >= self.per_account)
            .map(|(a, _)| a.as_str())
    }
}

/// What [`Store::idempotency_begin`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyBegin {
    /// The caller proceeds and must finish or release the key. `origin` names the lineage of
    /// this request: new for a first use (or a different request after the previous one's
    /// window), the same as before when this is a retry of the same request whose earlier
    /// attempt died without finishing. Operations that create resources derive their IDs from
    /// it, so such a retry finds what the earlier attempt may have committed instead of
    /// creating it twice.
    Started {
        /// The lineage of the request, from which created resources derive their IDs.
        origin: String,
    },
    /// A finished request with the same fingerprint: replay this.
    Replay(StoredResponse),
    /// The key was used for a different request.
    Mismatch,
    /// A request with this key is still in flight.
    InFlight,
}

/// What waits to be sent ([`Store::queue_depths`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueueDepths {
    /// Webhook deliveries still pending (due or waiting for a retry).
    pub webhook_deliveries: u64,
    /// Envelopes with at least one pending email.
    pub envelopes_with_emails: u64,
}

/// Filters of the envelope list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvelopeFilter {
    /// Only envelopes made from the template with this ID; `None` lists every envelope.
    pub template: Option<String>,
}

/// Records of the service. See the module documentation for the contract.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    // Accounts and keys.
    /// Inserts an account with its first keys, atomically.
    async fn insert_account(&self, account: &Account, keys: &[ApiKey]) -> StoreResult<()>;
    /// The account with this ID; `None` when there is none.
    async fn get_account(&self, id: &str) -> StoreResult<Option<Account>>;
    /// All accounts, oldest first.
    async fn list_accounts(&self) -> StoreResult<Vec<Account>>;
    /// Sets the monthly live allowance; false when no such account.
    async fn set_allowance(&self, account: &str, allowance: u32) -> StoreResult<bool>;
    /// Inserts one more key for an existing account; [`StoreError::Duplicate`] when a key with the
    /// same ID or the same hash exists already.
    async fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()>;
    /// The key with this hash, revoked or not.
    async fn api_key_by_hash(&self, hash: &str) -> StoreResult<Option<ApiKey>>;
    /// The key with this hash (revoked or not) and its account, read together: every
    /// authenticated request starts here, so a store should answer it in one query. The default
    /// makes the two reads.
    async fn api_key_with_account(&self, hash: &str) -> StoreResult<Option<(ApiKey, Account)>> {
        let Some(key) = self.api_key_by_hash(hash).await? else {
            return Ok(None);
        };
        Ok(self.get_account(&key.account).await?.map(|a| (key, a)))
    }
    /// Every key of the account, revoked or not; empty for an unknown account.
    async fn list_api_keys(&self, account: &str) -> StoreResult<Vec<ApiKey>>;
    /// Marks a key revoked; false when the account has no such unrevoked key.
    async fn revoke_api_key(&self, account: &str, key_id: &str, at: Timestamp)
    -> StoreResult<bool>;
    /// Live signatures used by the account in the period (`YYYY-MM`).
    async fn usage(&self, account: &str, period: &str) -> StoreResult<u32>;
    /// Sets (or, with `None`, removes) the account's storage quota in bytes; false when no such
    /// account.
    async fn set_storage_quota(&self, account: &str, quota: Option<u64>) -> StoreResult<bool>;
    /// Bytes of the blobs the account's records hold (each blob once).
    async fn storage_used(&self, account: &str) -> StoreResult<u64>;
    /// Sets (or, with `None`, removes) the account's own daily email budget in `mode`
    /// ([`Account::email_daily_limit`]); false when no such account.
    async fn set_email_daily_limit(
        &self,
        account: &str,
        mode: Mode,
        limit: Option<u32>,
    ) -> StoreResult<bool>;
    /// Takes one email from the daily budget of `account` in `mode` on `day` (`YYYY-MM-DD`,
    /// UTC): counts it and answers `true` while the day's count is below the budget, which is the
    /// account's own for `mode` when set, else `default_limit` (`None`: no budget, every email is
    /// counted and taken). Once the count has reached the budget, `false` and nothing counted.
    /// Atomic: the budget is read and the count raised in one step, so concurrent takes from
    /// several processes never pass it together.
    async fn take_email(
        &self,
        account: &str,
        mode: Mode,
        day: &str,
        default_limit: Option<u32>,
    ) -> StoreResult<bool>;

    // Templates.
    /// Inserts a template, with its held file ([`TemplateRecord::held_files`]) counted towards the
    /// account's stored bytes. [`StoreError::Duplicate`] when the ID exists;
    /// [`StoreError::QuotaExceeded`], writing nothing, when the account would end up above its
    /// storage quota.
    async fn insert_template(&self, template: &TemplateRecord) -> StoreResult<()>;
    /// The template with this ID in `scope`, archived or not; `None` when it does not exist or
    /// belongs to another scope.
    async fn get_template(&self, scope: &Scope, id: &str) -> StoreResult<Option<TemplateRecord>>;
    /// Writes `template` if the stored version is `template.version - 1`.
    async fn update_template(&self, template: &TemplateRecord) -> StoreResult<()>;
    /// Templates that are not archived.
    async fn list_templates(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<TemplateRecord>>;

    // Envelopes, with their events and outbox rows.
    /// Inserts a new envelope (version 1) with its events, one pending delivery per subscribed
    /// enabled endpoint of the same scope for each event, and `debit` when given, all or nothing.
    /// Refused, writing nothing, with [`StoreError::Duplicate`] when the ID exists,
    /// [`StoreError::InsufficientBalance`] when the debit does not fit,
    /// [`StoreError::QuotaExceeded`] when the account's stored bytes would end above its quota, and
    /// [`StoreError::Conflict`] when the record names a template that no longer exists.
    async fn create_envelope(
        &self,
        envelope: &EnvelopeRecord,
        events: &[EventRecord],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()>;
    /// Writes `envelope` if the stored version is `envelope.version - 1` and the record keeps its
    /// account and mode, together with its events, their pending deliveries and `debit` when given,
    /// all or nothing. [`StoreError::Conflict`] (nothing written) when the version is stale or the
    /// envelope is missing; [`StoreError::InsufficientBalance`] when the debit does not fit. Never
    /// refused for the storage quota.
    async fn update_envelope(
        &self,
        envelope: &EnvelopeRecord,
        events: &[EventRecord],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()>;
    /// Live retention's write: `envelope` (its files deleted and its personal data erased by
    /// [`EnvelopeRecord::erase_personal_data`]) under the rules of [`Store::update_envelope`],
    /// with no new events, and every stored event of the envelope rewritten through
    /// [`EventRecord::erase_personal_data`], all or nothing. [`StoreError::Conflict`] (nothing
    /// written) when the version is stale or the envelope is missing.
    async fn erase_envelope(&self, envelope: &EnvelopeRecord) -> StoreResult<()>;
    /// The envelope with this ID in `scope`; `None` when it does not exist or belongs to another
    /// scope.
    async fn get_envelope(&self, scope: &Scope, id: &str) -> StoreResult<Option<EnvelopeRecord>>;
    /// A page of the scope's envelopes that pass `filter`, newest first, after the
    /// `starting_after` cursor; [`Listed::UnknownCursor`] when the cursor names no envelope in
    /// scope.
    async fn list_envelopes(
        &self,
        scope: &Scope,
        filter: &EnvelopeFilter,
        page: &PageRequest,
    ) -> StoreResult<Listed<EnvelopeRecord>>;
    /// Envelopes of any scope in `draft` or `sent` whose `expires_at` is at or before `now`.
    async fn expired_envelopes(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>>;

    /// Envelopes of any scope with a pending email due at or before `now`
    /// ([`EnvelopeRecord::next_email_at`]): the email worker's query. In turns by account: first
    /// the earliest due envelope of every account, then the second of every account, and so on;
    /// within a turn earliest due first (ties in insertion order). So an account with thousands
    /// of due envelopes takes one place per turn, and every other account's email is within the
    /// first `limit` once `limit` is at least the number of accounts with due email. A store keeps
    /// `next_email_at` indexed as it writes each record.
    async fn due_emails(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<EnvelopeRecord>>;

    /// How much waits in the two outboxes, in every scope: for metrics.
    async fn queue_depths(&self) -> StoreResult<QueueDepths>;

    // Events and the outbox.
    /// The event with this ID in `scope`; `None` when it does not exist or belongs to another
    /// scope.
    async fn get_event(&self, scope: &Scope, id: &str) -> StoreResult<Option<EventRecord>>;
    /// Looks an event up by ID alone (admin operations).
    async fn find_event(&self, id: &str) -> StoreResult<Option<EventRecord>>;
    /// A page of the scope's events, of type `kind` when given, newest first, after the
    /// `starting_after` cursor; [`Listed::UnknownCursor`] when the cursor names no event in scope.
    async fn list_events(
        &self,
        scope: &Scope,
        kind: Option<EventType>,
        page: &PageRequest,
    ) -> StoreResult<Listed<EventRecord>>;
    /// Deliveries of one event, oldest first.
    async fn deliveries_for_event(
        &self,
        scope: &Scope,
        event: &str,
    ) -> StoreResult<Vec<WebhookDelivery>>;
    /// A page of one event's deliveries, oldest first, each with its attempts (oldest first),
    /// after the `starting_after` cursor (a delivery of this event);
    /// [`Listed::UnknownCursor`] when the cursor names no delivery of this event in `scope`.
    /// Only the page's rows are read: resends add deliveries to an event without bound.
    async fn event_deliveries_page(
        &self,
        scope: &Scope,
        event: &str,
        page: &PageRequest,
    ) -> StoreResult<Listed<(WebhookDelivery, Vec<DeliveryAttempt>)>>;

    // Webhook endpoints.
    /// Inserts an endpoint; [`StoreError::Duplicate`] when the ID exists. Only events written
    /// after it get deliveries for it.
    async fn insert_webhook_endpoint(&self, endpoint: &WebhookEndpointRecord) -> StoreResult<()>;
    /// The endpoint with this ID in `scope`; `None` when it does not exist or belongs to another
    /// scope.
    async fn get_webhook_endpoint(
        &self,
        scope: &Scope,
        id: &str,
    ) -> StoreResult<Option<WebhookEndpointRecord>>;
    /// Looks an endpoint up by ID alone (admin operations).
    async fn find_webhook_endpoint(&self, id: &str) -> StoreResult<Option<WebhookEndpointRecord>>;
    /// Replaces the stored endpoint with the same ID, last write wins (endpoints carry no version);
    /// [`StoreError::Conflict`] when there is no such endpoint.
    async fn update_webhook_endpoint(&self, endpoint: &WebhookEndpointRecord) -> StoreResult<()>;
    /// False when there was no such endpoint in scope.
    async fn delete_webhook_endpoint(&self, scope: &Scope, id: &str) -> StoreResult<bool>;
    /// A page of the scope's endpoints, newest first, after the `starting_after` cursor;
    /// [`Listed::UnknownCursor`] when the cursor names no endpoint in scope.
    async fn list_webhook_endpoints(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<WebhookEndpointRecord>>;

    // Links.
    /// Stores a signing link; [`StoreError::Duplicate`] when its hash exists already.
    async fn insert_signing_token(&self, token: &SigningToken) -> StoreResult<()>;
    /// The signing link whose token has this hash, expired or not until
    /// [`Store::purge_expired`] removes it (the caller checks `expires_at`); `None` for an
    /// unknown hash.
    async fn signing_token(&self, token_hash: &str) -> StoreResult<Option<SigningToken>>;
    /// Stores a download link; [`StoreError::Duplicate`] when its hash exists already.
    async fn insert_file_link(&self, link: &FileLink) -> StoreResult<()>;
    /// The download link whose token has this hash, expired or not until
    /// [`Store::purge_expired`] removes it (the caller checks `expires_at`); `None` for an
    /// unknown hash or a link deleted with the last hold of its blob.
    async fn file_link(&self, token_hash: &str) -> StoreResult<Option<FileLink>>;

    // Webhook delivery (the outbox worker).
    /// Claims pending deliveries due at `now` whose endpoint exists and is enabled, oldest due
    /// first, within `limits` (see [`ClaimLimits`]). Each claimed delivery's `next_attempt_at`
    /// becomes `lease_until`, so no other worker claims it before then (a worker that dies
    /// loses nothing: the lease runs out). Two concurrent claims never return the same
    /// delivery. Deliveries that the limits skip must not hide others that fit: an account at
    /// its cap, or a busy endpoint, with a backlog of thousands does not delay anyone else.
    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limits: &ClaimLimits<'_>,
    ) -> StoreResult<Vec<DueDelivery>>;
    /// Appends attempts and moves each delivery on (delivered, retry at, or failed), all in one
    /// transaction (the worker records attempts in batches, so one commit serves many).
    async fn record_attempts(&self, batch: &[(DeliveryAttempt, DeliveryNext)]) -> StoreResult<()>;
    /// Attempts of one event's deliveries, oldest first.
    async fn delivery_attempts(
        &self,
        scope: &Scope,
        event: &str,
    ) -> StoreResult<Vec<DeliveryAttempt>>;
    /// Adds deliveries (resending an event).
    async fn insert_deliveries(&self, deliveries: &[WebhookDelivery]) -> StoreResult<()>;

    // Idempotency.
    /// Claims `key` for a request with `fingerprint`. A claim still in flight and older than
    /// `stale_before` is considered abandoned (its process died) and is taken over.
    async fn idempotency_begin(
        &self,
        scope: &Scope,
        key: &str,
        fingerprint: &str,
        now: Timestamp,
        stale_before: Timestamp,
    ) -> StoreResult<IdempotencyBegin>;
    /// Stores the response of a claimed key until `expires_at`.
    async fn idempotency_finish(
        &self,
        scope: &Scope,
        key: &str,
        response: &StoredResponse,
        expires_at: Timestamp,
    ) -> StoreResult<()>;
    /// Forgets a claim (the request failed in a way that must not be replayed).
    async fn idempotency_release(&self, scope: &Scope, key: &str) -> StoreResult<()>;

    // Upkeep.
    /// Deletes up to `limit` rows of each kind that [`PurgeBefore`] names, in every scope, and
    /// says how many went; call again while it returns `limit` of a kind. Records are deleted
    /// only by the retention methods below.
    async fn purge_expired(&self, before: &PurgeBefore, limit: usize) -> StoreResult<Purged>;

    // Retention.
    /// Deletes up to `limit` envelopes of `mode`, in every account, whose
    /// [`EnvelopeRecord::last_change`] is before `before`, oldest first, in one short
    /// transaction: each with its events, their webhook deliveries and attempts, its signing
    /// links, and the file links of the blobs it released. Reports the blobs no record holds
    /// any more. An envelope changed concurrently is either deleted before the change (which
    /// then fails with `Conflict`) or kept.
    async fn delete_stale_envelopes(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed>;
    /// The same for templates of `mode` whose `updated_at` is before `before` (their file is
    /// released; envelopes made from them keep it held).
    async fn delete_stale_templates(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Removed>;
    /// Completed or voided envelopes of `mode`, in every account, that still hold their files
    /// and whose last change is before `before`, oldest first: live retention's work.
    async fn envelopes_with_files(
        &self,
        mode: Mode,
        before: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>>;
    /// Which of `keys` no record holds.
    async fn unheld_blobs(&self, keys: &[String]) -> StoreResult<Vec<String>>;

    // Keys.
    /// The check value stored under `name` (a known text sealed with a key that encrypts what
    /// the store keeps, see `ResponseKey::check_against`); when there is none yet, `proposed`
    /// is stored, durably, and returned. Concurrent callers all get the one value stored first.
    async fn key_check(&self, name: &str, proposed: &str) -> StoreResult<String>;

    // Health.
    /// Proves that the store serves a read and a durable write now. The write overwrites one
    /// fixed row with `now`, so calling this often never grows the store; the caller bounds how
    /// often (see `SigningService::readiness`). A store that has failed for good answers
    /// [`NotReadyCause::Failed`] without trying.
    async fn check_ready(&self, now: Timestamp) -> Result<(), NotReady>;

    /// Completes, with the reason, once the store has failed for good in this process (SQLite:
    /// a failed fsync); until then it waits. Stores that cannot fail that way never complete,
    /// which is the default.
    async fn failed_for_good(&self) -> String {
        std::future::pending().await
    }
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
/// their length known before the first chunk; `size` gives that length. `list` walks every
/// blob in a fixed order of keys, a page at a time after the last key of the previous page, so
/// that a walk in pages sees each blob that exists throughout it once. `delete` of an unknown
/// key is `Ok(false)`. `direct_url`, when a store gives one, reads exactly the bytes of `get`.
///
/// Only `put`, `get`, `list` and `delete` are required; the others have defaults built on
/// `get` (whole in memory), which a store that can do better overrides (`S3BlobStore`).
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
