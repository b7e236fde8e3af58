//! Bulk sends (extensions E12): [`BulkSendStore`].

use async_trait::async_trait;

use super::*;
use crate::ids::BulkSendId;
use crate::model::{BulkRow, BulkSendRecord};

/// Bulk sends: the record (counters, cursor, lease), its checked rows until it completes, the
/// allowance it reserved, and the event of its completion.
///
/// # Contract
///
/// - **Isolation**: reads take a [`Scope`]; a bulk send of another scope reads as missing.
///   [`BulkSendStore::claim_bulk_send`] is the worker's read and sees every scope.
/// - **Reserved allowance**: [`BulkSendStore::create_bulk_send`] with a debit adds
///   `record.total` units to the period's usage only when they all fit under the allowance, in
///   the same transaction as the record and its rows; otherwise
///   [`StoreError::InsufficientBalance`] and nothing written. The envelopes the bulk send then
///   makes carry no debit of their own.
/// - **Leases**: [`BulkSendStore::claim_bulk_send`] hands a `processing` bulk send whose lease is
///   absent or ended (at or before `now`) to one caller, oldest first, by setting its lease and
///   raising its version in one compare-and-set: two callers racing (two processes on one
///   PostgreSQL) never both get the same bulk send while its lease runs.
/// - **Optimistic concurrency**: [`BulkSendStore::update_bulk_send`] applies only when the
///   stored version is `record.version - 1` and the record keeps its owner; otherwise
///   [`StoreError::Conflict`] and nothing written. So a process whose lease ran out and was
///   taken over can write nothing more.
/// - **Atomic progress**: an update writes the record, its events with one pending webhook
///   delivery per subscribed enabled endpoint of the scope (as
///   [`EnvelopeStore::create_envelope`] does), and gives `refund` units back to the record's
///   `period` (never below zero), all or nothing.
/// - **Personal data**: the rows are kept apart from the record and deleted by the update that
///   writes the record `completed`; the record itself holds counters, settings and failures.
/// - **Lists**: newest first, as [`Listed`] says.
///
/// Conformance clauses: `bulk_sends`, `bulk_send_claims_raced`, `list_filters`.
#[async_trait]
pub trait BulkSendStore: Send + Sync + 'static {
    /// Inserts a new bulk send (version 1, `processing`) with its rows, and reserves
    /// `record.total` units of `debit`'s period when given, all or nothing.
    /// [`StoreError::Duplicate`] when the ID exists; [`StoreError::InsufficientBalance`] when the
    /// units do not all fit.
    async fn create_bulk_send(
        &self,
        record: &BulkSendRecord,
        rows: &[BulkRow],
        debit: Option<&AllowanceDebit>,
    ) -> StoreResult<()>;
    /// The bulk send with this ID in `scope`, without its rows; `None` when it does not exist or
    /// belongs to another scope.
    async fn get_bulk_send(
        &self,
        scope: &Scope,
        id: &BulkSendId,
    ) -> StoreResult<Option<BulkSendRecord>>;
    /// A page of the scope's bulk sends, newest first, after the `starting_after` cursor.
    async fn list_bulk_sends(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<BulkSendRecord>>;
    /// Claims the oldest `processing` bulk send of any scope whose lease is absent or ended at or
    /// before `now`: its lease becomes `lease_until` and its version one higher, and it is
    /// answered with its rows. `None` when there is none (or another caller claimed it first).
    async fn claim_bulk_send(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> StoreResult<Option<(BulkSendRecord, Vec<BulkRow>)>>;
    /// Writes `record` if the stored version is `record.version - 1` and the record keeps its
    /// account and mode, with its events and their pending deliveries, giving `refund` units
    /// back to `record.period`; deletes the rows when `record` is `completed`. All or nothing;
    /// [`StoreError::Conflict`] when the version is stale or the bulk send is missing.
    async fn update_bulk_send(
        &self,
        record: &BulkSendRecord,
        events: &[EventRecord],
        refund: u32,
    ) -> StoreResult<()>;
}
