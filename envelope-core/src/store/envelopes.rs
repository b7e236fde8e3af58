//! Envelopes and the writes that move them: [`EnvelopeStore`].

use async_trait::async_trait;

use super::*;
use crate::model::EnvelopeStatus;

/// Envelopes, written together with their events, webhook deliveries and allowance debit.
///
/// # Contract
///
/// - **Isolation**: reads take a [`Scope`]; an envelope of another scope reads as missing.
/// - **Atomic transitions**: [`EnvelopeStore::create_envelope`] and
///   [`EnvelopeStore::update_envelope`] write the envelope, its events, one pending webhook
///   delivery per subscribed enabled endpoint of the same scope for each event, and the
///   allowance debit, all or nothing.
/// - **Optimistic concurrency**: an update applies only when the stored version is
///   `record.version - 1` and the record keeps its owner (account and mode); otherwise
///   [`StoreError::Conflict`] and nothing written.
/// - **Held blobs**: every write records, in the same transaction, which blobs the record holds
///   ([`EnvelopeRecord::held_files`]). A blob counts once towards its account's stored bytes
///   however many records hold it (envelopes made from a template share its file), from the
///   write that first holds it until the write or deletion that releases the last hold; a file
///   link to a blob no record holds any more is deleted with the last hold.
/// - **Storage quota**: a create is refused with [`StoreError::QuotaExceeded`], writing nothing,
///   when the account's stored bytes would then be above its [`Account::storage_quota`] (also
///   when it adds no new bytes to an account already above it). Updates are never refused for
///   it: a completion adds the signed copy and the audit trail whatever the quota.
/// - **Referential integrity**: a create of a record that names a template is refused with
///   [`StoreError::Conflict`] when that template no longer exists, checked so that a concurrent
///   deletion of the template waits for the create or makes it fail.
/// - **Personal data**: [`EnvelopeStore::erase_envelope`] writes the erased record and rewrites
///   the envelope's stored events without their personal data in one transaction: afterwards no
///   read (record, event, event list) returns what was erased.
///
/// - **Stamps**: [`EnvelopeStore::envelope_stamp`] answers what [`EnvelopeStore::get_envelope`]
///   would, reduced to [`EnvelopeStamp`]: every write that changes a record gives it a higher
///   version, so a copy made from the record of one version stays right while the stamp shows
///   that version.
/// - **Seal sweeps**: [`EnvelopeStore::seal_upgrades_due`] and [`EnvelopeStore::seals_expiring`]
///   find envelopes of every scope by [`SealRecord::upgrade_due_at`] and
///   [`SealRecord::archive_expires_at`] of their record's `seal`, as the last write left them (a
///   write that clears the time takes the envelope out of the answer, one that sets it puts it
///   in), ordered by (time, ID) with IDs compared as bytes, without reading every record.
///
/// Conformance clauses: `envelope_writes_events_and_outbox`, `optimistic_concurrency`,
/// `optimistic_concurrency_raced`, `allowance`, `allowance_raced`, `expired_envelopes`,
/// `list_pagination`, `list_filters`, `storage_accounting`, `storage_quota_raced`,
/// `erase_envelope`, `envelope_stamps`, `seal_sweeps`.
///
/// [`SealRecord::upgrade_due_at`]: crate::model::SealRecord::upgrade_due_at
/// [`SealRecord::archive_expires_at`]: crate::model::SealRecord::archive_expires_at
#[async_trait]
pub trait EnvelopeStore: Send + Sync + 'static {
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
    /// [`EnvelopeRecord::erase_personal_data`]) under the rules of [`EnvelopeStore::update_envelope`],
    /// with no new events, and every stored event of the envelope rewritten through
    /// [`EventRecord::erase_personal_data`], all or nothing. [`StoreError::Conflict`] (nothing
    /// written) when the version is stale or the envelope is missing.
    async fn erase_envelope(&self, envelope: &EnvelopeRecord) -> StoreResult<()>;
    /// The envelope with this ID in `scope`; `None` when it does not exist or belongs to another
    /// scope.
    async fn get_envelope(
        &self,
        scope: &Scope,
        id: &EnvelopeId,
    ) -> StoreResult<Option<EnvelopeRecord>>;
    /// The version, status and expiry of the envelope with this ID in `scope`, without the rest
    /// of its record; `None` exactly when [`EnvelopeStore::get_envelope`] would answer `None`.
    /// The service keeps the views it serialized by version (`service/views.rs`) and asks this
    /// before it answers from one. The default reads the whole record; stores that can read
    /// three columns should.
    async fn envelope_stamp(
        &self,
        scope: &Scope,
        id: &EnvelopeId,
    ) -> StoreResult<Option<EnvelopeStamp>> {
        Ok(self
            .get_envelope(scope, id)
            .await?
            .map(|r| EnvelopeStamp::of(&r)))
    }
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
    /// Envelopes of any scope whose `seal.upgrade_due_at` is at or before `now`, earliest first
    /// (ties by ID), at most `limit`: the work of the seal upgrade sweep.
    async fn seal_upgrades_due(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>>;
    /// Envelopes of any scope whose `seal.archive_expires_at` is at or before `before`, ordered
    /// by (`archive_expires_at`, ID), strictly after the cursor `after` when given, at most
    /// `limit`: the archive timestamps to renew, a page at a time. The cursor is the last
    /// answered envelope's time and ID, so a walk reads each envelope once, unless a renewal
    /// meanwhile moved it to a later time still at or before `before`.
    async fn seals_expiring(
        &self,
        before: Timestamp,
        after: Option<(Timestamp, EnvelopeId)>,
        limit: usize,
    ) -> StoreResult<Vec<EnvelopeRecord>>;
}

/// What decides whether a copy made from an envelope's record is still good: its version, and
/// what an expiry that has come due since would change (the status and `expires_at`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvelopeStamp {
    /// The record's version.
    pub version: u64,
    /// The record's status.
    pub status: EnvelopeStatus,
    /// When the envelope expires, if it does.
    pub expires_at: Option<Timestamp>,
}

impl EnvelopeStamp {
    /// The stamp of `record`.
    pub fn of(record: &EnvelopeRecord) -> EnvelopeStamp {
        EnvelopeStamp {
            version: record.version,
            status: record.status,
            expires_at: record.expires_at,
        }
    }
}

/// A debit of one live signature from the account's allowance for a period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowanceDebit {
    /// The account whose allowance is debited.
    pub account: AccountId,
    /// `YYYY-MM` (UTC).
    pub period: String,
    /// The account's monthly live allowance: the debit applies only while the period's usage is
    /// below it, else [`StoreError::InsufficientBalance`].
    pub allowance: u32,
}

/// Filters of the envelope list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvelopeFilter {
    /// Only envelopes made from the template with this ID; `None` lists every envelope.
    pub template: Option<TemplateId>,
    /// Only envelopes made by the bulk send with this ID (extensions E12); `None` lists every
    /// envelope.
    pub bulk_send: Option<crate::ids::BulkSendId>,
}
